export { checkRequest, checkSample, responseSchema } from './checks.js';
export { filterSamples } from './filter.js';
export { apiFromFilename, exportChecks, exportFlat, exportPerApi, parseDataset, sampleId, withExportIndices, type SampleDraft } from './wapiibench.js';
export { recheckSamples, samplesOnNovelEndpoints, type SampleRecheck } from './specVersions.js';
