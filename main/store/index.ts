export { Store, sha256, type EditMeta, type NewDataset, type NewRun, type RunSampleRecord, type RunSummary, type StoredRun, type NewSample, type SampleChange, type SampleState, type StoredSpec, BUSY_TIMEOUT_MS } from './store.js';
export { defaultDatabasePath, userDataDir } from './paths.js';
export { SynthesisRepository, type NewSynthesisJob, type StoredAnswer, type SynthesizedSampleRecord } from './synthesis.js';
