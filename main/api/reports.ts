import { z } from 'zod';
import {
  BootstrapSchema,
  FailureClassSchema,
  FailureCountsSchema,
  IntervalSchema,
  ProportionSchema,
  RunFailuresSchema,
  StatisticsSchema,
  UncertaintySchema,
  VerdictSchema,
} from './evaluation.js';
import { JsonValueSchema } from './schemas.js';

/**
 * The reports the command line prints, in the reference's words (WAPIIBench): a stored run's
 * (`wapii report`, `run`, `compare`), scored code files' (`wapii score`) and a model-conditional
 * subset's provenance (`wapii subset`). The service computes them; the CLI only prints.
 */

/** One column of the paper's headline table (the run, or one API): `samples_total` and each HEADLINE statistic, and what each rate divides. */
export const HeadlineColumnSchema = z.object({
  /** `all`, or the API's name. */
  name: z.string(),
  values: z.record(z.string(), z.number()),
  /** The rates among `values` with the counts they divide (`n = 0`: undefined, printed "–"). */
  of: z.record(z.string(), ProportionSchema),
});
/** The numbers of the headline table and of the per-location argument table (LOCATION_ROWS), as `wapii report` prints them. */
export const HeadlineSchema = z.object({
  /** `all` first, then each API in name order. */
  columns: z.array(HeadlineColumnSchema),
  /** The run's argument counts per location: `all` first, then the others in name order. */
  locations: z.array(z.object({ location: z.string(), values: z.record(z.string(), z.number()) })),
});
export type Headline = z.infer<typeof HeadlineSchema>;

/** Beside `statistics` in every report: Wilson and bootstrap intervals, the counts, the bootstrap's settings, per-API intervals and pass@k (when every sample has several outputs). */
export const ReportUncertaintySchema = UncertaintySchema.extend({
  bootstrap: BootstrapSchema,
  per_api_intervals: z.record(z.string(), z.record(z.string(), IntervalSchema)),
  pass_at_k: z.record(z.string(), z.number()).optional(),
});
export type ReportUncertainty = z.infer<typeof ReportUncertaintySchema>;

/** One output's repair rounds: the follow-ups it took and each round's verdict (round 0 is the first program; the last is the scored one). */
export const RepairReportSchema = z.object({
  rounds_used: z.number().int(),
  rounds: z.array(z.object({ round: z.number().int(), sample_verdict: z.string(), error_verdict: z.string().nullable(), feedback: z.array(z.string()), tokens: z.number().int() })),
});
export type RepairReport = z.infer<typeof RepairReportSchema>;

const OneOrMore = <T extends z.ZodType>(schema: T) => z.union([schema, z.array(schema)]);

/**
 * A stored run's report, as `wapii report --json` prints it: the metric tables from its stored
 * verdicts (errored outputs left out), by sample (an array per sample when n > 1), the repair
 * rounds of a repair run, the intervals, and the failure classes (overrides applied).
 */
export const RunReportSchema = z.object({
  statistics: StatisticsSchema,
  per_api: z.record(z.string(), StatisticsSchema),
  samples: z.record(z.string(), OneOrMore(VerdictSchema)),
  repair: z.record(z.string(), OneOrMore(RepairReportSchema)).optional(),
  ...ReportUncertaintySchema.shape,
  failures: RunFailuresSchema.optional(),
});
export type RunReport = z.infer<typeof RunReportSchema>;

/** getRunReport: the run as stored (`outputs` counts every stored output, errored ones too), its report, and the numbers of its tables. */
export const RunReportResultSchema = z.object({
  run: z.object({ id: z.number().int(), kind: z.string(), status: z.string(), outputs: z.number().int() }),
  report: RunReportSchema,
  headline: HeadlineSchema,
});

/** The failure classes of scored programs: counts for the run and per API, and each program's by its position in the dataset file. */
export const CodeFailuresSchema = z.object({
  counts: FailureCountsSchema,
  per_api: z.record(z.string(), FailureCountsSchema),
  samples: z.record(z.string(), z.array(FailureClassSchema)),
});
export type CodeFailures = z.infer<typeof CodeFailuresSchema>;

/** scoreCodes: the report of one program per sample (`wapii score --json` prints `report`, `failures` and `run`). */
export const CodeScoresSchema = z.object({
  report: z.object({ statistics: StatisticsSchema, per_api: z.record(z.string(), StatisticsSchema), samples: z.record(z.string(), VerdictSchema), ...ReportUncertaintySchema.shape }),
  failures: CodeFailuresSchema,
  /** The stored run, when asked to save it. */
  run: z.number().int().optional(),
  headline: HeadlineSchema,
});

/** A run a subset was derived from, as its provenance names it. */
const SubsetRunSchema = z.object({
  id: z.number().int(),
  kind: z.string(),
  knowledge: JsonValueSchema,
  model: JsonValueSchema,
  modelFile: JsonValueSchema,
  createdAt: z.string(),
});
/** deriveSubset: the samples failed without the knowledge and solved with it, as a flat WAPIIBench file, and its provenance. */
export const SubsetSchema = z.object({
  /** The flat WAPIIBench list of the kept samples. */
  dataset: z.string(),
  provenance: z.object({
    rule: z.string(),
    /** The dataset file both runs were made on, its sha-256, and the kept samples' positions in it. */
    source: z.object({ dataset: z.string(), sha256: z.string(), samples: z.array(z.number().int()) }),
    runs: z.object({ without: SubsetRunSchema, with: SubsetRunSchema }),
  }),
});
export type Subset = z.infer<typeof SubsetSchema>;
