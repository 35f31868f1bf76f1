import { DEFAULT_CLIENT, HTTP_CLIENTS } from './clients.js';
import { z } from 'zod';
import { FAILURE_CLASSES, SAMPLING_DEFAULTS } from './constants.js';
import { JsonValueSchema, RequestConfigSchema, ReviewStateSchema } from './schemas.js';

/**
 * The evaluation half of the contract: models, runs on stored datasets, their samples, compare,
 * override and export. Verdict and statistic names are the reference's (WAPIIBench), so exports
 * and the UI read the same words as the paper.
 */

// --- verdicts and statistics ------------------------------------------------------------------

export const SAMPLE_VERDICTS = ['correct', 'wrong', 'illegal', 'nonexecutable'] as const;
export const ERROR_VERDICTS = ['timeout', 'unsatisfiable', 'no_request', 'incomplete_request', 'runtime_error'] as const;
export const PART_VERDICTS = ['correct', 'wrong', 'illegal'] as const;
export const ARGUMENT_VERDICTS = ['correct', 'incorrect_value', 'missing', 'unnecessary', 'illegal'] as const;
export const ARGUMENT_LOCATIONS = ['headers', 'params', 'path_params', 'data'] as const;

export const SampleVerdictSchema = z.enum(SAMPLE_VERDICTS);
export const FailureClassSchema = z.enum(FAILURE_CLASSES);
/** How many outputs carry each failure class (an output may carry several). */
export const FailureCountsSchema = z.record(FailureClassSchema, z.number().int());
export const RunFailuresSchema = z.object({
  counts: FailureCountsSchema,
  per_api: z.record(z.string(), FailureCountsSchema),
  /** Scored outputs that could not be classified (a file run stored before failure classes were; `wapii conditions --specs` classifies them). */
  unclassified: z.number().int(),
});
export type RunFailures = z.infer<typeof RunFailuresSchema>;
export const ErrorVerdictSchema = z.enum(ERROR_VERDICTS);
export const PartVerdictSchema = z.enum(PART_VERDICTS);
export const ArgumentVerdictSchema = z.enum(ARGUMENT_VERDICTS);

export const ArgumentResultSchema = z.object({ expected: JsonValueSchema.nullable(), actual: JsonValueSchema.nullable(), verdict: ArgumentVerdictSchema });
/** One sample's verdicts, as the reference names them. */
const SingleVerdictSchema = z.object({
  sample_verdict: SampleVerdictSchema,
  error_verdict: ErrorVerdictSchema.nullable(),
  url_verdict: PartVerdictSchema.nullable(),
  method_verdict: PartVerdictSchema.nullable(),
  endpoint_verdict: PartVerdictSchema.nullable(),
  arguments: z.record(z.string(), z.record(z.string(), ArgumentResultSchema)),
});
/**
 * A multi-step sample's verdicts carry, beside its own (URL, method and endpoint null, no
 * arguments: they are its steps'), each step's and the counts scoring.md §7 adds.
 */
export const VerdictSchema = SingleVerdictSchema.extend({
  /** Each step: the position of the captured request it took (null: missing) and its §4 verdicts. */
  steps: z.array(z.object({ request: z.number().int().nullable(), verdict: SingleVerdictSchema })).readonly().optional(),
  steps_total: z.number().int().optional(),
  steps_correct: z.number().int().optional(),
  steps_missing: z.number().int().optional(),
  /** Positions of the captured requests no step took. */
  extra: z.array(z.number().int()).readonly().optional(),
  extra_requests: z.number().int().optional(),
  first_failed_step: z.number().int().nullable().optional(),
  carried_correct: z.number().int().optional(),
  carried_total: z.number().int().optional(),
});
export type VerdictValue = z.infer<typeof VerdictSchema>;

/** `samples_correct_wrt_total: 0.4`, `arguments_illegal: {all: 3, headers: 1}` ... (the reference's names). */
export const StatisticsSchema = z.record(z.string(), z.union([z.number(), z.record(z.string(), z.number())]));
export type StatisticsValue = z.infer<typeof StatisticsSchema>;

/** The counts a rate divides: `n = 0` is an undefined rate (shown "–"; the reference's JSON says 0). */
export const ProportionSchema = z.object({ k: z.number().int(), n: z.number().int() });
export type ProportionValue = z.infer<typeof ProportionSchema>;
/** A 95% interval [low, high] on the 0..1 scale. */
export const IntervalSchema = z.tuple([z.number(), z.number()]);
export type IntervalValue = z.infer<typeof IntervalSchema>;
/**
 * Beside `statistics`: Wilson 95% intervals for every sample-level proportion and seeded
 * bootstrap intervals for the mean argument metrics (location `all`), by the statistic's name,
 * and the counts each proportion divides.
 */
export const UncertaintySchema = z.object({
  intervals: z.record(z.string(), IntervalSchema),
  counts: z.record(z.string(), ProportionSchema),
});
export type UncertaintyValue = z.infer<typeof UncertaintySchema>;
export const BootstrapSchema = z.object({ seed: z.number().int(), resamples: z.number().int(), method: z.literal('percentile') });

// --- models ------------------------------------------------------------------------------------

export const ModelFitSchema = z.object({
  /** Layers node-llama-cpp would offload with the free VRAM now, of all layers. */
  gpuLayers: z.number().int(),
  totalLayers: z.number().int(),
  fitsGpu: z.boolean(),
  fitsRam: z.boolean(),
  /** Memory estimates for a 1024-token context, in bytes. */
  vramBytes: z.number(),
  ramBytes: z.number(),
  /** One line: "fits the GPU (12/12 layers)", "CPU only: 1.2 GiB of 15 GiB RAM", "does not fit: ...". */
  summary: z.string(),
});
export type ModelFit = z.infer<typeof ModelFitSchema>;

export const ModelSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  path: z.string(),
  sizeBytes: z.number(),
  /** null until hashed (the cache hashes a file once per path, size and mtime). */
  sha256: z.string().nullable(),
  architecture: z.string(),
  /** Parameter count, when the metadata says (e.g. 6_738_415_616); `parametersLabel` is "6.7B". */
  parameters: z.number().nullable(),
  parametersLabel: z.string(),
  quantisation: z.string(),
  contextLength: z.number().int(),
  chatTemplate: z.boolean(),
  fit: ModelFitSchema.nullable(),
  /** Where it came from: a path the user added, a folder scan, or a download URL / hf: reference. */
  source: z.string(),
  addedAt: z.string(),
  /** false when the file has gone missing since it was added. */
  present: z.boolean(),
});
export type Model = z.infer<typeof ModelSchema>;

export const DOWNLOAD_STATUSES = ['downloading', 'finished', 'cancelled', 'failed'] as const;
export const DownloadSchema = z.object({
  id: z.string(),
  source: z.string(),
  file: z.string(),
  status: z.enum(DOWNLOAD_STATUSES),
  downloadedBytes: z.number(),
  totalBytes: z.number(),
  /** Set once finished: the model added to the library. */
  modelId: z.number().int().nullable(),
  error: z.string().nullable(),
  /** Whether asking again can continue it: false once finished, and for a failure no retry can fix (a 404, a refused connection). */
  resumable: z.boolean().optional(),
});
export type Download = z.infer<typeof DownloadSchema>;

// --- runs ---------------------------------------------------------------------------------------

export const RUN_STATUSES = ['queued', 'running', 'finished', 'cancelled', 'interrupted', 'failed'] as const;
export const RunStatusSchema = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

export const SetupSchema = z.enum(['full', 'argument']);
/** One round of the repair setting, as stored with its output (main/runner/repair.ts). */
export const RepairRoundSchema = z.object({
  round: z.number().int(),
  code: z.string(),
  feedback: z.array(z.string()),
  verdict: z.string(),
  error: z.string().nullable(),
  tokens: z.number().int(),
});
export type RepairRoundValue = z.infer<typeof RepairRoundSchema>;

/** How a run decodes: freely, constrained by the spec (token masks or a server's grammar), or freely with the spec checker's repair rounds (any model). */
export const SettingSchema = z.enum(['unconstrained', 'constrained', 'repair']);
/** The repair setting's default rounds: a program the checker faults is sent back at most this many times. */
export const DEFAULT_REPAIR_ROUNDS = 2;
export const PromptKindSchema = z.enum(['completion', 'chat']);

/** Which samples of a stored dataset a run takes; every given filter must hold (empty: all). */
export const RunSubsetSchema = z.object({
  apis: z.array(z.string()).optional(),
  reviewStates: z.array(ReviewStateSchema).optional(),
  sampleIds: z.array(z.string()).optional(),
  /** The first n samples left after the filters (after the random sample, when both are given). */
  limit: z.number().int().positive().optional(),
  /**
   * A seeded random sample of `size` of the samples left after the filters (the same seed gives
   * the same samples); `stratify: 'api'` keeps each API's share of them (largest-remainder rounding).
   */
  sample: z.object({
    size: z.number().int().positive(),
    seed: z.number().int().min(0).default(1),
    stratify: z.enum(['none', 'api']).default('none'),
  }).optional(),
});
export type RunSubset = z.infer<typeof RunSubsetSchema>;

export const SamplingSchema = z.object({
  /** 0 is greedy. */
  temperature: z.number().min(0).max(5).default(SAMPLING_DEFAULTS.temperature),
  topK: z.number().int().min(0).default(SAMPLING_DEFAULTS.topK),
  topP: z.number().min(0).max(1).default(SAMPLING_DEFAULTS.topP),
  seed: z.number().int().min(0).default(SAMPLING_DEFAULTS.seed),
  /** Outputs per sample. */
  n: z.number().int().min(1).max(100).default(SAMPLING_DEFAULTS.n),
  maxTokens: z.number().int().min(1).max(8192).default(SAMPLING_DEFAULTS.maxTokens),
});

/** A provider's registry name (listProviders; main/providers/registry.ts), checked by the service. */
export const RunProviderSchema = z.string().min(1).max(60);

/** What New run and the CLI show of a provider (its registry entry, less its factory). */
export const ProviderInfoSchema = z.object({
  name: z.string(),
  label: z.string(),
  /** Environment variables its key is read from; empty: it takes none. */
  keyVariables: z.array(z.string()),
  key: z.enum(['required', 'optional', 'none']),
  /** Absent: the user names the server. */
  defaultBaseUrl: z.string().optional(),
  /** `file`: a local GGUF model, picked from the library. */
  modelIs: z.enum(['name', 'file']),
  defaultModel: z.string().optional(),
  capabilities: z.object({
    logits: z.boolean(),
    constraints: z.enum(['tokens', 'grammar', 'none']),
    completion: z.boolean(),
    chat: z.boolean(),
    prefill: z.boolean(),
    batch: z.boolean(),
    listsModels: z.boolean(),
    jsonSchema: z.boolean(),
  }),
  pools: z.boolean(),
});
export type ProviderInfo = z.infer<typeof ProviderInfoSchema>;

/**
 * A hosted model or a server reached through a provider (main/providers). Keys
 * never travel here: they come from the environment or the key store, by provider.
 */
export const ProviderModelSchema = z.object({
  name: RunProviderSchema,
  model: z.string().min(1).max(200),
  /** Default: the provider's own API; required for openai-compatible. A key goes only to this origin (https, or loopback). */
  baseUrl: z.string().url().optional(),
  /** openai-compatible: more servers sharing the run's samples by free slots (a pool); the first is baseUrl. */
  pool: z.array(z.string().url()).max(32).optional(),
  /** OpenAI's Batch API (half the price; the run waits for the batch, across restarts). */
  batch: z.boolean().default(false),
  /** Requests in flight at once (default 8 hosted, 4 per server). */
  concurrency: z.number().int().min(1).max(64).optional(),
  /** US dollars: the run stops (failed, resumable) once its outputs cost this much. */
  spendingCapUsd: z.number().positive().optional(),
});
export type ProviderModel = z.infer<typeof ProviderModelSchema>;

export const RunModelSchema = z.union([
  z.object({ modelId: z.number().int() }),
  z.object({ remote: z.object({ url: z.string().url(), model: z.string().default('default') }) }),
  z.object({ provider: ProviderModelSchema }),
]);

export const StartRunInputSchema = z.object({
  datasetId: z.number().int(),
  subset: RunSubsetSchema.default({}),
  model: RunModelSchema,
  setup: SetupSchema.default('full'),
  setting: SettingSchema.default('unconstrained'),
  /** The repair setting only: at most this many follow-ups with the spec checker's findings per output. */
  repairRounds: z.number().int().min(1).max(10).default(DEFAULT_REPAIR_ROUNDS),
  /** The HTTP client the starter code calls (scoring.md §2–3): Axios as the paper, or the global `fetch`. */
  client: z.enum(HTTP_CLIENTS).default(DEFAULT_CLIENT),
  prompt: PromptKindSchema.default('completion'),
  sampling: SamplingSchema.default(SAMPLING_DEFAULTS),
  /** Sequences decoded in one batch per step; absent: the default for where the model runs (DEFAULT_PARALLEL, DEFAULT_PARALLEL_GPU). */
  parallel: z.number().int().min(1).max(64).optional(),
  contextSize: z.number().int().min(64).default(1024),
  /**
   * API knowledge in the prompt (main/prompt/knowledge.ts): `none`, `endpoint`, `params`, `docs`,
   * `example`, `full`, `retrieved:k`, or parts joined by `+`. One run is queued per condition.
   */
  knowledge: z.array(z.string().min(1).max(200)).min(1).max(32).default(['none']),
});

export const RunProgressSchema = z.object({
  done: z.number().int(),
  total: z.number().int(),
  correct: z.number().int(),
  errors: z.number().int(),
  tokens: z.number().int(),
  tokensPerSecond: z.number(),
  etaSeconds: z.number().nullable(),
  /** The sample being generated now (the last one taken from the queue). */
  current: z.object({ index: z.number().int(), sampleId: z.string().nullable(), api: z.string() }).nullable(),
});
export type RunProgressValue = z.infer<typeof RunProgressSchema>;

export const RunSummarySchema = z.object({
  id: z.number().int(),
  /** 'generation' (a model wrote the code), 'imported codes' (scored programs, e.g. the demo runs). */
  kind: z.string(),
  status: RunStatusSchema,
  datasetId: z.number().int().nullable(),
  /** The stored dataset's name, or the dataset file of a file run. */
  dataset: z.string(),
  model: z.string().nullable(),
  setup: z.string().nullable(),
  setting: z.string().nullable(),
  prompt: z.string().nullable(),
  /** The knowledge condition of a generation run (`none`, `endpoint+params`, ...); null for scored imported code. */
  knowledge: z.string().nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  /** Outputs planned (samples × n) and stored. */
  total: z.number().int(),
  done: z.number().int(),
  /** `samples_correct_wrt_total` and `samples_illegal_wrt_executable` (null until an output is stored). */
  correct: z.number().nullable(),
  illegal: z.number().nullable(),
  /** What `correct` and `illegal` divide (`illegalOf.n = 0`: no executable output, the rate is undefined). */
  correctOf: ProportionSchema.nullable(),
  illegalOf: ProportionSchema.nullable(),
  overridden: z.number().int(),
  /** The stored dataset has been edited since the run took its samples. */
  datasetChanged: z.boolean(),
  /** Why the run failed or was interrupted. */
  error: z.string().nullable(),
  /** A demo run shipped with the workbench. */
  demo: z.boolean(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const DatasetChangeSchema = z.object({
  sampleId: z.string(),
  index: z.number().int(),
  change: z.enum(['edited', 'removed', 'spec changed']),
});

export const RunDetailSchema = RunSummarySchema.extend({
  settings: z.record(z.string(), z.unknown()),
  manifest: z.record(z.string(), z.unknown()).nullable(),
  subset: RunSubsetSchema.nullable(),
  /** Recomputed from the stored verdicts (overrides applied); null before any output is stored. */
  statistics: StatisticsSchema.nullable(),
  per_api: z.record(z.string(), StatisticsSchema),
  /** Samples of the run whose stored dataset sample changed (or went away) since the run took it. */
  datasetChanges: z.array(DatasetChangeSchema),
  progress: RunProgressSchema.nullable(),
  apis: z.array(z.string()),
  /** Failure classes of the scored outputs (overrides applied), for the run and per API; null before any output is stored. */
  failures: RunFailuresSchema.nullable(),
  /** Intervals and counts beside `statistics` and each of `per_api`; null with `statistics`. */
  uncertainty: UncertaintySchema.nullable(),
  per_api_uncertainty: z.record(z.string(), UncertaintySchema),
  bootstrap: BootstrapSchema,
  /** pass@1/5/10 (Chen et al.'s unbiased estimator) for each k every sample has that many outputs for; empty with one output per sample. */
  pass_at_k: z.record(z.string(), z.number()),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

export const RUN_SAMPLE_SORTS = ['index', 'api', 'verdict', 'tokens', 'duration'] as const;
export const RunSampleFilterSchema = z.object({
  sampleVerdicts: z.array(SampleVerdictSchema).optional(),
  errorVerdicts: z.array(ErrorVerdictSchema).optional(),
  endpointVerdicts: z.array(PartVerdictSchema).optional(),
  /** Samples with at least one argument of one of these verdicts. */
  argumentVerdicts: z.array(ArgumentVerdictSchema).optional(),
  apis: z.array(z.string()).optional(),
  /** Endpoint of the expected request, as `METHOD /path` or part of it. */
  endpoint: z.string().optional(),
  /** Case-insensitive, in the task, the sample id and the generated code. */
  text: z.string().optional(),
  overridden: z.boolean().optional(),
  /** Outputs that failed to generate (retried by resumeRun with retryErrors). */
  errored: z.boolean().optional(),
  /** Outputs carrying at least one of these failure classes. */
  failures: z.array(FailureClassSchema).optional(),
});
export type RunSampleFilter = z.infer<typeof RunSampleFilterSchema>;

export const RunSampleRowSchema = z.object({
  index: z.number().int(),
  attempt: z.number().int(),
  sampleId: z.string().nullable(),
  api: z.string(),
  task: z.string(),
  /** `METHOD /path` of the expected endpoint. */
  endpoint: z.string(),
  sample_verdict: SampleVerdictSchema.nullable(),
  error_verdict: ErrorVerdictSchema.nullable(),
  url_verdict: PartVerdictSchema.nullable(),
  method_verdict: PartVerdictSchema.nullable(),
  endpoint_verdict: PartVerdictSchema.nullable(),
  /** How many arguments got each verdict. */
  argumentCounts: z.record(z.string(), z.number().int()),
  /** The output's failure classes (main/scoring/taxonomy.ts), overrides applied; empty when correct or not scored. */
  failures: z.array(FailureClassSchema),
  overridden: z.boolean(),
  error: z.string().nullable(),
  tokens: z.number().int().nullable(),
  durationMs: z.number().nullable(),
  /** A multi-step sample's (scoring.md §7): its steps that are correct, of all; absent for a single request. */
  steps_correct: z.number().int().optional(),
  steps_total: z.number().int().optional(),
});
export type RunSampleRow = z.infer<typeof RunSampleRowSchema>;

export const CapturedRequestSchema = z.object({
  /** Absent: Axios (the paper's client). */
  client: z.enum(HTTP_CLIENTS).optional(),
  method: z.string(),
  url: z.string(),
  headers: z.record(z.string(), JsonValueSchema),
  params: z.record(z.string(), JsonValueSchema),
  data: JsonValueSchema.optional(),
});

export const InterventionSchema = z.union([
  z.object({
    kind: z.literal('replaced'),
    step: z.number().int(),
    model: z.object({ token: z.number().int(), text: z.string(), p: z.number().nullable() }),
    chosen: z.object({ token: z.number().int(), text: z.string(), p: z.number().nullable() }),
    via: z.enum(['top', 'mask']),
  }),
  z.object({ kind: z.literal('closed'), step: z.number().int(), text: z.string() }),
  z.object({ kind: z.literal('cut'), step: z.number().int(), text: z.string() }),
]);

export const OverrideSchema = z.object({
  at: z.string(),
  author: z.string(),
  reason: z.string(),
  from: SampleVerdictSchema,
  /** null: the override was withdrawn and the scorer's verdict restored. */
  to: SampleVerdictSchema.nullable(),
});
export type Override = z.infer<typeof OverrideSchema>;

export const RunSampleDetailSchema = RunSampleRowSchema.extend({
  /** The sample as the run took it (not as the dataset holds it now). */
  expected: RequestConfigSchema,
  /** The expected endpoint and, when the code called one, the captured one with its path parameters. */
  expectedEndpoint: z.object({ method: z.string(), path: z.string() }).nullable(),
  capturedEndpoint: z.object({ method: z.string(), path: z.string(), pathParams: z.record(z.string(), z.string()) }).nullable(),
  prompt: z.string().nullable(),
  code: z.string(),
  rawOutput: z.string().nullable(),
  /**
   * Which rule cut the call (`.then`, `;`, ...) and the call, and which program ran it (`runs`:
   * `as-written`, `call-alone` — the parse fallback or the reference's rule — or `own-starter`;
   * absent on outputs stored before it was recorded), or why nothing could be extracted.
   */
  extraction: z.union([z.object({ rule: z.string(), call: z.string(), runs: z.string().optional() }), z.object({ error: z.string() })]),
  /** [start, end) of the extracted call inside `code`, when found. */
  callRange: z.tuple([z.number().int(), z.number().int()]).nullable(),
  request: CapturedRequestSchema.nullable(),
  /** The verdicts in force (an override applied) and the scorer's own. */
  verdict: VerdictSchema.nullable(),
  scorerVerdict: VerdictSchema.nullable(),
  /** Every argument, per location, expected vs captured, with its verdict. */
  arguments: z.array(z.object({ location: z.string(), key: z.string(), expected: JsonValueSchema.nullable(), actual: JsonValueSchema.nullable(), verdict: ArgumentVerdictSchema })),
  generation: z
    .object({
      stop: z.string(),
      tokens: z.number().int(),
      promptTokens: z.number().int(),
      promptMs: z.number(),
      generateMs: z.number(),
      constraintMs: z.number(),
      interventions: z.array(InterventionSchema),
      /** The text of each generated token, in order, when recorded. */
      trace: z.array(z.string()).nullable(),
      /**
       * The repair setting: every round, the first included — its program, the spec checker's
       * findings sent back (none on the last round when nothing was left to fix) and the verdict it
       * scored. The scored program is the last round's.
       */
      repair: z.array(RepairRoundSchema).optional(),
    })
    .nullable(),
  console: z.array(z.string()),
  runtimeError: z.string().nullable(),
  /**
   * A multi-step sample's timeline (scoring.md §7), absent for a single request: each step as the
   * run took it (expected request, stubbed response, carried values with what the earlier response
   * held and what the program sent), the captured request it took and its verdicts; then the
   * captured requests no step took.
   */
  timeline: z
    .object({
      steps: z.array(
        z.object({
          expected: RequestConfigSchema,
          /** `METHOD /template` of the expected request in the spec (`METHOD url` where it matches none). */
          endpoint: z.string().optional(),
          response: z.object({ status: z.number().int(), headers: z.record(z.string(), JsonValueSchema).optional(), data: JsonValueSchema.optional() }),
          /** Position of the captured request the step took; null: missing. */
          requestIndex: z.number().int().nullable(),
          request: CapturedRequestSchema.nullable(),
          verdict: SingleVerdictSchema,
          arguments: z.array(z.object({ location: z.string(), key: z.string(), expected: JsonValueSchema.nullable(), actual: JsonValueSchema.nullable(), verdict: ArgumentVerdictSchema })),
          carried: z.array(z.object({ where: z.string(), source: z.string(), held: JsonValueSchema.nullable(), sent: JsonValueSchema.nullable(), correct: z.boolean() })),
        }),
      ),
      extra: z.array(z.object({ requestIndex: z.number().int(), request: CapturedRequestSchema, mutating: z.boolean() })),
      counts: z.object({ steps_total: z.number().int(), steps_correct: z.number().int(), steps_missing: z.number().int(), extra_requests: z.number().int(), first_failed_step: z.number().int().nullable(), carried_correct: z.number().int(), carried_total: z.number().int() }),
    })
    .nullable()
    .optional(),
  overrides: z.array(OverrideSchema),
  /** Neighbours in the run's order, for j/k without refetching the list. */
  previous: z.number().int().nullable(),
  next: z.number().int().nullable(),
});
export type RunSampleDetail = z.infer<typeof RunSampleDetailSchema>;

export const CompareMetricSchema = z.object({
  key: z.string(),
  label: z.string(),
  /** null: undefined (a mean metric over no sample; a rate's empty denominator shows in `of`). */
  baseline: z.number().nullable(),
  values: z.array(z.number().nullable()),
  /** values[i] - baseline; null when either rate is undefined (its denominator is 0). */
  deltas: z.array(z.number().nullable()),
  /** For a rate: the counts it divides and its 95% interval, baseline first, then each run; null for a count. */
  of: z.array(ProportionSchema.nullable()),
  intervals: z.array(IntervalSchema.nullable()),
});

/** An exact two-sided McNemar test on the samples two runs share: a = the baseline, b = the other run. */
export const PairedTestSchema = z.object({ both: z.number().int(), a_only: z.number().int(), b_only: z.number().int(), neither: z.number().int(), p_value: z.number() });
export type PairedTestValue = z.infer<typeof PairedTestSchema>;
export const PAIRED_OUTCOME_NAMES = ['samples_correct', 'samples_executable', 'samples_illegal', 'urls_correct', 'methods_correct'] as const;

export const VERDICT_CHANGES = ['same', 'fixed', 'regressed', 'changed', 'absent'] as const;
export const CompareRowSchema = z.object({
  index: z.number().int(),
  sampleId: z.string().nullable(),
  api: z.string(),
  task: z.string(),
  /** `correct`, `wrong`, `nonexecutable (runtime_error)` ...; null: the run has no output there. */
  baseline: z.string().nullable(),
  others: z.array(z.string().nullable()),
  /** The sample's index in each run (baseline first; runs on different datasets number samples differently); null: the run lacks it. */
  indexes: z.array(z.number().int().nullable()),
  /** Whether a reviewer overrode the verdict shown, baseline first. */
  overridden: z.array(z.boolean()),
  /** Per other run: fixed (became correct), regressed (stopped being correct), changed, same; absent: the run lacks the sample (not counted). */
  changes: z.array(z.enum(VERDICT_CHANGES)),
  /**
   * A multi-step sample (scoring.md §7): each step's verdict in each run, baseline first (`missing`:
   * no captured request took it; null: the run lacks the sample or has no steps there), its
   * endpoint, and per other run the change from the baseline's. Absent for a single request.
   */
  steps: z
    .array(z.object({ step: z.number().int(), endpoint: z.string(), verdicts: z.array(z.string().nullable()), changes: z.array(z.enum(VERDICT_CHANGES)) }))
    .optional(),
});

export const CompareResultSchema = z.object({
  baseline: RunSummarySchema,
  runs: z.array(RunSummarySchema),
  metrics: z.array(CompareMetricSchema),
  /** Per other run, over the samples it shares with the baseline. */
  counts: z.array(z.object({ fixed: z.number().int(), regressed: z.number().int(), changed: z.number().int(), same: z.number().int() })),
  /** The baseline's samples that another run shares, aligned by sample identity (see `alignment`); `total` after the changedOnly filter, `rows` the page. */
  total: z.number().int(),
  rows: z.array(CompareRowSchema),
  /**
   * How samples were paired: by sample id (runs of one stored dataset), by the snapshot's content
   * hash (runs of different datasets), or by position (runs of one dataset file). Per other run:
   * samples both have, and how many of the other's the baseline lacks and of the baseline's it lacks.
   */
  alignment: z.object({
    by: z.enum(['sample id', 'content hash', 'position']),
    runs: z.array(z.object({ common: z.number().int(), baselineLacks: z.number().int(), runLacks: z.number().int() })),
  }),
  /** Per other run, each sample-level outcome tested against the baseline on the shared samples (first output of each). */
  paired: z.array(z.record(z.enum(PAIRED_OUTCOME_NAMES), PairedTestSchema)),
  /** The statistic whose delta each paired outcome carries (`samples_correct` → `samples_correct_wrt_total`). */
  pairedStatistics: z.record(z.enum(PAIRED_OUTCOME_NAMES), z.string()),
  /** Asked for (`candidates`): every other run with outputs and how many samples it shares with the baseline, most first. */
  candidates: z.array(z.object({ runId: z.number().int(), shared: z.number().int(), by: z.enum(['sample id', 'content hash', 'position']) })).optional(),
});
export type CompareResult = z.infer<typeof CompareResultSchema>;

export const ConditionRowSchema = z.object({
  runId: z.number().int(),
  knowledge: z.string(),
  setup: z.string().nullable(),
  setting: z.string().nullable(),
  status: RunStatusSchema,
  /** Scored outputs. */
  outputs: z.number().int(),
  correct: z.number(),
  illegal: z.number(),
  /** What `illegal` divides: n = 0 (no executable output) is an undefined rate, shown "–". */
  illegalOf: ProportionSchema,
  /** Correct (t) minus that of the `none` run of the same setup and setting, as a fraction (0.125 = 12.5 points); null without one. */
  gain: z.number().nullable(),
  failures: FailureCountsSchema,
  unclassified: z.number().int(),
});
export const ConditionComparisonSchema = z.object({
  dataset: z.string(),
  model: z.string().nullable(),
  /** In the order asked. */
  rows: z.array(ConditionRowSchema),
  /** The failure classes any of the runs has, in taxonomy order. */
  classes: z.array(FailureClassSchema),
});
export type ConditionComparison = z.infer<typeof ConditionComparisonSchema>;

export const EXPORT_FORMATS = ['csv', 'json', 'markdown', 'latex', 'codes'] as const;

/**
 * The settings stored with a generation run, as every reader takes them back: the queue that
 * resumes it, the inspector, Results, exports and the CLI. Written by the run plan
 * (service/runPlan.ts settingsOf) and the CLI's file runs; read through readRunSettings, where a
 * field a run stored before it existed (or a hand-edited one) takes its default rather than each
 * reader guessing by string key.
 */
export const RunSettingsSchema = z
  .object({
    knowledge: z.string().catch('none').default('none'),
    setup: z.enum(['full', 'argument']).catch('full').default('full'),
    prompt: z.enum(['completion', 'chat']).catch('completion').default('completion'),
    setting: z.enum(['unconstrained', 'constrained', 'repair']).catch('unconstrained').default('unconstrained'),
    repairRounds: z.number().int().min(1).max(10).catch(DEFAULT_REPAIR_ROUNDS).optional(),
    /** Absent: Axios (only another client is written). */
    client: z.enum(HTTP_CLIENTS).catch(DEFAULT_CLIENT).default(DEFAULT_CLIENT),
    n: z.number().int().min(1).catch(SAMPLING_DEFAULTS.n).default(SAMPLING_DEFAULTS.n),
    seed: z.number().int().min(0).catch(SAMPLING_DEFAULTS.seed).default(SAMPLING_DEFAULTS.seed),
    temperature: z.number().min(0).catch(SAMPLING_DEFAULTS.temperature).default(SAMPLING_DEFAULTS.temperature),
    topK: z.number().int().min(0).catch(SAMPLING_DEFAULTS.topK).default(SAMPLING_DEFAULTS.topK),
    topP: z.number().min(0).max(1).catch(SAMPLING_DEFAULTS.topP).default(SAMPLING_DEFAULTS.topP),
    maxTokens: z.number().int().min(1).catch(SAMPLING_DEFAULTS.maxTokens).default(SAMPLING_DEFAULTS.maxTokens),
    /** Absent: the default for where the model runs. */
    parallel: z.number().int().min(1).nullable().catch(null).optional(),
    contextSize: z.number().int().min(1).nullable().catch(null).optional(),
    limit: z.number().int().min(0).catch(0).optional(),
  })
  .passthrough();
export type RunSettings = z.output<typeof RunSettingsSchema>;

/** A stored run's settings, typed: each field its stored value where it is one, else its default. */
export function readRunSettings(stored: Readonly<Record<string, unknown>>): RunSettings {
  const parsed = RunSettingsSchema.safeParse(stored);
  // .catch on every field: only a value that is not an object at all fails, and then every field is its default.
  return parsed.success ? parsed.data : RunSettingsSchema.parse({});
}

/** Follow-ups per output a stored run allows: its repairRounds in the repair setting, else none. */
export const repairRoundsOf = (settings: RunSettings): number => (settings.setting === 'repair' ? (settings.repairRounds ?? DEFAULT_REPAIR_ROUNDS) : 0);
