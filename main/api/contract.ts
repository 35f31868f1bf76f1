import { z } from 'zod';
import type { MethodName } from './constants.js';
import { CoverageSchema } from './coverage.js';
import { API_KEY_PROVIDERS, ApiKeyStatusSchema, SynthesisJobSchema, SynthesizeInputSchema } from './synthesis.js';
import {
  DatasetSummarySchema,
  RequestConfigSchema,
  ReviewStateSchema,
  RevisionSchema,
  SampleFilterSchema,
  SampleSchema,
} from './schemas.js';

/** A file handed to the service by content, so the same call works from the CLI, Electron and a browser. */
export const FileInputSchema = z.object({ filename: z.string().min(1), content: z.string() });
export type FileInput = z.infer<typeof FileInputSchema>;

const DatasetRef = z.object({ datasetId: z.number().int() });
const SampleRef = DatasetRef.extend({ sampleId: z.string().min(1) });

export const SampleDetailSchema = z.object({
  sample: SampleSchema,
  revisions: z.array(RevisionSchema),
  /** The endpoint the expected request resolves to, when it resolves. */
  endpoint: z.object({ method: z.string(), path: z.string(), summary: z.string().optional(), operationId: z.string().optional() }).nullable(),
  canUndo: z.boolean(),
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
]);
export type WorkbenchEvent = z.infer<typeof WorkbenchEventSchema>;

/**
 * The one service contract. Electron IPC, `wapii serve` over HTTP and the in-process CLI all
 * call these methods; transports only validate, call and serialise.
 */
export const contract = {
  listDatasets: { input: z.object({}), output: z.array(DatasetSummarySchema) },
  importDataset: {
    input: z.object({ name: z.string().min(1).optional(), dataset: FileInputSchema, specs: z.array(FileInputSchema).min(1) }),
    output: DatasetSummarySchema,
  },
  exportDataset: {
    /** `reviewStates`: only samples in these states (e.g. accepted and fixed). */
    input: DatasetRef.extend({ format: z.enum(['flat', 'per-api']), reviewStates: z.array(ReviewStateSchema).min(1).optional() }),
    output: z.object({ files: z.record(z.string(), z.string()) }),
  },
  recheckDataset: { input: DatasetRef, output: DatasetSummarySchema },
  listSamples: { input: DatasetRef.extend({ filter: SampleFilterSchema.default({}) }), output: z.array(SampleSchema) },
  getSample: { input: SampleRef, output: SampleDetailSchema },
  editSample: {
    input: SampleRef.extend({
      task: z.string().min(1).optional(),
      config: RequestConfigSchema.optional(),
      reviewState: ReviewStateSchema.optional(),
      reason: z.string().min(1),
    }),
    output: SampleDetailSchema,
  },
  undoEdit: { input: SampleRef, output: SampleDetailSchema },
  getCoverage: { input: DatasetRef.extend({ api: z.string().optional() }), output: CoverageSchema },
  synthesize: { input: SynthesizeInputSchema, output: SynthesisJobSchema },
  resumeSynthesis: { input: z.object({ jobId: z.number().int(), wait: z.boolean().default(false) }), output: SynthesisJobSchema },
  cancelSynthesis: { input: z.object({ jobId: z.number().int() }), output: SynthesisJobSchema },
  getSynthesisJob: { input: z.object({ jobId: z.number().int() }), output: SynthesisJobSchema },
  listSynthesisJobs: { input: z.object({ datasetId: z.number().int().optional() }), output: z.array(SynthesisJobSchema) },
  getApiKeyStatus: { input: z.object({}), output: z.array(ApiKeyStatusSchema) },
  /** Stores a provider's key encrypted (Electron's safeStorage); the key never comes back. */
  saveApiKey: { input: z.object({ provider: z.enum(API_KEY_PROVIDERS), key: z.string().min(1) }), output: ApiKeyStatusSchema },
  /** One review decision for many samples (bulk accept/reject of a filtered selection). */
  reviewSamples: {
    input: DatasetRef.extend({ sampleIds: z.array(z.string().min(1)).min(1), reviewState: ReviewStateSchema, reason: z.string().min(1).default('bulk review') }),
    output: z.object({ updated: z.number().int() }),
  },
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
