import { z } from 'zod';
import { JsonValueSchema, RequestConfigSchema } from './schemas.js';

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

/** A fix whose outcome is certain, applied by one click: the config it leads to. */
export const QuickFixSchema = z.object({
  /** The index of the finding it fixes in the sample's findings. */
  finding: z.number().int(),
  label: z.string(),
  kind: z.enum(['coerce', 'drop', 'add']),
  config: RequestConfigSchema,
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
  fixes: z.array(QuickFixSchema),
  /** Samples of the same endpoint whose task is nearly the same. */
  nearDuplicates: z.array(NearDuplicateSchema),
});
export type ReviewAid = z.infer<typeof ReviewAidSchema>;
