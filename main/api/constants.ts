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
  'listModelFiles',
  'removeModel',
  'downloadModel',
  'cancelDownload',
  'listDownloads',
  'dismissDownload',
  'listProviders',
  'listProviderModels',
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
  'getRunReport',
  'scoreCodes',
  'oraclePrograms',
  'deriveSubset',
  'measureRecall',
  'checkConstraints',
  'exportGbnf',
  'diffSpecs',
  'recheckSpecVersion',
  'deriveSpecVersion',
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
  'getReviewAid',
] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

/** How a call's outcome crosses a transport (IPC or HTTP): never a raw exception. */
export type Envelope<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export const IPC_CHANNEL_PREFIX = 'wapii:';
export const IPC_EVENT_CHANNEL = 'wapii:event';
/** Electron only: the native file dialog for a model file (a shell affordance that returns a path; adding it stays the contract's addModel). */
export const IPC_PICK_MODEL_CHANNEL = 'wapii-shell:pickModelFile';

/**
 * Sequences a run decodes in one batch per step unless asked otherwise, on the CPU (and on a
 * remote server): 4, since in the generation bench 4 paid over 1 even on a 2-core CPU (see
 * describeDecoding in main/generation/runtime.ts).
 */
export const DEFAULT_PARALLEL = 4;

/** A run's sampling when the form, the CLI or a stored run says nothing: greedy, one output, the paper's 250 new tokens. */
export const SAMPLING_DEFAULTS = { temperature: 0, topK: 40, topP: 0.95, seed: 1, n: 1, maxTokens: 250 } as const;
/**
 * The same on a GPU: 8. In the generation bench on an H100, 8 sequences decoded 3.7 to 4.7× the
 * tokens/s of one on the 12×512 test models, 4 sequences 2.6 to 2.9×, and 16 4.5 to 5.5× for twice
 * the cache memory. Where the free GPU memory holds no cache for 8, a run takes the most that fits.
 */
export const DEFAULT_PARALLEL_GPU = 8;

export const REVIEW_STATES = ['unreviewed', 'accepted', 'fixed', 'rejected'] as const;

/** The paper's headline table: each row a label and a statistic (the `all` location for argument metrics). */
export const HEADLINE: readonly (readonly [string, string])[] = [
  ['Correct implementations (t)', 'samples_correct_wrt_total'],
  ['Illegal implementations (e)', 'samples_illegal_wrt_executable'],
  ['Executable (t)', 'samples_executable_wrt_total'],
  ['Correct URLs (e)', 'urls_correct_wrt_executable'],
  ['Illegal URLs (e)', 'urls_illegal_wrt_executable'],
  ['Correct methods (e)', 'methods_correct_wrt_executable'],
  ['Illegal methods (e)', 'methods_illegal_wrt_executable'],
  ['Mean argument precision (e)', 'argument_name_mean_precision_wrt_executable'],
  ['Mean argument recall (e)', 'argument_name_mean_recall_wrt_executable'],
  ['Illegal arguments (e)', 'arguments_illegal_wrt_all_executable'],
  ['Mean argument value cond. accuracy (e)', 'argument_value_mean_accuracy_wrt_correct_executable'],
];

/** The per-location argument table (counts over executable samples): a label and a statistic. */
export const LOCATION_ROWS: readonly (readonly [string, string])[] = [
  ['expected', 'arguments_expected_executable'],
  ['correct name', 'arguments_correct_name'],
  ['correct value', 'arguments_correct_value'],
  ['missing', 'arguments_missing_executable'],
  ['unnecessary', 'arguments_unnecessary'],
  ['illegal', 'arguments_illegal'],
];

/** The review checklist as a revision's reason carries it (the renderer reads it back). */
export { CHECKLIST_ITEMS, checklistNote, parseChecklist, type Checklist } from './checklist.js';

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
  // A multi-step sample's (scoring.md §7): a step no request took, and a mutating request no step took.
  'skipped_step',
  'extra_request',
] as const;

/**
 * How a run's status reads: "finished with 3 errors" (its outputs that failed to generate, as the
 * run's error says) rather than a bare "finished" a reader takes for a clean run. The Runs list
 * and the run page use it; typed structurally, free of zod.
 */
export function runStatusText(run: { readonly status: string; readonly error: string | null }): string {
  const errors = run.status === 'finished' ? /^finished with (\d+) errors?\b/.exec(run.error ?? '')?.[1] : undefined;
  return errors !== undefined ? `finished with ${errors} ${errors === '1' ? 'error' : 'errors'}` : run.status;
}

/**
 * How a synthesis job's status reads: "finished with 3 errors" rather than a bare "finished" a
 * reader takes for a clean job (SynthesisJob's status and counts; typed structurally, free of zod).
 */
export function jobStatusText(job: { readonly status: string; readonly counts: { readonly failed: number } }): string {
  const { failed } = job.counts;
  if (job.status === 'finished' && failed > 0) return `finished with ${failed} ${failed === 1 ? 'error' : 'errors'}`;
  if (job.status === 'failed') return `failed (${failed === 1 ? 'its endpoint' : `all ${failed} endpoints`})`;
  return job.status;
}

// The HTTP clients' profiles (clients.ts), for the pages as for the engine.
export { CLIENT_PROFILES, clientField, DEFAULT_CLIENT, HTTP_CLIENTS, type HttpClient } from './clients.js';

/** The name the embedded demo's tasks of several requests are imported under, beside `demo` (main/service/demo.ts). */
export const DEMO_MULTISTEP_DATASET = 'demo-multistep';

/**
 * The dataset a page opens when none was chosen: the newest, leaving out the demo's multi-step
 * companion, which is seeded after the demo itself (a fresh start opens on the demo, as before;
 * a dataset the user imports is newer than both).
 */
export function defaultDatasetId(datasets: readonly { readonly id: number; readonly name: string }[]): number | undefined {
  return (datasets.filter((d) => d.name !== DEMO_MULTISTEP_DATASET).at(-1) ?? datasets.at(-1))?.id;
}
