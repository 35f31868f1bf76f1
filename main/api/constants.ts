/**
 * Values shared with the preload script and the renderer, free of zod so they bundle nothing
 * else. `contract.ts` checks at compile time that the method names match the contract.
 */
export const METHOD_NAMES = [
  'listDatasets',
  'importDataset',
  'exportDataset',
  'recheckDataset',
  'listSamples',
  'getSample',
  'editSample',
  'undoEdit',
  'listModels',
  'addModel',
  'scanModels',
  'removeModel',
  'downloadModel',
  'cancelDownload',
  'listDownloads',
  'previewRun',
  'startRun',
  'cancelRun',
  'resumeRun',
  'listRuns',
  'getRun',
  'deleteRun',
  'listRunSamples',
  'getRunSample',
  'compareRuns',
  'compareConditions',
  'overrideVerdict',
  'exportRun',
  'diffSpecVersion',
  'getCoverage',
  'synthesize',
  'resumeSynthesis',
  'cancelSynthesis',
  'getSynthesisJob',
  'listSynthesisJobs',
  'getApiKeyStatus',
  'saveApiKey',
  'reviewSamples',
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** How a call's outcome crosses a transport (IPC or HTTP): never a raw exception. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export const IPC_CHANNEL_PREFIX = 'wapii:';
export const IPC_EVENT_CHANNEL = 'wapii:event';

export const REVIEW_STATES = ['unreviewed', 'accepted', 'fixed', 'rejected'] as const;

/** Why an output failed (main/scoring/taxonomy.ts classifies; here so the renderer can list them without the engine). */
export const FAILURE_CLASSES = [
  'hallucinated_endpoint',
  'wrong_endpoint',
  'illegal_method',
  'wrong_method',
  'missing_required_argument',
  'missing_argument',
  'illegal_argument',
  'unnecessary_argument',
  'wrong_value_type',
  'wrong_value',
  'syntax_error',
  'runtime_error',
  'incomplete',
  'no_request',
  'timeout',
  'unsatisfiable',
] as const;
