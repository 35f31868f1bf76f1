import { sampleMetrics, type Statistics } from './statistics.js';
import type { Verdict } from './verdicts.js';

/** z for a two-sided 95% interval (the 97.5th percentile of the standard normal). */
export const Z95 = 1.959963984540054;

/** A closed interval [low, high] on the 0..1 scale. */
export type Interval = [low: number, high: number];

/**
 * The Wilson score interval for k successes in n trials (Wilson 1927; Newcombe 1998, method 3).
 * Unlike the Wald interval it stays inside [0, 1] and does not collapse to a point at 0/n or n/n,
 * which is where small runs' rates often are. At n = 0 the formula itself gives [0, 1]: nothing
 * is known, and the interval says so.
 */
export function wilson(k: number, n: number, z = Z95): Interval {
  if (n === 0) return [0, 1];
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // Rounding can put an end a hair outside [0, 1] or past p at k = 0 or k = n.
  return [k === 0 ? 0 : Math.max(0, centre - half), k === n ? 1 : Math.min(1, centre + half)];
}

/** The numerator and denominator a rate was computed from: `n = 0` means the rate is undefined. */
export interface Proportion {
  readonly k: number;
  readonly n: number;
}

const PART_PREFIXES = ['samples', 'urls', 'methods', 'endpoints'] as const;

/**
 * Every sample-level proportion among the statistics (the reference's names), with the counts it
 * divides: `samples_correct_wrt_total` is samples_correct / samples_total, `urls_illegal_wrt_executable`
 * is urls_illegal / samples_executable, `errors_timeout_wrt_errors` is errors_timeout / errors_total.
 */
export function proportionsOf(stats: Statistics): Record<string, Proportion> {
  const num = (key: string): number => (typeof stats[key] === 'number' ? (stats[key] as number) : 0);
  const out: Record<string, Proportion> = {};
  for (const key of Object.keys(stats)) {
    let m = /^(samples|urls|methods|endpoints)_(\w+?)_wrt_(total|executable)$/.exec(key);
    if (m && (PART_PREFIXES as readonly string[]).includes(m[1]!)) {
      // URL, method and endpoint rates count requests: a run with multi-step samples divides by its requests (scoring.md §7).
      const over = m[1] !== 'samples' && stats['requests_total'] !== undefined ? 'requests' : 'samples';
      out[key] = { k: num(`${m[1]}_${m[2]}`), n: num(m[3] === 'total' ? `${over}_total` : `${over}_executable`) };
      continue;
    }
    if (key === 'samples_multistep_correct_wrt_multistep') {
      out[key] = { k: num('samples_multistep_correct'), n: num('samples_multistep') };
      continue;
    }
    if (key === 'steps_correct_wrt_total' || key === 'carried_correct_wrt_total') {
      const stem = key.slice(0, key.indexOf('_correct'));
      out[key] = { k: num(`${stem}_correct`), n: num(`${stem}_total`) };
      continue;
    }
    m = /^errors_(\w+?)_wrt_(samples|errors)$/.exec(key);
    if (m) out[key] = { k: num(`errors_${m[1]}`), n: num(m[2] === 'samples' ? 'samples_total' : 'errors_total') };
  }
  return out;
}

/** Wilson 95% intervals for every sample-level proportion of `stats`, by the statistic's name. */
export function proportionIntervals(stats: Statistics): Record<string, Interval> {
  return Object.fromEntries(Object.entries(proportionsOf(stats)).map(([key, p]) => [key, wilson(p.k, p.n)]));
}

/** A small, fast, seedable PRNG (mulberry32): the bootstrap must give the same interval every time. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface BootstrapSettings {
  readonly seed: number;
  readonly resamples: number;
  /** Percentile interval: the 2.5th and 97.5th percentiles of the resampled statistic. */
  readonly method: 'percentile';
}
export const BOOTSTRAP: BootstrapSettings = { seed: 1, resamples: 2000, method: 'percentile' };

/**
 * One sample's part in a ratio statistic Σnum / Σden; the run's statistic is recomputed on each
 * resample of samples, so the interval is of exactly the number the table shows.
 */
type Contribution = readonly [num: number, den: number];

/** The percentile bootstrap interval of Σnum/Σden over units resampled with replacement; null when no unit has a denominator. */
export function bootstrapRatio(units: readonly Contribution[], settings: BootstrapSettings = BOOTSTRAP): Interval | null {
  if (!units.some(([, d]) => d > 0)) return null;
  const random = mulberry32(settings.seed);
  const values: number[] = [];
  for (let r = 0; r < settings.resamples; r++) {
    let num = 0;
    let den = 0;
    for (let i = 0; i < units.length; i++) {
      const [a, b] = units[Math.floor(random() * units.length)]!;
      num += a;
      den += b;
    }
    // A resample holding no unit with a denominator has no value (the reference would say 0); leave it out.
    if (den > 0) values.push(num / den);
  }
  values.sort((x, y) => x - y);
  const at = (q: number): number => values[Math.min(values.length - 1, Math.max(0, Math.ceil(q * values.length) - 1))]!;
  return [at(0.025), at(0.975)];
}

type Metrics = ReturnType<typeof sampleMetrics>;
const hasAll = (c: ReadonlyMap<string, number>): number => ((c.get('all') ?? 0) > 0 ? 1 : 0);
const executed = (v: Verdict): boolean => v.sample_verdict !== 'nonexecutable';

/**
 * The mean argument metrics (precision, recall, Jaccard, value accuracy; location `all`) as
 * computeStatistics defines them: a per-sample value summed, over the samples whose denominator
 * has that location. `[value, counted]` per sample; `execOnly` for the `_executable` variants.
 */
const MEAN_METRICS: readonly (readonly [name: string, pick: (m: Metrics, v: Verdict, execOnly: boolean) => Contribution])[] = [
  ['argument_name_mean_precision_wrt', (m, v) => [m.precision['all'] ?? 0, executed(v) && (m.counts.correctName.get('all') ?? 0) + (m.counts.unexpected.get('all') ?? 0) > 0 ? 1 : 0]],
  ['argument_name_mean_recall_wrt', (m, v, e) => [m.recall['all'] ?? 0, e && !executed(v) ? 0 : hasAll(m.counts.expected)]],
  ['argument_name_mean_jaccard_wrt', (m, v, e) => [m.jaccard['all'] ?? 0, e && !executed(v) ? 0 : hasAll(m.counts.all)]],
  ['argument_value_mean_accuracy_wrt_all', (m, v, e) => [m.valueAccuracyWrtAll['all'] ?? 0, e && !executed(v) ? 0 : hasAll(m.counts.all)]],
  ['argument_value_mean_accuracy_wrt_expected', (m, v, e) => [m.valueAccuracyWrtExpected['all'] ?? 0, e && !executed(v) ? 0 : hasAll(m.counts.expected)]],
  ['argument_value_mean_accuracy_wrt_correct', (m, v) => [m.valueAccuracyWrtCorrectName['all'] ?? 0, executed(v) ? hasAll(m.counts.correctName) : 0]],
];

/**
 * Seeded percentile-bootstrap intervals of the mean argument metrics (location `all`), by the
 * statistic's name. The unit resampled is a task: a multi-step sample's steps (each a request, as
 * the point estimate counts them) stay together, their contributions summed, so the interval holds
 * the estimate and the steps' correlation within a task is not taken for independence.
 */
export function meanMetricIntervals(verdicts: readonly Verdict[], settings: BootstrapSettings = BOOTSTRAP): Record<string, Interval> {
  const tasks = verdicts.map((v) => (v.steps ? v.steps.map((s) => s.verdict) : [v]).map((r) => ({ r, m: sampleMetrics(r) })));
  const out: Record<string, Interval> = {};
  for (const [name, pick] of MEAN_METRICS) {
    for (const scope of ['total', 'executable'] as const) {
      const key = `${name}_${scope}`;
      const units = tasks.map((requests) =>
        requests.reduce<[number, number]>(
          (sum, { r, m }) => {
            const [value, weight] = pick(m, r, scope === 'executable');
            return [sum[0] + value, sum[1] + weight];
          },
          [0, 0],
        ),
      );
      const interval = bootstrapRatio(units, settings);
      if (interval) out[key] = interval;
    }
  }
  return out;
}

/**
 * pass@k by the unbiased estimator of Chen et al. (2021): 1 - C(n-c, k) / C(n, k) for a task with
 * n outputs of which c are correct, as a running product (no factorials to overflow).
 */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new RangeError(`pass@${k} needs at least ${k} outputs per task, not ${n}`);
  if (n - c < k) return 1;
  let fail = 1;
  for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i;
  return 1 - fail;
}

/** pass@1, @5, @10 over tasks (each task's outputs), for each k no task has fewer outputs than; empty for one output per task. */
export function passAtKOf(tasks: readonly (readonly Verdict[])[]): Record<string, number> {
  const out: Record<string, number> = {};
  if (tasks.length === 0) return out;
  const least = Math.min(...tasks.map((t) => t.length));
  if (least < 2) return out;
  for (const k of [1, 5, 10]) {
    if (k > least) continue;
    const values = tasks.map((t) => passAtK(t.length, t.filter((v) => v.sample_verdict === 'correct').length, k));
    out[String(k)] = values.reduce((a, b) => a + b, 0) / values.length;
  }
  return out;
}

/** What machine-readable results carry beside `statistics`: intervals, the counts behind each rate, and how the bootstrap was drawn. */
export interface Uncertainty {
  readonly intervals: Record<string, Interval>;
  readonly counts: Record<string, Proportion>;
  readonly bootstrap: BootstrapSettings;
}

export function uncertaintyOf(stats: Statistics, verdicts: readonly Verdict[], settings: BootstrapSettings = BOOTSTRAP): Uncertainty {
  return { intervals: { ...proportionIntervals(stats), ...meanMetricIntervals(verdicts, settings) }, counts: proportionsOf(stats), bootstrap: settings };
}
