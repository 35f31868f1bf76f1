export { BUNDLED_VOCABULARIES, bundledVocabulary, bundledVocabularyAvailable, cacheDir, type BundledVocabulary } from './vocabularies.js';
export { cachedTestModel, DEFAULT_TEST_MODEL, encodeTestModel, writeTestModel, type TestModelShape } from './testModel.js';
export { Decoder, type SamplingSettings } from './decoder.js';
export { generate, maskBias, type Generation, type GenerationOptions, type Intervention, type StopReason } from './generate.js';
export { describeRuntime, loadRuntime, physicalCores, sha256File, type GpuChoice, type Runtime, type RuntimeInfo } from './runtime.js';
export type { GenerationBackend, SamplingOptions, SlotGenerator } from './backend.js';
export { localBackend, type LocalOptions } from './local.js';
export { remoteBackend, type RemoteOptions } from './remote.js';
