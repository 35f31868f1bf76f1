import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../test/support/random.js';
import { computeStatistics } from './statistics.js';
import { bootstrapRatio, meanMetricIntervals, passAtK, passAtKOf, proportionIntervals, proportionsOf, uncertaintyOf, wilson } from './intervals.js';
import { mcnemarExact, pairedComparison } from './paired.js';
import type { Verdict } from './verdicts.js';

describe('Wilson score interval', () => {
  // Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I, method 3 (score, no continuity correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
    [29, 29, 0.8830, 1],
    [0, 1, 0, 0.7935],
  ])('%i/%i → [%f, %f] (Newcombe 1998)', (k, n, low, high) => {
    const [l, h] = wilson(k, n);
    expect(l).toBeCloseTo(low, 4);
    expect(h).toBeCloseTo(high, 4);
  });

  it('is [0, 1] for n = 0 (nothing known)', () => {
    expect(wilson(0, 0)).toEqual([0, 1]);
  });

  // Independent: the Wilson interval is where the score test |p̂ - p| / sqrt(p(1-p)/n) = z, found by bisection.
  const scoreRoot = (k: number, n: number, side: -1 | 1): number => {
    const phat = k / n;
    const z = 1.959963984540054;
    const excess = (p: number): number => Math.abs(phat - p) - z * Math.sqrt((p * (1 - p)) / n);
    if ((side < 0 && k === 0) || (side > 0 && k === n)) return side < 0 ? 0 : 1;
    let lo = side < 0 ? 0 : phat;
    let hi = side < 0 ? phat : 1;
    for (let i = 0; i < 200; i++) {
      const mid = (lo + hi) / 2;
      // Outside the interval the excess is positive: move towards p̂.
      if ((excess(mid) > 0) === (side < 0)) lo = mid;
      else hi = mid;
    }
    return (lo + hi) / 2;
  };
  it('agrees with the inverted score test on 2,000 random (k, n)', () => {
    const random = seededRandom(26);
    for (let i = 0; i < 2000; i++) {
      const n = 1 + Math.floor(random() * 2000);
      const k = Math.floor(random() * (n + 1));
      const [l, h] = wilson(k, n);
      expect(Math.abs(l - scoreRoot(k, n, -1))).toBeLessThan(1e-9);
      expect(Math.abs(h - scoreRoot(k, n, 1))).toBeLessThan(1e-9);
      expect(l).toBeLessThanOrEqual(k / n);
      expect(h).toBeGreaterThanOrEqual(k / n);
    }
  });
});

describe('exact McNemar test', () => {
  // Fagerland, Lydersen & Laake (2013), airway hyper-responsiveness before/after stem-cell transplantation: b = 1, c = 7, exact conditional p = 0.070.
  it('b = 1, c = 7 → p = 0.0703 (Fagerland et al. 2013)', () => {
    expect(mcnemarExact(1, 7)).toBeCloseTo(0.0703, 4);
    expect(mcnemarExact(7, 1)).toBeCloseTo(0.0703, 4);
  });
  it('textbook edges: no discordant pairs, all one way, balanced', () => {
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(5, 5)).toBe(1);
    expect(mcnemarExact(0, 5)).toBeCloseTo(2 / 32, 12);
    expect(mcnemarExact(0, 6)).toBeCloseTo(2 / 64, 12);
    // Large counts, past where 0.5^n underflows.
    expect(mcnemarExact(600, 600)).toBe(1);
    expect(mcnemarExact(0, 2000)).toBe(0);
  });

  // Independent: exact binomial tails with BigInt binomial coefficients.
  const exactBig = (b: number, c: number): number => {
    const n = b + c;
    if (n === 0) return 1;
    let coef = 1n;
    let tail = 0n;
    for (let i = 0; i <= Math.min(b, c); i++) {
      tail += coef;
      coef = (coef * BigInt(n - i)) / BigInt(i + 1);
    }
    // 2·tail / 2^n, computed with enough digits.
    const scaled = (2n * tail * 10n ** 18n) / 2n ** BigInt(n);
    return Math.min(1, Number(scaled) / 1e18);
  };
  it('agrees with a BigInt binomial on 1,000 random (b, c)', () => {
    const random = seededRandom(7);
    for (let i = 0; i < 1000; i++) {
      const b = Math.floor(random() * 300);
      const c = Math.floor(random() * 300);
      expect(Math.abs(mcnemarExact(b, c) - exactBig(b, c))).toBeLessThan(1e-12);
    }
  });
});

const v = (sample: Verdict['sample_verdict'], extra: Partial<Verdict> = {}): Verdict => ({
  sample_verdict: sample,
  error_verdict: sample === 'nonexecutable' ? 'runtime_error' : null,
  url_verdict: sample === 'nonexecutable' ? null : 'correct',
  method_verdict: sample === 'nonexecutable' ? null : 'correct',
  endpoint_verdict: sample === 'nonexecutable' ? null : sample === 'illegal' ? 'illegal' : 'correct',
  arguments: {},
  ...extra,
});

describe('paired comparison of two runs', () => {
  it('a few differing samples are not significant; many are', () => {
    const base = Array.from({ length: 395 }, (_, i) => v(i < 150 ? 'correct' : 'wrong'));
    // Three samples fixed: b_only = 3, p = 0.25.
    const few = base.map((x, i) => (i >= 150 && i < 153 ? v('correct') : x));
    const fewTest = pairedComparison(base.map((x, i) => [x, few[i]!] as const)).samples_correct;
    expect(fewTest).toMatchObject({ both: 150, a_only: 0, b_only: 3, neither: 242 });
    expect(fewTest.p_value).toBeCloseTo(0.25, 12);
    // Forty fixed, five broken: p far below 0.05.
    const many = base.map((x, i) => (i >= 150 && i < 190 ? v('correct') : i < 5 ? v('wrong') : x));
    const manyTest = pairedComparison(base.map((x, i) => [x, many[i]!] as const)).samples_correct;
    expect(manyTest).toMatchObject({ a_only: 5, b_only: 40 });
    expect(manyTest.p_value).toBeLessThan(0.001);
  });
  it('tests every outcome and leaves out pairs with a missing verdict', () => {
    const t = pairedComparison([
      [v('correct'), v('nonexecutable')],
      [v('illegal'), v('illegal')],
      [null, v('correct')],
    ]);
    expect(Object.keys(t).sort()).toEqual(['methods_correct', 'samples_correct', 'samples_executable', 'samples_illegal', 'urls_correct']);
    expect(t.samples_executable).toMatchObject({ both: 1, a_only: 1, b_only: 0, neither: 0 });
    // Illegal (e) pairs only the samples executable in both runs: the first pair is left out.
    expect(t.samples_illegal).toMatchObject({ both: 1, a_only: 0, b_only: 0, neither: 0 });
  });
});

describe('intervals of a run', () => {
  it('every sample-level proportion has its counts and Wilson interval; an undefined rate has n = 0', () => {
    const stats = computeStatistics([v('nonexecutable'), v('nonexecutable'), v('nonexecutable')]);
    const counts = proportionsOf(stats);
    expect(counts['samples_illegal_wrt_executable']).toEqual({ k: 0, n: 0 });
    expect(counts['samples_correct_wrt_total']).toEqual({ k: 0, n: 3 });
    expect(counts['urls_correct_wrt_executable']).toEqual({ k: 0, n: 0 });
    expect(counts['errors_runtime_error_wrt_errors']).toEqual({ k: 3, n: 3 });
    const intervals = proportionIntervals(stats);
    expect(intervals['samples_illegal_wrt_executable']).toEqual([0, 1]);
    expect(intervals['samples_correct_wrt_total']![1]).toBeCloseTo(0.5615, 4);
    // Every (t) and (e) rate of samples, URLs, methods and endpoints.
    for (const part of ['samples', 'urls', 'methods', 'endpoints']) for (const verdict of ['correct', 'illegal']) for (const of of ['total', 'executable']) expect(intervals[`${part}_${verdict}_wrt_${of}`]).toBeDefined();
  });

  const args = (verdicts: Record<string, 'correct' | 'incorrect_value' | 'missing' | 'unnecessary' | 'illegal'>): Verdict['arguments'] => ({
    params: Object.fromEntries(Object.entries(verdicts).map(([k, verdict]) => [k, { expected: verdict === 'unnecessary' || verdict === 'illegal' ? null : 1, actual: verdict === 'missing' ? null : 1, verdict }])),
  });
  const random = seededRandom(3);
  const kinds = ['correct', 'incorrect_value', 'missing', 'unnecessary', 'illegal'] as const;
  const randomRun = (n: number): Verdict[] =>
    Array.from({ length: n }, () => {
      const a: Record<string, (typeof kinds)[number]> = {};
      for (let i = 0; i < Math.floor(random() * 4); i++) a[`p${i}`] = kinds[Math.floor(random() * kinds.length)]!;
      const kind = random() < 0.15 ? 'nonexecutable' : random() < 0.5 ? 'correct' : 'wrong';
      return v(kind, { arguments: args(kind === 'nonexecutable' ? Object.fromEntries(Object.keys(a).map((k) => [k, 'missing'])) : a) });
    });

  it('the bootstrap of each mean argument metric is seeded, holds the statistic, and is the statistic recomputed on resamples', () => {
    const run = randomRun(200);
    const stats = computeStatistics(run);
    const a = meanMetricIntervals(run);
    expect(meanMetricIntervals(run)).toEqual(a);
    expect(Object.keys(a).sort()).toEqual(
      [
        'argument_name_mean_jaccard_wrt_executable', 'argument_name_mean_jaccard_wrt_total', 'argument_name_mean_precision_wrt_executable', 'argument_name_mean_precision_wrt_total',
        'argument_name_mean_recall_wrt_executable', 'argument_name_mean_recall_wrt_total', 'argument_value_mean_accuracy_wrt_all_executable', 'argument_value_mean_accuracy_wrt_all_total',
        'argument_value_mean_accuracy_wrt_correct_executable', 'argument_value_mean_accuracy_wrt_correct_total', 'argument_value_mean_accuracy_wrt_expected_executable', 'argument_value_mean_accuracy_wrt_expected_total',
      ].sort(),
    );
    for (const [name, [low, high]] of Object.entries(a)) {
      const point = (stats[name] as Record<string, number>)['all']!;
      expect(low, name).toBeLessThanOrEqual(point);
      expect(high, name).toBeGreaterThanOrEqual(point);
      expect(high - low, name).toBeGreaterThan(0);
    }
    // One resample with every unit once is the statistic itself: the per-sample parts add up to computeStatistics'.
    const identity = bootstrapRatio([[1, 1], [0, 1], [3, 0]], { seed: 5, resamples: 1, method: 'percentile' });
    expect(identity).not.toBeNull();
    expect(uncertaintyOf(stats, run).bootstrap).toEqual({ seed: 1, resamples: 2000, method: 'percentile' });
  });

  it('pass@k is Chen et al.\'s unbiased estimator: brute force over every k-subset agrees', () => {
    const choose = (n: number, k: number): number => (k < 0 || k > n ? 0 : Array.from({ length: k }, (_, i) => (n - i) / (i + 1)).reduce((a, b) => a * b, 1));
    for (let n = 1; n <= 12; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++) {
          // P(at least one correct in a random k-subset) = 1 - C(n-c, k)/C(n, k).
          expect(passAtK(n, c, k)).toBeCloseTo(1 - choose(n - c, k) / choose(n, k), 12);
        }
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    const tasks = [Array.from({ length: 10 }, (_, i) => v(i < 3 ? 'correct' : 'wrong')), Array.from({ length: 10 }, () => v('wrong'))];
    const p = passAtKOf(tasks);
    expect(Object.keys(p)).toEqual(['1', '5', '10']);
    expect(p['1']).toBeCloseTo(0.15, 12);
    expect(p['10']).toBeCloseTo(0.5, 12);
    expect(passAtKOf([[v('correct')]])).toEqual({});
    expect(Object.keys(passAtKOf([Array.from({ length: 6 }, () => v('correct'))]))).toEqual(['1', '5']);
  });
});
