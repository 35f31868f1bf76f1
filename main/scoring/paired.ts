import type { Verdict } from './verdicts.js';

/**
 * The exact two-sided McNemar test: of the b + c discordant pairs, b went one way; under the null
 * each way is equally likely, so p = P(|X - (b+c)/2| >= |b - (b+c)/2|) for X ~ Binomial(b+c, 1/2),
 * i.e. twice the smaller tail, capped at 1. Exact rather than χ²: two runs of one model often
 * differ on a handful of samples, where the χ² approximation is poor (Fagerland et al. 2013).
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const low = Math.min(b, c);
  // Terms in log space: 0.5^n underflows past n = 1074, the tail terms need not.
  let logTerm = n * Math.log(0.5);
  let tail = Math.exp(logTerm);
  for (let i = 1; i <= low; i++) {
    logTerm += Math.log(n - i + 1) - Math.log(i);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}

/** A 2×2 table of paired outcomes and its exact McNemar p-value (a_only and b_only are the discordant pairs). */
export interface PairedTest {
  readonly both: number;
  readonly a_only: number;
  readonly b_only: number;
  readonly neither: number;
  readonly p_value: number;
}

export function pairedTest(pairs: readonly (readonly [a: boolean, b: boolean])[]): PairedTest {
  let both = 0;
  let aOnly = 0;
  let bOnly = 0;
  let neither = 0;
  for (const [a, b] of pairs) {
    if (a && b) both++;
    else if (a) aOnly++;
    else if (b) bOnly++;
    else neither++;
  }
  return { both, a_only: aOnly, b_only: bOnly, neither, p_value: mcnemarExact(aOnly, bOnly) };
}

/** The sample-level outcomes the paired comparison tests, named after the statistics they count. */
export const PAIRED_OUTCOMES = {
  samples_correct: (v: Verdict) => v.sample_verdict === 'correct',
  samples_executable: (v: Verdict) => v.sample_verdict !== 'nonexecutable',
  samples_illegal: (v: Verdict) => v.sample_verdict === 'illegal',
  urls_correct: (v: Verdict) => v.url_verdict === 'correct',
  methods_correct: (v: Verdict) => v.method_verdict === 'correct',
} as const satisfies Record<string, (v: Verdict) => boolean>;
export type PairedOutcome = keyof typeof PAIRED_OUTCOMES;

/**
 * Which statistic's delta each paired test carries (the Compare page marks that row). The (e)
 * statistics divide by the executable samples, so their tests pair only the samples executable
 * in both runs (PAIRED_OVER_EXECUTABLE): over all samples, a sample one run could not execute
 * counted as a discordant pair of a rate that leaves it out.
 */
export const PAIRED_STATISTIC: Record<PairedOutcome, string> = {
  samples_correct: 'samples_correct_wrt_total',
  samples_executable: 'samples_executable_wrt_total',
  samples_illegal: 'samples_illegal_wrt_executable',
  urls_correct: 'urls_correct_wrt_executable',
  methods_correct: 'methods_correct_wrt_executable',
};
export const PAIRED_OVER_EXECUTABLE: ReadonlySet<PairedOutcome> = new Set(['samples_illegal', 'urls_correct', 'methods_correct']);

/** The significance level the pages mark deltas at. */
export const ALPHA = 0.05;

/**
 * Tests two runs on the samples they share (already aligned by identity: the caller pairs them),
 * the (e) outcomes on those executable in both. A sample with no verdict in a run (its output
 * failed to generate) is left out of the pairs.
 */
export function pairedComparison(pairs: readonly (readonly [a: Verdict | null, b: Verdict | null])[]): Record<PairedOutcome, PairedTest> {
  const scored = pairs.filter((p): p is readonly [Verdict, Verdict] => p[0] !== null && p[1] !== null);
  const executable = scored.filter(([a, b]) => PAIRED_OUTCOMES.samples_executable(a) && PAIRED_OUTCOMES.samples_executable(b));
  const out = {} as Record<PairedOutcome, PairedTest>;
  for (const [name, outcome] of Object.entries(PAIRED_OUTCOMES) as [PairedOutcome, (v: Verdict) => boolean][])
    out[name] = pairedTest((PAIRED_OVER_EXECUTABLE.has(name) ? executable : scored).map(([a, b]) => [outcome(a), outcome(b)] as const));
  return out;
}
