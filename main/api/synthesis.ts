import { z } from 'zod';

/** A provider's registry name (listProviders; main/providers/registry.ts): one whose answers can be held to a JSON Schema. */
export const SynthesisProviderSchema = z.string().min(1).max(60);

/** Where a synthesized sample came from; absent on imported samples. */
export const SampleProvenanceSchema = z.object({
  jobId: z.number().int(),
  provider: z.string(),
  model: z.string(),
  promptHash: z.string(),
  endpoint: z.string(),
  /** The provider's answer the sample was read from, verbatim. */
  rawAnswer: z.string(),
  createdAt: z.string(),
  /** The sample's ground-truth program run in the sandbox: `correct` when the config is what Axios sends for it. */
  groundTruth: z.object({ verdict: z.string(), error: z.string().optional() }),
});
export type SampleProvenance = z.infer<typeof SampleProvenanceSchema>;

export const SynthesisEndpointSchema = z.object({
  api: z.string(),
  endpoint: z.string(),
  status: z.enum(['pending', 'done', 'failed']),
  samples: z.number().int(),
  failure: z.string().optional(),
  message: z.string().optional(),
  /** The answer that failed, verbatim, when there was one. */
  rawAnswer: z.string().optional(),
  attempts: z.number().int(),
});
export type SynthesisEndpoint = z.infer<typeof SynthesisEndpointSchema>;

/** What a job drafts: single-request samples of endpoints, or multi-step samples from chains of two operations (scoring.md §7). */
export const SynthesisKindSchema = z.enum(['endpoints', 'chains']);

export const SynthesisSettingsSchema = z.object({
  /** Absent: `endpoints` (jobs stored before chains). */
  kind: SynthesisKindSchema.optional(),
  /** A chains job: at most this many chains per API. */
  maxChains: z.number().int().optional(),
  endpoints: z.union([z.enum(['uncovered', 'all']), z.array(z.string())]),
  api: z.string().optional(),
  baseUrl: z.string().optional(),
  modelFile: z.string().optional(),
  concurrency: z.number().int(),
  batchSize: z.number().int(),
  samplesPerEndpoint: z.number().int(),
});

export const SynthesisJobSchema = z.object({
  id: z.number().int(),
  datasetId: z.number().int(),
  provider: SynthesisProviderSchema,
  model: z.string(),
  /**
   * `interrupted`: stored as running, but no process is running it (killed); resume it.
   * `failed`: every endpoint it asked for failed (none done); `finished` may still hold failures
   * (`counts.failed`): "finished with N errors", resumable to retry them.
   */
  status: z.enum(['running', 'cancelled', 'finished', 'failed', 'interrupted']),
  settings: SynthesisSettingsSchema,
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
  usage: z.object({ inputTokens: z.number().int(), outputTokens: z.number().int(), requests: z.number().int(), retries: z.number().int() }),
  /** Estimated from list prices; 0 for local models and unknown ones. */
  costUsd: z.number(),
  counts: z.object({ endpoints: z.number().int(), done: z.number().int(), failed: z.number().int(), pending: z.number().int(), samples: z.number().int() }),
  endpoints: z.array(SynthesisEndpointSchema),
  /** A running job whose last request failed and waits for its retry: why, and when. */
  lastRetry: z.object({ message: z.string(), at: z.string() }).optional(),
});
export type SynthesisJob = z.infer<typeof SynthesisJobSchema>;

export const SynthesizeInputSchema = z.object({
  datasetId: z.number().int(),
  /**
   * `chains`: draft multi-step samples from chains of two operations, a field of one's response
   * being a parameter of the other's request (main/synthesis/chains.ts); each job endpoint is
   * then a chain, named by its key.
   */
  kind: SynthesisKindSchema.default('endpoints'),
  /**
   * `uncovered`, `all`, or endpoints as `METHOD /path` with the spec's path template. For chains:
   * `uncovered` the chains no multi-step sample of the dataset follows yet, a list the chains
   * whose first or second operation it names.
   */
  endpoints: z.union([z.enum(['uncovered', 'all']), z.array(z.string().min(1)).min(1)]).default('uncovered'),
  /** Chains: at most this many per API, best first and varied (default 10). */
  maxChains: z.number().int().min(1).max(200).optional(),
  api: z.string().optional(),
  provider: SynthesisProviderSchema,
  model: z.string().min(1).optional(),
  /** The provider's endpoint, where it is not the provider's own API (a server, a proxy). */
  baseUrl: z.string().url().optional(),
  /** A GGUF file, for `local`. */
  modelFile: z.string().min(1).optional(),
  concurrency: z.number().int().min(1).max(64).default(4),
  /** Endpoints per request (default 8; chains 4; 1 for local models). */
  batchSize: z.number().int().min(1).max(100).optional(),
  /** Samples per endpoint, or per chain. */
  samplesPerEndpoint: z.number().int().min(1).max(10).default(1),
  /** Resolve when the job ends (the CLI) rather than at once (the UI follows it by events). */
  wait: z.boolean().default(false),
});

/** Whether a provider's key is known and where from; never the key itself. */
export const ApiKeyStatusSchema = z.object({
  /** A registry name of a provider that takes a key. */
  provider: z.string(),
  set: z.boolean(),
  source: z.enum(['environment', 'saved', 'none']),
});
export type ApiKeyStatus = z.infer<typeof ApiKeyStatusSchema>;
