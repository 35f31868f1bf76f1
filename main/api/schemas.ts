import type { HttpClient } from './clients.js';
import { z } from 'zod';
import { REVIEW_STATES } from './constants.js';
import { SampleProvenanceSchema } from './synthesis.js';

export { REVIEW_STATES };

/** A JSON value as stored in a sample's expected request. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValueSchema: z.ZodType<JsonValue, JsonValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(JsonValueSchema), z.record(z.string(), JsonValueSchema)]),
);

/** The expected HTTP request of a sample, in WAPIIBench's Axios-config shape. */
export const RequestConfigSchema = z.object({
  url: z.string().min(1),
  method: z.string().min(1),
  headers: z.record(z.string(), JsonValueSchema).optional(),
  params: z.record(z.string(), JsonValueSchema).optional(),
  data: JsonValueSchema.optional(),
});
export type RequestConfig = z.infer<typeof RequestConfigSchema>;

export const ReviewStateSchema = z.enum(REVIEW_STATES);
export type ReviewState = z.infer<typeof ReviewStateSchema>;

export const FINDING_RULES = ['server', 'path', 'method', 'argument', 'required', 'value', 'read-only', 'query-in-url', 'recorded', 'carried', 'response'] as const;
export const FindingSchema = z.object({
  rule: z.enum(FINDING_RULES),
  message: z.string(),
  location: z.enum(['headers', 'params', 'path_params', 'data']).optional(),
  key: z.string().optional(),
  /** The step of a multi-step sample the finding is about. */
  step: z.number().int().optional(),
});
export type Finding = z.infer<typeof FindingSchema>;

export const CheckStatusSchema = z.enum(['ok', 'flagged']);
export type CheckStatus = z.infer<typeof CheckStatusSchema>;

/** What the source file said about the sample (WAPIIBench's `checks` and `vetted` fields). */
export const SourceNotesSchema = z.object({
  index: z.number().int().optional(),
  checks: z.string().optional(),
  vetted: z.boolean().optional(),
});
export type SourceNotes = z.infer<typeof SourceNotesSchema>;

/**
 * The real-world dataset's fields of a sample (scoring.md §1; upstream's `validation_data_final.json`):
 * its own starter code with a `// {task}` comment where the task goes, the variables in scope at
 * the call and their JSON values, the URL with `${name}` references that argument completion's
 * prompt uses, and where the code came from. Read out of a sample's `fields`, which keep these and
 * any other field verbatim.
 */
/**
 * One step of a multi-step sample (scoring.md §7): the request it expects, what the API answers
 * it, and each value it carries from an earlier answer (`<location>.<key path>` →
 * `<earlier step>:<JSON pointer into that step's response>`).
 */
export const StepSchema = z.object({
  config: RequestConfigSchema,
  response: z.object({ status: z.number().int().min(100).max(599), headers: z.record(z.string(), JsonValueSchema).optional(), data: JsonValueSchema.optional() }),
  carried: z
    .record(z.string(), z.string().regex(/^\d+:\/\S*$/, 'a carried value points `<earlier step>:<JSON pointer>`'))
    // Checked on the record, so the message names the key (a key schema's says only "Invalid key in record").
    .superRefine((carried, ctx) => {
      for (const where of Object.keys(carried)) {
        if (!/^(data|params|headers|path_params)\.\S+$/.test(where)) ctx.addIssue({ code: 'custom', path: [where], message: 'a carried value is named `<data|params|headers|path_params>.<key path>`' });
        // A key path is walked into objects: a prototype's name there would reach every object's prototype.
        else if (where.split('.').some((k) => k === '__proto__' || k === 'prototype' || k === 'constructor')) ctx.addIssue({ code: 'custom', path: [where], message: "a carried value's key path may not name __proto__, prototype or constructor" });
      }
    }).optional(),
});
export type SampleStep = z.infer<typeof StepSchema>;

export const RealWorldFieldsSchema = z.object({
  /** A multi-step sample's steps (two or more, in order); its `config` is then the last step's. */
  steps: z.array(StepSchema).min(2).optional(),
  starter_code: z.string().optional(),
  definitions: z.record(z.string(), JsonValueSchema).optional(),
  template_url: z.string().optional(),
  repo_name: z.string().optional(),
  path: z.string().optional(),
  ref: z.string().optional(),
  license: z.string().optional(),
  copyright: z.string().optional(),
});
export type RealWorldFields = z.infer<typeof RealWorldFieldsSchema>;

/** A sample's fields beyond `api`, `index`, `task`, `config`, `checks` and `vetted`, kept as the file had them. */
export const SampleFieldsSchema = z.record(z.string(), JsonValueSchema);
export type SampleFields = z.infer<typeof SampleFieldsSchema>;

export const SampleSchema = z.object({
  id: z.string(),
  datasetId: z.number().int(),
  position: z.number().int(),
  api: z.string(),
  task: z.string(),
  config: RequestConfigSchema,
  reviewState: ReviewStateSchema,
  source: SourceNotesSchema,
  findings: z.array(FindingSchema),
  checkStatus: CheckStatusSchema,
  updatedAt: z.string(),
  /** Set on synthesized samples: provider, model, prompt hash, job, raw answer, time. */
  provenance: SampleProvenanceSchema.optional(),
  /** Every other field the file gave the sample (the real-world dataset's, see RealWorldFieldsSchema), verbatim. */
  fields: SampleFieldsSchema.optional(),
});
export type Sample = z.infer<typeof SampleSchema>;

export const RevisionSchema = z.object({
  id: z.number().int(),
  sampleId: z.string(),
  author: z.string(),
  at: z.string(),
  reason: z.string(),
  before: z.object({ task: z.string(), config: RequestConfigSchema, reviewState: ReviewStateSchema, fields: SampleFieldsSchema.optional() }).nullable(),
  after: z.object({ task: z.string(), config: RequestConfigSchema, reviewState: ReviewStateSchema, fields: SampleFieldsSchema.optional() }),
  undone: z.boolean(),
});
export type Revision = z.infer<typeof RevisionSchema>;

export const DatasetSummarySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  sampleCount: z.number().int(),
  flaggedCount: z.number().int(),
  /** Samples that bring their own starter code (the real-world format): runs continue it instead of the fixed starter. */
  starterCount: z.number().int().optional(),
  apis: z.array(z.object({ api: z.string(), samples: z.number().int(), specHash: z.string(), specTitle: z.string() })),
});
export type DatasetSummary = z.infer<typeof DatasetSummarySchema>;

export const SampleFilterSchema = z.object({
  api: z.string().optional(),
  method: z.string().optional(),
  reviewState: ReviewStateSchema.optional(),
  checkStatus: CheckStatusSchema.optional(),
  text: z.string().optional(),
  /** `GET /path/{id}`: samples whose expected request resolves to this endpoint of their API's spec. */
  endpoint: z.string().optional(),
  /** `one`: single-request samples; `several`: tasks of several requests (`steps`, scoring.md §7). */
  requests: z.enum(['one', 'several']).optional(),
});
export type SampleFilter = z.infer<typeof SampleFilterSchema>;

/** A request as scored: what the sandbox captured, normalised per scoring.md §3. */
export interface CapturedRequest {
  /** `fetch` when the global fetch sent it (its query values are text only; scoring.md §2); absent for Axios. */
  readonly client?: HttpClient;
  readonly method: string;
  /** URL-decoded, without a query string. */
  readonly url: string;
  readonly headers: Record<string, JsonValue>;
  readonly params: Record<string, JsonValue>;
  /** Absent when the request had no body. */
  readonly data?: JsonValue;
}
