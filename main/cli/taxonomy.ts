import { FAILURE_CLASSES } from '../api/constants.js';
import type { RunFailures } from '../api/evaluation.js';
import { formatTable } from './table.js';

type FailureCounts = RunFailures['counts'];

/** Outputs per failure class (rows with any), for the run and per API. */
export function failureTable(report: Pick<RunFailures, 'counts' | 'per_api'>): string {
  const apis = Object.keys(report.per_api);
  const columns = apis.length > 1 ? ['all', ...apis] : ['all'];
  const counts = (c: string): FailureCounts => (c === 'all' ? report.counts : (report.per_api[c] ?? report.counts));
  const rows = FAILURE_CLASSES.filter((f) => report.counts[f] > 0).map((f) => [f, ...columns.map((c) => String(counts(c)[f]))]);
  return rows.length === 0 ? 'no failures\n' : formatTable(['failure class (outputs)', ...columns], rows);
}
