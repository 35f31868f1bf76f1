import { z } from 'zod';

export const EndpointCoverageSchema = z.object({
  method: z.string(),
  path: z.string(),
  /** `GET /path/{id}`, as `SampleFilter.endpoint` and `wapii synthesize --endpoints` take it. */
  key: z.string(),
  summary: z.string().optional(),
  operationId: z.string().optional(),
  samples: z.number().int(),
});

/** Per API of a dataset: every endpoint of its spec with its number of samples. */
export const CoverageSchema = z.object({
  datasetId: z.number().int(),
  apis: z.array(
    z.object({
      api: z.string(),
      specTitle: z.string(),
      endpoints: z.array(EndpointCoverageSchema),
      covered: z.number().int(),
      total: z.number().int(),
      unmatched: z.number().int(),
    }),
  ),
});
export type Coverage = z.infer<typeof CoverageSchema>;
