import { z } from 'zod';
import { DEFAULT_CLIENT, HTTP_CLIENTS } from './clients.js';
import type { MethodName } from './constants.js';
import { CoverageSchema } from './coverage.js';
import { ConstraintCheckSchema, RecallReportSchema, SpecDeriveSchema, SpecDiffSchema, SpecRecheckSchema } from './fileTools.js';
import { CodeScoresSchema, RunReportResultSchema, SubsetSchema } from './reports.js';
import { ChecklistSchema, EditedStepsSchema, ReviewAidSchema } from './review.js';
import { SpecVersionDiffSchema } from './specVersions.js';
import { ApiKeyStatusSchema, SynthesisJobSchema, SynthesizeInputSchema } from './synthesis.js';
import {
  DatasetSummarySchema,
  RequestConfigSchema,
  ReviewStateSchema,
  RevisionSchema,
  SampleFieldsSchema,
  SampleFilterSchema,
  SampleSchema,
} from './schemas.js';
import {
  CompareResultSchema,
  ConditionComparisonSchema,
  DownloadSchema,
  DOWNLOAD_STATUSES,
  EXPORT_FORMATS,
  ModelSchema,
  RUN_SAMPLE_SORTS,
  RunDetailSchema,
  RunProgressSchema,
  ProviderInfoSchema,
  RunProviderSchema,
  RunSampleDetailSchema,
  RunSampleFilterSchema,
  RunSampleRowSchema,
  RunStatusSchema,
  RunSummarySchema,
  SampleVerdictSchema,
  StartRunInputSchema,
} from './evaluation.js';

/** A file handed to the service by content, so the same call works from the CLI, Electron and a browser. */
export const FileInputSchema = z.object({ filename: z.string().min(1), content: z.string() });
export type FileInput = z.infer<typeof FileInputSchema>;

const DatasetRef = z.object({ datasetId: z.number().int() });
const SampleRef = DatasetRef.extend({ sampleId: z.string().min(1) });
/** The dataset a file tool reads: a stored one, or a dataset file and its spec files handed by content. */
export const DatasetSourceSchema = z.union([DatasetRef, z.object({ dataset: FileInputSchema, specs: z.array(FileInputSchema).min(1) })]);
/** A new version of one API's spec against a dataset's (`api`: default the dataset's only API). */
const SpecVersionInput = z.object({ source: DatasetSourceSchema, api: z.string().min(1).optional(), spec: FileInputSchema });

export const SampleDetailSchema = z.object({
  sample: SampleSchema,
  revisions: z.array(RevisionSchema),
  /** The endpoint the expected request resolves to, when it resolves. */
  endpoint: z.object({ method: z.string(), path: z.string(), summary: z.string().optional(), operationId: z.string().optional() }).nullable(),
  canUndo: z.boolean(),
  /** A sample with its own starter code: that starter with the task in place, as full completion gives it to the model (null: the fixed starter). */
  starter: z.string().nullable().optional(),
});
export type SampleDetail = z.infer<typeof SampleDetailSchema>;

export const ProgressEventSchema = z.object({
  type: z.literal('progress'),
  task: z.string(),
  done: z.number().int(),
  total: z.number().int(),
  message: z.string().optional(),
});
export type ProgressEvent = z.infer<typeof ProgressEventSchema>;
export const WorkbenchEventSchema = z.discriminatedUnion('type', [
  ProgressEventSchema,
  z.object({ type: z.literal('datasetsChanged') }),
  /** A run's progress, at most a few times a second while it generates. */
  RunProgressSchema.extend({ type: z.literal('runProgress'), runId: z.number().int() }),
  /** A run changed status (queued → running → finished | cancelled | interrupted | failed). */
  z.object({ type: z.literal('runStatus'), runId: z.number().int(), status: RunStatusSchema, message: z.string().optional() }),
  /** Runs were added, deleted, or a verdict was overridden: lists should reload. */
  z.object({ type: z.literal('runsChanged') }),
  z.object({ type: z.literal('modelsChanged') }),
  z.object({
    type: z.literal('downloadProgress'),
    downloadId: z.string(),
    status: z.enum(DOWNLOAD_STATUSES),
    downloadedBytes: z.number(),
    totalBytes: z.number(),
    message: z.string().optional(),
    /** Where the file lands (named by the server once it answers). */
    file: z.string().optional(),
    resumable: z.boolean().optional(),
  }),
]);
export type WorkbenchEvent = z.infer<typeof WorkbenchEventSchema>;

/**
 * The one service contract. Electron IPC, `wapii serve` over HTTP and the in-process CLI all
 * call these methods; transports only validate, call and serialise.
 */
export const contract = {
  listDatasets: { input: z.object({}), output: z.array(DatasetSummarySchema) },
  importDataset: {
    /**
     * `skipMissingSpecs`: import the samples whose API has a spec and leave the others out (default: refuse, one line per API without a spec).
     * `lenientRefs`: import a spec whose `$ref`s point at nothing, each stored as any value (default: refuse it, naming them).
     * `server`: the base URL (http or https) for a spec that declares no server, stored in that spec.
     * `reuse`: the dataset stored under `name` when it holds the same samples and specs, rather than a
     * second copy; when it holds others, `<name>-<8 hex digits of the files' sha-256>` likewise; 'conflict'
     * when both hold others (`wapii run --dataset <file> --specs <dir>`).
     */
    input: z.object({
      name: z.string().min(1).optional(),
      dataset: FileInputSchema,
      specs: z.array(FileInputSchema).min(1),
      skipMissingSpecs: z.boolean().optional(),
      lenientRefs: z.boolean().optional(),
      server: z.string().min(1).max(2048).optional(),
      reuse: z.boolean().optional(),
    }),
    /**
     * `skipped`: the APIs left out for want of a spec, with their sample counts. `brokenRefs`: with
     * `lenientRefs`, each broken reference stored as any value, per API, with its number of uses.
     * `serverFor`: the APIs whose spec took the given `server`.
     */
    output: DatasetSummarySchema.extend({
      skipped: z.array(z.object({ api: z.string(), samples: z.number().int() })).optional(),
      brokenRefs: z.array(z.object({ api: z.string(), ref: z.string(), uses: z.number().int() })).optional(),
      serverFor: z.array(z.string()).optional(),
    }),
  },
  exportDataset: {
    /** `reviewStates`: only samples in these states (e.g. accepted and fixed). */
    input: DatasetRef.extend({ format: z.enum(['flat', 'per-api']), reviewStates: z.array(ReviewStateSchema).min(1).optional() }),
    /**
     * `checks`: the spec checks run again on the samples as written — how many were written, how
     * many the checks flag, and how many `checks` texts the flat export recomputed (the request
     * changed since import, or the sample came without one; the others keep the text they came with).
     */
    output: z.object({ files: z.record(z.string(), z.string()), checks: z.object({ samples: z.number().int(), flagged: z.number().int(), recomputed: z.number().int() }) }),
  },
  recheckDataset: { input: DatasetRef, output: DatasetSummarySchema },
  listSamples: { input: DatasetRef.extend({ filter: SampleFilterSchema.default({}) }), output: z.array(SampleSchema) },
  getSample: { input: SampleRef, output: SampleDetailSchema },
  editSample: {
    input: SampleRef.extend({
      task: z.string().min(1).optional(),
      config: RequestConfigSchema.optional(),
      reviewState: ReviewStateSchema.optional(),
      /** The sample's other fields, whole (a real-world sample's starter_code, definitions, template_url, provenance, ...). */
      fields: SampleFieldsSchema.optional(),
      /**
       * A multi-step sample's steps, whole (added, removed, moved or edited; two or more): written
       * into its fields, its config following the last step's, the steps checked again. Refused on a
       * single-request sample and beside `config`.
       */
      steps: EditedStepsSchema.optional(),
      reason: z.string().min(1),
      /**
       * The id of the sample's newest revision that is not undone, as the editor saw it: the edit
       * is refused ('conflict') when someone else changed the sample since. Without it, fields not
       * sent keep what the sample holds at the moment of writing.
       */
      baseRevision: z.number().int().optional(),
      /** The paper's three-point checklist, answered with the decision; kept in the revision's reason. */
      checklist: ChecklistSchema.optional(),
    }),
    output: SampleDetailSchema,
  },
  undoEdit: { input: SampleRef, output: SampleDetailSchema },

  // --- models (main/service/models.ts) ---
  listModels: { input: z.object({}), output: z.array(ModelSchema) },
  /** Adds a GGUF file by path (Electron: from a file dialog; serve: a path on the server). */
  addModel: { input: z.object({ path: z.string().min(1) }), output: ModelSchema },
  /** Adds every GGUF file in a folder (default: the configured models folder) not yet in the library. */
  scanModels: {
    input: z.object({ folder: z.string().min(1).optional() }),
    output: z.object({ folder: z.string(), added: z.array(ModelSchema), skipped: z.array(z.object({ path: z.string(), reason: z.string() })) }),
  },
  /** The GGUF files in a folder (default: the configured models folder), to pick one to add (serve has no file dialog). */
  listModelFiles: {
    input: z.object({ folder: z.string().min(1).optional() }),
    output: z.object({ folder: z.string(), files: z.array(z.object({ path: z.string(), name: z.string(), sizeBytes: z.number(), inLibrary: z.boolean() })) }),
  },
  removeModel: { input: z.object({ modelId: z.number().int() }), output: z.object({ removed: z.boolean() }) },
  /** Starts (or resumes) a download from a URL or an `hf:` reference into the models folder; progress comes as downloadProgress events. */
  downloadModel: { input: z.object({ source: z.string().min(1), filename: z.string().min(1).optional() }), output: DownloadSchema },
  cancelDownload: { input: z.object({ downloadId: z.string() }), output: DownloadSchema },
  listDownloads: { input: z.object({}), output: z.array(DownloadSchema) },
  /** Removes an ended download's row from listDownloads (its partial file stays, so asking again for the source still resumes it). */
  dismissDownload: { input: z.object({ downloadId: z.string() }), output: z.object({ dismissed: z.boolean() }) },

  // --- runs (main/service/runs.ts, main/service/jobs.ts) ---
  /** What startRun would do: samples after the subset, outputs, and a one-line estimate; refuses what startRun refuses. */
  previewRun: {
    input: StartRunInputSchema,
    /** `runs`: one per knowledge condition; `outputs` counts them all. */
    output: z.object({
      samples: z.number().int(),
      outputs: z.number().int(),
      runs: z.number().int(),
      apis: z.array(z.string()),
      estimate: z.string(),
      /** Hosted providers: the most the run can cost (prompt tokens estimated from the prompts' length, every output at the token limit); `usd` null where the price table has no entry. */
      cost: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), usd: z.number().nullable(), capUsd: z.number().nullable() }).optional(),
      /** Local models: the longest prompt (tokens estimated from its length) and max tokens against the context; `suggested` is the context New run uses when its field is blank. */
      context: z
        .object({ longestPromptTokens: z.number().int(), sampleId: z.string(), needed: z.number().int(), trainedContext: z.number().int().nullable(), suggested: z.number().int(), warning: z.string().optional() })
        .optional(),
    }),
  },
  /** Every provider the workbench knows (main/providers/registry.ts): New run's list and the CLI's choices read it. */
  listProviders: { input: z.object({}), output: z.array(ProviderInfoSchema) },
  /** The models a hosted provider or an OpenAI-compatible server lists (GET /models), for the New run page's picker; the key comes from the key store. */
  listProviderModels: { input: z.object({ provider: RunProviderSchema, baseUrl: z.string().url().optional() }), output: z.object({ models: z.array(z.string()) }) },
  /** Queues a run per knowledge condition (`runIds`, in the order given; `runId` is the first); each starts when the runs before it are done. */
  startRun: { input: StartRunInputSchema, output: z.object({ runId: z.number().int(), runIds: z.array(z.number().int()) }) },
  /** Stops a queued or running run; finished outputs are kept. */
  cancelRun: { input: z.object({ runId: z.number().int() }), output: RunSummarySchema },
  /** Queues a cancelled or interrupted run again; stored outputs are not regenerated (errored ones are with retryErrors). */
  resumeRun: { input: z.object({ runId: z.number().int(), retryErrors: z.boolean().default(false) }), output: RunSummarySchema },
  listRuns: { input: z.object({}), output: z.array(RunSummarySchema) },
  getRun: { input: z.object({ runId: z.number().int() }), output: RunDetailSchema },
  deleteRun: { input: z.object({ runId: z.number().int() }), output: z.object({ deleted: z.boolean() }) },
  listRunSamples: {
    input: z.object({
      runId: z.number().int(),
      filter: RunSampleFilterSchema.default({}),
      sort: z.object({ by: z.enum(RUN_SAMPLE_SORTS), dir: z.enum(['asc', 'desc']).default('asc') }).default({ by: 'index', dir: 'asc' }),
      offset: z.number().int().min(0).default(0),
      limit: z.number().int().min(1).max(100_000).default(1000),
    }),
    output: z.object({ total: z.number().int(), rows: z.array(RunSampleRowSchema) }),
  },
  getRunSample: { input: z.object({ runId: z.number().int(), index: z.number().int(), attempt: z.number().int().default(0) }), output: RunSampleDetailSchema },
  compareRuns: {
    input: z.object({
      baselineId: z.number().int(),
      /** Empty only to ask for `candidates` before any run is chosen. */
      runIds: z.array(z.number().int()),
      changedOnly: z.boolean().default(false),
      /** Also list every other run with outputs and the samples it shares with the baseline (the page's run picker). */
      candidates: z.boolean().default(false),
      offset: z.number().int().min(0).default(0),
      limit: z.number().int().min(1).max(100_000).default(1000),
    }),
    output: CompareResultSchema,
  },
  /** Runs of one dataset and model under different knowledge conditions: correct (t), illegal (e), gain over `none`, failure classes. */
  /**
   * `specs` and `dataset`: runs made on a dataset file (`wapii score --save`, runs from before files were
   * stored as datasets) are compared on that file and its spec folder, their outputs classified from them.
   */
  compareConditions: {
    input: z.object({ runIds: z.array(z.number().int()).min(1).max(64), specs: z.array(FileInputSchema).min(1).optional(), dataset: FileInputSchema.optional() }),
    output: ConditionComparisonSchema,
  },
  /** Overrides a sample's verdict in a run (null restores the scorer's); history kept, statistics recomputed. */
  overrideVerdict: {
    input: z.object({ runId: z.number().int(), index: z.number().int(), attempt: z.number().int().default(0), verdict: SampleVerdictSchema.nullable(), reason: z.string().min(1) }),
    output: RunSampleDetailSchema,
  },
  /** csv/json: the samples (reference names); markdown/latex: the headline tables; codes: `NNNN_code.js` per sample. */
  exportRun: { input: z.object({ runId: z.number().int(), format: z.enum(EXPORT_FORMATS) }), output: z.object({ files: z.record(z.string(), z.string()) }) },

  // --- reports (main/service/runReport.ts, scoreFiles.ts, runSubset.ts): what `wapii report`, `score` and `subset` print ---
  /** A stored run's report from its stored verdicts: statistics, repair rounds, intervals, failure classes (overrides applied), and its tables' numbers. */
  getRunReport: { input: z.object({ runId: z.number().int() }), output: RunReportResultSchema },
  /** Scores one program per sample of a dataset file: extract, execute in the sandbox, compare; `save` stores the run ('imported codes'). */
  scoreCodes: {
    input: z.object({
      dataset: FileInputSchema,
      specs: z.array(FileInputSchema).min(1),
      /** By the sample's position in the dataset file. */
      codes: z.array(z.object({ index: z.number().int().min(0), code: z.string() })).min(1),
      /** Where the codes came from, as messages name it (the CLI: the folder). */
      codesFrom: z.string().min(1).optional(),
      api: z.string().min(1).optional(),
      compat: z.enum(['default', 'reference']).default('default'),
      client: z.enum(HTTP_CLIENTS).default(DEFAULT_CLIENT),
      /** Wall-clock limit per program. */
      // Per program; a client of serve may not hold the sandboxes for longer than a minute each.
      timeoutMs: z.number().int().min(1).max(60_000).default(1000),
      /** Store the scored run, recording the dataset file and the code folder (the CLI: absolute paths). */
      save: z.object({ dataset: z.string().min(1), codes: z.string().min(1) }).optional(),
    }),
    output: CodeScoresSchema,
  },
  /** The ground-truth program of every sample of a dataset file (what a perfect model writes), as `NNNN.js` files. */
  oraclePrograms: {
    input: z.object({
      dataset: FileInputSchema,
      setup: z.enum(['full', 'argument']),
      quotes: z.enum(['single', 'double', 'backtick']).default('single'),
      style: z.enum(['then', 'await']).default('then'),
      client: z.enum(HTTP_CLIENTS).default(DEFAULT_CLIENT),
    }),
    output: z.object({ files: z.record(z.string(), z.string()) }),
  },
  /** A model-conditional dataset: the samples with no correct output in run `without` and one in run `with` (one dataset file, one model); `dataset` is that file. */
  deriveSubset: { input: z.object({ without: z.number().int(), with: z.number().int(), dataset: FileInputSchema.optional() }), output: SubsetSchema },

  // --- file tools (main/service/fileTools.ts): a dataset (stored, or files) and specs handed by content; nothing stored ---
  /** BM25 endpoint retrieval for each sample's task: recall@1/5/10 of the expected endpoint, per API, and each sample's rank. */
  measureRecall: { input: z.object({ source: DatasetSourceSchema }), output: RecallReportSchema },
  /** Whether the spec's constraints accept each program (starter code and completion; the task's call is checked). */
  checkConstraints: { input: z.object({ spec: FileInputSchema, programs: z.array(z.string()).min(1) }), output: z.array(ConstraintCheckSchema) },
  /** The constraints as a GBNF grammar for llama.cpp; `names`: what the code declares before the call, which values may reference. */
  exportGbnf: { input: z.object({ spec: FileInputSchema, names: z.array(z.string().min(1)).default([]) }), output: z.object({ grammar: z.string() }) },
  /** What one version of a spec adds, removes and changes against another. */
  diffSpecs: { input: z.object({ before: FileInputSchema, after: FileInputSchema }), output: SpecDiffSchema },
  /** A dataset's samples of one API checked against a new version of its spec: which break, and why, and which it fixes. */
  recheckSpecVersion: { input: SpecVersionInput, output: SpecRecheckSchema },
  /** The samples on endpoints a new spec version adds or changes, as a flat WAPIIBench file. */
  deriveSpecVersion: { input: SpecVersionInput, output: SpecDeriveSchema },

  /** A second version of an API's spec against the stored one: added, removed and changed endpoints, samples that break, samples on novel endpoints (nothing stored). */
  diffSpecVersion: { input: DatasetRef.extend({ api: z.string().min(1), spec: FileInputSchema }), output: SpecVersionDiffSchema },

  // --- coverage, synthesis, bulk review (main/service/synthesis.ts) ---
  getCoverage: { input: DatasetRef.extend({ api: z.string().optional() }), output: CoverageSchema },
  synthesize: { input: SynthesizeInputSchema, output: SynthesisJobSchema },
  resumeSynthesis: { input: z.object({ jobId: z.number().int(), wait: z.boolean().default(false) }), output: SynthesisJobSchema },
  cancelSynthesis: { input: z.object({ jobId: z.number().int() }), output: SynthesisJobSchema },
  getSynthesisJob: { input: z.object({ jobId: z.number().int() }), output: SynthesisJobSchema },
  listSynthesisJobs: { input: z.object({ datasetId: z.number().int().optional() }), output: z.array(SynthesisJobSchema) },
  getApiKeyStatus: { input: z.object({}), output: z.array(ApiKeyStatusSchema) },
  /** Stores a provider's key encrypted (Electron's safeStorage); the key never comes back. */
  saveApiKey: { input: z.object({ provider: z.string().min(1).max(60), key: z.string().min(1) }), output: ApiKeyStatusSchema },
  /** One review decision for many samples (bulk accept/reject of a filtered selection). */
  reviewSamples: {
    input: DatasetRef.extend({
      sampleIds: z.array(z.string().min(1)).min(1),
      reviewState: ReviewStateSchema,
      reason: z.string().min(1).default('bulk review'),
      /**
       * Each sample's `updatedAt` as the reviewer's list showed it: when any sample changed since,
       * nothing is written ('conflict', naming the samples). Without it, states are written as asked.
       */
      seen: z.record(z.string(), z.string()).optional(),
    }),
    output: z.object({ updated: z.number().int() }),
  },
  /** What the review view shows beside a sample: the endpoint's spec excerpt, certain one-click fixes, near-duplicate tasks. */
  getReviewAid: { input: SampleRef, output: ReviewAidSchema },
} as const;

export type Contract = typeof contract;
export type Method = keyof Contract;
/** What a client sends. */
export type Input<M extends Method> = z.input<Contract[M]['input']>;
/** What the service receives, after the transport validated the input (defaults filled in). */
export type Parsed<M extends Method> = z.output<Contract[M]['input']>;
export type Output<M extends Method> = z.output<Contract[M]['output']>;

/** What every client sees, whatever the transport. */
export type WorkbenchApi = { [M in Method]: (input: Input<M>) => Promise<Output<M>> };
/** What the service implements. */
export type WorkbenchHandlers = { [M in Method]: (input: Parsed<M>) => Promise<Output<M>> };

export const METHODS = Object.keys(contract) as Method[];

// Compile-time check: the zod-free name list (used by the preload script) matches the contract.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const namesMatch: Same<Method, MethodName> = true;
void namesMatch;
