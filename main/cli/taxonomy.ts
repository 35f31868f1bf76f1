import type { RequestConfig } from '../api/schemas.js';
import type { ApiSpec } from '../openapi/index.js';
import type { CodeScores } from '../runner/index.js';
import { classifyFailure, countFailures, FAILURE_CLASSES, type FailureClass, type FailureCounts } from '../scoring/index.js';
import { formatTable } from './table.js';

export interface FailureReport {
  readonly counts: FailureCounts;
  readonly per_api: Record<string, FailureCounts>;
  /** By the sample's position in the dataset file, as `samples` of `wapii score --json`. */
  readonly samples: Record<string, FailureClass[]>;
}

/** The failure classes of every scored program, and their counts for the run and per API. */
export function failuresOf(scores: CodeScores, expected: ReadonlyMap<number, RequestConfig>, specs: ReadonlyMap<string, ApiSpec>): FailureReport {
  const items = scores.samples.map((s) => {
    const spec = specs.get(s.api);
    const config = expected.get(s.index);
    if (!spec || !config) throw new Error(`bug: sample ${s.index} has no spec or expected request`);
    return { index: s.index, api: s.api, failures: classifyFailure({ verdict: s.evaluation.verdict, spec, expected: config, executionError: s.evaluation.execution?.error?.kind }) };
  });
  return { ...countFailures(items), samples: Object.fromEntries(items.map((i) => [String(i.index), i.failures])) };
}

/** Outputs per failure class (rows with any), for the run and per API. */
export function failureTable(report: FailureReport): string {
  const apis = Object.keys(report.per_api);
  const columns = apis.length > 1 ? ['all', ...apis] : ['all'];
  const counts = (c: string): FailureCounts => (c === 'all' ? report.counts : (report.per_api[c] ?? report.counts));
  const rows = FAILURE_CLASSES.filter((f) => report.counts[f] > 0).map((f) => [f, ...columns.map((c) => String(counts(c)[f]))]);
  return rows.length === 0 ? 'no failures\n' : formatTable(['failure class (outputs)', ...columns], rows);
}
