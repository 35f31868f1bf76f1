import type { CompareResult } from '../api/evaluation.js';
import { BOOTSTRAP, passAtKOf, proportionIntervals, uncertaintyOf, type Statistics, type Verdict } from '../scoring/index.js';
import { formatTable } from './table.js';

/**
 * What `--json` prints beside `statistics`: `intervals` (Wilson 95% for every sample-level rate,
 * seeded bootstrap for the mean argument metrics), `counts` (k/n each rate divides: n = 0 is an
 * undefined rate that the reference writes as 0), the bootstrap's settings, Wilson intervals per
 * API, and pass@k when every sample has several outputs.
 */
export function uncertaintyJson(report: { statistics: Statistics; per_api: Record<string, Statistics>; samples: Record<string, Verdict | Verdict[]> }): Record<string, unknown> {
  const tasks = Object.values(report.samples).map((v) => (Array.isArray(v) ? v : [v]));
  const { intervals, counts } = uncertaintyOf(report.statistics, tasks.flat());
  const passAtK = passAtKOf(tasks);
  return {
    intervals,
    counts,
    bootstrap: BOOTSTRAP,
    per_api_intervals: Object.fromEntries(Object.entries(report.per_api).map(([api, s]) => [api, proportionIntervals(s)])),
    ...(Object.keys(passAtK).length > 0 ? { pass_at_k: passAtK } : {}),
  };
}

/** The paired tests as a table: both, only A, only B, neither, p (exact McNemar). */
export function pairedTable(paired: CompareResult['paired'][number], a: number, b: number): string {
  return formatTable(
    ['paired outcome', 'both', `only run ${a}`, `only run ${b}`, 'neither', 'p (McNemar)'],
    Object.entries(paired).map(([name, t]) => [name, String(t.both), String(t.a_only), String(t.b_only), String(t.neither), `${t.p_value < 0.001 ? t.p_value.toExponential(1) : t.p_value.toFixed(3)}${t.p_value < 0.05 ? ' *' : ''}`]),
  );
}
