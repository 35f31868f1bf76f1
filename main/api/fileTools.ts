import { z } from 'zod';
import { FindingSchema } from './schemas.js';
import { SpecVersionDiffSchema } from './specVersions.js';

/**
 * What the file tools of the contract answer: the command line's `retrieve`, `constraints check`
 * and `gbnf`, `spec-diff`, `spec-recheck` and `spec-derive`, on dataset and spec files handed by
 * content or on a stored dataset. Nothing is stored.
 */

const RecallSchema = z.object({ '1': z.number(), '5': z.number(), '10': z.number() });
/** measureRecall: how often BM25 ranks the expected endpoint first, in the top 5, top 10; per API; each sample's rank (null: not retrieved). */
export const RecallReportSchema = z.object({
  retriever: z.string(),
  recall: RecallSchema,
  per_api: z.record(z.string(), RecallSchema.extend({ samples: z.number().int() })),
  samples: z.array(z.object({ index: z.number().int(), api: z.string(), rank: z.number().int().nullable() })),
});
export type RecallReport = z.infer<typeof RecallReportSchema>;

/** checkConstraints, per program in the order given: accepted, else the offset (0-based) after which no legal continuation exists, and why. */
export const ConstraintCheckSchema = z.object({ accepted: z.boolean(), offset: z.number().int().optional(), reason: z.string().optional() });
export type ConstraintCheck = z.infer<typeof ConstraintCheckSchema>;

/** diffSpecs: the endpoints, parameters, body properties and types one version of a spec adds, removes or changes. */
export const SpecDiffSchema = SpecVersionDiffSchema.pick({ added: true, removed: true, changed: true });
export type SpecDiffValue = z.infer<typeof SpecDiffSchema>;

/** recheckSpecVersion: the samples of one API whose findings differ under the new version, with the findings that break or that it fixes. */
export const SpecRecheckSchema = z.object({
  api: z.string(),
  /** The API's samples in the dataset. */
  samples: z.number().int(),
  rechecked: z.array(z.object({ index: z.number().int(), endpoint: z.string().nullable(), broken: z.array(FindingSchema), fixed: z.array(FindingSchema) })),
});

/** deriveSpecVersion: the samples on endpoints the new version adds or changes, as a flat WAPIIBench file, with what a provenance names. */
export const SpecDeriveSchema = z.object({
  api: z.string(),
  before: z.object({ title: z.string(), version: z.string() }),
  after: z.object({ title: z.string(), version: z.string() }),
  /** The derived samples' positions in the dataset. */
  samples: z.array(z.number().int()),
  /** The flat WAPIIBench list of them. */
  dataset: z.string(),
  diff: z.object({ added: z.array(z.string()), changed: z.array(z.string()) }),
});
