import { z } from 'zod';

/** A second version of an API's spec against the one a stored dataset holds: the diff, and what it does to the samples. */
export const SpecVersionDiffSchema = z.object({
  api: z.string(),
  before: z.object({ title: z.string(), version: z.string() }),
  after: z.object({ title: z.string(), version: z.string() }),
  /** `GET /path` of each endpoint the new version adds or removes. */
  added: z.array(z.string()),
  removed: z.array(z.string()),
  changed: z.array(
    z.object({
      endpoint: z.string(),
      changes: z.array(
        z.object({
          kind: z.enum(['added', 'removed', 'required', 'optional', 'type']),
          location: z.string(),
          name: z.string(),
          before: z.string().optional(),
          after: z.string().optional(),
          /** One line: `query limit: type integer → string`. */
          text: z.string(),
        }),
      ),
    }),
  ),
  /** The API's samples in the dataset. */
  samples: z.number().int(),
  /** Samples that break under the new version, with the findings they did not have before; and those it fixes. */
  breaks: z.array(z.object({ index: z.number().int(), sampleId: z.string(), endpoint: z.string().nullable(), findings: z.array(z.string()) })),
  fixes: z.number().int(),
  /** Samples on endpoints the new version adds or changes (what `wapii spec-derive` writes). */
  novel: z.array(z.object({ index: z.number().int(), sampleId: z.string(), task: z.string() })),
});
export type SpecVersionDiff = z.infer<typeof SpecVersionDiffSchema>;
