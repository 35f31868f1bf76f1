export { checkRequest, checkSample } from './checks.js';
export { filterSamples } from './filter.js';
export { apiFromFilename, exportFlat, exportPerApi, parseDataset, sampleId, type SampleDraft } from './wapiibench.js';
export { recheckSamples, samplesOnNovelEndpoints, type SampleRecheck } from './specVersions.js';
