import { z } from 'zod';
import { MIN_STEPS } from './stepEdits.js';
import { JsonValueSchema, RequestConfigSchema, StepSchema } from './schemas.js';

/** The paper's three-point checklist, answered with a review decision. */
export const ChecklistSchema = z.object({
  /** The task is unambiguous and solvable. */
  unambiguous: z.boolean(),
  /** The config solves the task. */
  solves: z.boolean(),
  /** Every argument of the config is reflected in the task and vice versa. */
  reflected: z.boolean(),
});

const ArgumentSpecSchema = z.object({
  name: z.string(),
  /** `path`, `query`, `header`, `cookie` for parameters; `body` for top-level body properties. */
  in: z.string(),
  required: z.boolean(),
  /** `string`, `integer`, `array<string>`, … as the schema declares it. */
  type: z.string(),
  enum: z.array(JsonValueSchema).optional(),
  description: z.string().optional(),
  readOnly: z.boolean().optional(),
});
export type ArgumentSpec = z.infer<typeof ArgumentSpecSchema>;

/** What a reviewer needs of the spec beside a sample: one endpoint, its arguments and body schema. */
export const EndpointExcerptSchema = z.object({
  method: z.string(),
  path: z.string(),
  summary: z.string().optional(),
  description: z.string().optional(),
  arguments: z.array(ArgumentSpecSchema),
  /** How the endpoint authenticates, one line per accepted scheme: `header X-API-Key`, `Authorization: Bearer <token>`. */
  auth: z.array(z.string()),
  body: z.object({ mediaType: z.string(), required: z.boolean(), schema: JsonValueSchema }).optional(),
});
export type EndpointExcerpt = z.infer<typeof EndpointExcerptSchema>;

/** A multi-step sample's steps as an edit sends them whole: two or more (scoring.md §7). */
export const EditedStepsSchema = z.array(StepSchema).min(MIN_STEPS, `a multi-step sample keeps ${MIN_STEPS} or more steps: remove a step only while more remain (or reject the sample)`);

/**
 * A fix whose outcome is certain, applied by one click: the config it leads to. On a multi-step
 * sample it fixes one step (`step`): `config` is that step's request after the fix, `response`
 * its stubbed response where the fix changes that (a string the response schema types as a
 * number or boolean); `carry` sets a request's value to what the earlier response holds.
 */
export const QuickFixSchema = z.object({
  /** The index of the finding it fixes in the sample's findings. */
  finding: z.number().int(),
  label: z.string(),
  kind: z.enum(['coerce', 'drop', 'add', 'carry']),
  config: RequestConfigSchema,
  step: z.number().int().optional(),
  response: StepSchema.shape.response.optional(),
});
export type QuickFix = z.infer<typeof QuickFixSchema>;

export const NearDuplicateSchema = z.object({
  sampleId: z.string(),
  position: z.number().int(),
  task: z.string(),
  /** Token Jaccard similarity of the two tasks, 0–1. */
  similarity: z.number(),
});

export const ReviewAidSchema = z.object({
  excerpt: EndpointExcerptSchema.nullable(),
  /** A multi-step sample's: each step's endpoint excerpt, in step order (null where its request resolves to none). */
  stepExcerpts: z.array(EndpointExcerptSchema.nullable()).optional(),
  fixes: z.array(QuickFixSchema),
  /** Samples of the same endpoint whose task is nearly the same. */
  nearDuplicates: z.array(NearDuplicateSchema),
});
export type ReviewAid = z.infer<typeof ReviewAidSchema>;
