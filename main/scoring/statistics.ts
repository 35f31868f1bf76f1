import type { Verdict } from './verdicts.js';

/** Counts per argument location, plus `all` when any location has a count (the reference's Counter). */
export type LocationCounts = Record<string, number>;

type Counter = Map<string, number>;
const add = (target: Counter, source: Counter): void => {
  for (const [k, v] of source) target.set(k, (target.get(k) ?? 0) + v);
};
const keysOf = (c: Counter): Counter => new Map([...c].filter(([, v]) => v > 0).map(([k]) => [k, 1]));
const withAll = (c: Counter): Counter => {
  const positive = new Map([...c].filter(([, v]) => v > 0));
  if (positive.size > 0) positive.set('all', [...positive.values()].reduce((a, b) => a + b, 0));
  return positive;
};
const divide = (num: Counter, den: Counter): LocationCounts => {
  const out: LocationCounts = {};
  for (const k of new Set([...num.keys(), ...den.keys()])) {
    const d = den.get(k) ?? 0;
    out[k] = d === 0 ? 0 : (num.get(k) ?? 0) / d;
  }
  return out;
};
const plain = (c: Counter): LocationCounts => Object.fromEntries([...c].filter(([, v]) => v !== 0));

interface SampleCounts {
  all: Counter;
  expected: Counter;
  unexpected: Counter;
  correctName: Counter;
  correctValue: Counter;
  missing: Counter;
  unnecessary: Counter;
  illegal: Counter;
}

function countArguments(verdict: Verdict): SampleCounts {
  const c: SampleCounts = { all: new Map(), expected: new Map(), unexpected: new Map(), correctName: new Map(), correctValue: new Map(), missing: new Map(), unnecessary: new Map(), illegal: new Map() };
  const inc = (m: Counter, k: string): void => void m.set(k, (m.get(k) ?? 0) + 1);
  for (const [location, args] of Object.entries(verdict.arguments)) {
    for (const r of Object.values(args ?? {})) {
      inc(c.all, location);
      if (r.verdict === 'correct' || r.verdict === 'incorrect_value') {
        inc(c.expected, location);
        inc(c.correctName, location);
        if (r.verdict === 'correct') inc(c.correctValue, location);
      } else if (r.verdict === 'missing') {
        inc(c.expected, location);
        inc(c.missing, location);
      } else {
        inc(c.unexpected, location);
        inc(r.verdict === 'unnecessary' ? c.unnecessary : c.illegal, location);
      }
    }
  }
  for (const key of Object.keys(c) as (keyof SampleCounts)[]) c[key] = withAll(c[key]);
  return c;
}

const sumCounters = (a: Counter, b: Counter): Counter => {
  const out = new Map(a);
  add(out, b);
  return out;
};

/** The reference's per-sample argument metrics (precision, recall, Jaccard, value accuracies) by location. */
export interface SampleMetrics {
  readonly counts: SampleCounts;
  readonly precision: LocationCounts;
  readonly recall: LocationCounts;
  readonly jaccard: LocationCounts;
  readonly valueAccuracyWrtAll: LocationCounts;
  readonly valueAccuracyWrtExpected: LocationCounts;
  readonly valueAccuracyWrtCorrectName: LocationCounts;
}

export function sampleMetrics(verdict: Verdict): SampleMetrics {
  const counts = countArguments(verdict);
  if (verdict.sample_verdict === 'nonexecutable') {
    // Nothing retrieved: every metric is 0 (not NaN), and the expected arguments count as missing.
    return { counts, precision: {}, recall: {}, jaccard: {}, valueAccuracyWrtAll: {}, valueAccuracyWrtExpected: {}, valueAccuracyWrtCorrectName: {} };
  }
  const retrieved = sumCounters(counts.correctName, counts.unexpected);
  return {
    counts,
    precision: divide(counts.correctName, retrieved),
    recall: divide(counts.correctName, counts.expected),
    jaccard: divide(counts.correctName, counts.all),
    valueAccuracyWrtAll: divide(counts.correctValue, counts.all),
    valueAccuracyWrtExpected: divide(counts.correctValue, counts.expected),
    valueAccuracyWrtCorrectName: divide(counts.correctValue, counts.correctName),
  };
}

export type Statistics = Record<string, number | LocationCounts>;

/** The requests a sample's verdicts stand for: its own, or each of its steps' (a missing step: a nonexecutable request). */
const requestVerdicts = (verdicts: readonly Verdict[]): readonly Verdict[] => verdicts.flatMap((v) => (v.steps ? v.steps.map((s) => s.verdict) : [v]));

/**
 * Every statistic of a run under the reference's names (`samples_correct_wrt_total`, ...).
 * `samples_*` and `errors_*` count sample verdicts, one per task; URL, method, endpoint and
 * argument statistics count requests: a multi-step sample's steps each (scoring.md §7). A run with
 * multi-step samples adds the request counts those divide (`requests_total`, `requests_executable`),
 * `steps_total`, `steps_correct`, `steps_correct_wrt_total`, `extra_requests`, `carried_*` and,
 * by step index, how many samples first failed there (`first_failed_step`).
 */
export function computeStatistics(verdicts: readonly Verdict[]): Statistics {
  const ratio = (x: number, d: number): number => (d === 0 ? 0 : x / d);
  const n = verdicts.length;
  const e = verdicts.filter((v) => v.sample_verdict !== 'nonexecutable').length;
  const samples = {
    correct: verdicts.filter((v) => v.sample_verdict === 'correct').length,
    wrong: verdicts.filter((v) => v.sample_verdict === 'wrong').length,
    illegal: verdicts.filter((v) => v.sample_verdict === 'illegal').length,
    nonexecutable: n - e,
  };
  const errorCount = (kind: string): number => verdicts.filter((v) => v.error_verdict === kind).length;
  const errors = { total: n - e, timeout: errorCount('timeout'), unsatisfiable: errorCount('unsatisfiable'), no_request: errorCount('no_request'), incomplete_request: errorCount('incomplete_request'), runtime_error: errorCount('runtime_error') };
  const stats: Statistics = {
    samples_total: n,
    samples_executable: e,
    samples_correct: samples.correct,
    samples_wrong: samples.wrong,
    samples_illegal: samples.illegal,
    samples_nonexecutable: samples.nonexecutable,
    samples_executable_wrt_total: ratio(e, n),
    samples_correct_wrt_total: ratio(samples.correct, n),
    samples_correct_wrt_executable: ratio(samples.correct, e),
    samples_wrong_wrt_total: ratio(samples.wrong, n),
    samples_wrong_wrt_executable: ratio(samples.wrong, e),
    samples_illegal_wrt_total: ratio(samples.illegal, n),
    samples_illegal_wrt_executable: ratio(samples.illegal, e),
    errors_total: errors.total,
  };
  for (const kind of ['timeout', 'unsatisfiable', 'no_request', 'incomplete_request', 'runtime_error'] as const) stats[`errors_${kind}`] = errors[kind];
  stats['errors_total_wrt_samples'] = ratio(errors.total, n);
  for (const kind of ['timeout', 'unsatisfiable', 'no_request', 'incomplete_request', 'runtime_error'] as const) {
    stats[`errors_${kind}_wrt_samples`] = ratio(errors[kind], n);
    stats[`errors_${kind}_wrt_errors`] = ratio(errors[kind], errors.total);
  }
  const multi = verdicts.filter((v) => v.steps !== undefined);
  const requests = requestVerdicts(verdicts);
  if (multi.length > 0) {
    const sum = (pick: (v: Verdict) => number | undefined): number => multi.reduce((total, v) => total + (pick(v) ?? 0), 0);
    const stepsTotal = sum((v) => v.steps_total);
    const stepsCorrect = sum((v) => v.steps_correct);
    const firstFailed: LocationCounts = {};
    for (const v of multi) if (v.first_failed_step !== null && v.first_failed_step !== undefined) firstFailed[String(v.first_failed_step)] = (firstFailed[String(v.first_failed_step)] ?? 0) + 1;
    Object.assign(stats, {
      requests_total: requests.length,
      requests_executable: requests.filter((v) => v.sample_verdict !== 'nonexecutable').length,
      samples_multistep: multi.length,
      // The task rate of the multi-step samples alone (samples_correct_wrt_total counts every sample of a mixed run).
      samples_multistep_correct: multi.filter((v) => v.sample_verdict === 'correct').length,
      samples_multistep_correct_wrt_multistep: ratio(multi.filter((v) => v.sample_verdict === 'correct').length, multi.length),
      steps_total: stepsTotal,
      steps_correct: stepsCorrect,
      steps_missing: sum((v) => v.steps_missing),
      steps_correct_wrt_total: ratio(stepsCorrect, stepsTotal),
      extra_requests: sum((v) => v.extra_requests),
      carried_total: sum((v) => v.carried_total),
      carried_correct: sum((v) => v.carried_correct),
      carried_correct_wrt_total: ratio(sum((v) => v.carried_correct), sum((v) => v.carried_total)),
      first_failed_step: firstFailed,
    });
  }
  return Object.assign(stats, requestStatistics(requests));
}

/** URL, method, endpoint and argument statistics over requests (a single sample's, or each step of a multi-step one). */
function requestStatistics(verdicts: readonly Verdict[]): Statistics {
  const n = verdicts.length;
  const count = (pred: (v: Verdict) => boolean): number => verdicts.filter(pred).length;
  const e = verdicts.filter((v) => v.sample_verdict !== 'nonexecutable').length;
  const ratio = (x: number, d: number): number => (d === 0 ? 0 : x / d);

  const agg = {
    allTotal: new Map() as Counter, allExec: new Map() as Counter, expectedTotal: new Map() as Counter, expectedExec: new Map() as Counter,
    unexpected: new Map() as Counter, correctName: new Map() as Counter, correctValue: new Map() as Counter, missingTotal: new Map() as Counter,
    missingExec: new Map() as Counter, unnecessary: new Map() as Counter, illegal: new Map() as Counter,
    precision: new Map() as Counter, recall: new Map() as Counter, jaccard: new Map() as Counter, accAll: new Map() as Counter, accExpected: new Map() as Counter, accCorrect: new Map() as Counter,
    locAllTotal: new Map() as Counter, locAllExec: new Map() as Counter, locExpectedTotal: new Map() as Counter, locExpectedExec: new Map() as Counter,
    locRetrievedExec: new Map() as Counter, locCorrectNameExec: new Map() as Counter,
  };
  const toCounter = (c: LocationCounts): Counter => new Map(Object.entries(c));
  for (const v of verdicts) {
    const m = sampleMetrics(v);
    const c = m.counts;
    if (v.sample_verdict !== 'nonexecutable') {
      add(agg.allExec, c.all);
      add(agg.expectedExec, c.expected);
      add(agg.unexpected, c.unexpected);
      add(agg.correctName, c.correctName);
      add(agg.correctValue, c.correctValue);
      add(agg.missingExec, c.missing);
      add(agg.unnecessary, c.unnecessary);
      add(agg.illegal, c.illegal);
      add(agg.locAllExec, keysOf(c.all));
      add(agg.locExpectedExec, keysOf(c.expected));
      add(agg.locCorrectNameExec, keysOf(c.correctName));
      add(agg.locRetrievedExec, keysOf(sumCounters(c.unexpected, c.correctName)));
    }
    add(agg.allTotal, c.all);
    add(agg.expectedTotal, c.expected);
    add(agg.missingTotal, c.missing);
    add(agg.precision, toCounter(m.precision));
    add(agg.recall, toCounter(m.recall));
    add(agg.jaccard, toCounter(m.jaccard));
    add(agg.accAll, toCounter(m.valueAccuracyWrtAll));
    add(agg.accExpected, toCounter(m.valueAccuracyWrtExpected));
    add(agg.accCorrect, toCounter(m.valueAccuracyWrtCorrectName));
    add(agg.locAllTotal, keysOf(c.all));
    add(agg.locExpectedTotal, keysOf(c.expected));
  }
  const retrievedTotal = sumCounters(agg.correctName, agg.unexpected);

  const stats: Statistics = {};
  for (const part of ['url', 'method', 'endpoint'] as const) {
    const key = `${part}_verdict` as const;
    for (const verdict of ['correct', 'wrong', 'illegal'] as const) {
      const k = count((v) => v[key] === verdict);
      stats[`${part}s_${verdict}`] = k;
      stats[`${part}s_${verdict}_wrt_total`] = ratio(k, n);
      stats[`${part}s_${verdict}_wrt_executable`] = ratio(k, e);
    }
  }
  Object.assign(stats, {
    arguments_all_total: plain(agg.allTotal),
    arguments_all_executable: plain(agg.allExec),
    arguments_expected_total: plain(agg.expectedTotal),
    arguments_expected_executable: plain(agg.expectedExec),
    arguments_unexpected: plain(agg.unexpected),
    arguments_correct_name: plain(agg.correctName),
    arguments_correct_value: plain(agg.correctValue),
    arguments_missing_total: plain(agg.missingTotal),
    arguments_missing_executable: plain(agg.missingExec),
    arguments_unnecessary: plain(agg.unnecessary),
    arguments_illegal: plain(agg.illegal),
    arguments_unexpected_wrt_all_total: divide(agg.unexpected, agg.allTotal),
    arguments_unexpected_wrt_all_executable: divide(agg.unexpected, agg.allExec),
    arguments_correct_name_wrt_expected_total: divide(agg.correctName, agg.expectedTotal),
    arguments_correct_name_wrt_expected_executable: divide(agg.correctName, agg.expectedExec),
    arguments_correct_value_wrt_expected_total: divide(agg.correctValue, agg.expectedTotal),
    arguments_correct_value_wrt_expected_executable: divide(agg.correctValue, agg.expectedExec),
    arguments_unnecessary_wrt_all_total: divide(agg.unnecessary, agg.allTotal),
    arguments_unnecessary_wrt_all_executable: divide(agg.unnecessary, agg.allExec),
    arguments_missing_wrt_expected_total: divide(agg.missingTotal, agg.expectedTotal),
    arguments_missing_wrt_expected_executable: divide(agg.missingExec, agg.expectedExec),
    arguments_illegal_wrt_all_total: divide(agg.illegal, agg.allTotal),
    arguments_illegal_wrt_all_executable: divide(agg.illegal, agg.allExec),
    argument_name_sum_precision_wrt_total: divide(agg.correctName, retrievedTotal),
    argument_name_sum_precision_wrt_executable: divide(agg.correctName, retrievedTotal),
    argument_name_sum_recall_wrt_total: divide(agg.correctName, agg.expectedTotal),
    argument_name_sum_recall_wrt_executable: divide(agg.correctName, agg.expectedExec),
    argument_name_sum_jaccard_wrt_total: divide(agg.correctName, agg.allTotal),
    argument_name_sum_jaccard_wrt_executable: divide(agg.correctName, agg.allExec),
    argument_value_sum_accuracy_wrt_all_total: divide(agg.correctValue, agg.allTotal),
    argument_value_sum_accuracy_wrt_all_executable: divide(agg.correctValue, agg.allExec),
    argument_value_sum_accuracy_wrt_expected_total: divide(agg.correctValue, agg.expectedTotal),
    argument_value_sum_accuracy_wrt_expected_executable: divide(agg.correctValue, agg.expectedExec),
    argument_value_sum_accuracy_wrt_correct_total: divide(agg.correctValue, agg.correctName),
    argument_value_sum_accuracy_wrt_correct_executable: divide(agg.correctValue, agg.correctName),
    argument_name_mean_precision_wrt_total: divide(agg.precision, agg.locRetrievedExec),
    argument_name_mean_precision_wrt_executable: divide(agg.precision, agg.locRetrievedExec),
    argument_name_mean_recall_wrt_total: divide(agg.recall, agg.locExpectedTotal),
    argument_name_mean_recall_wrt_executable: divide(agg.recall, agg.locExpectedExec),
    argument_name_mean_jaccard_wrt_total: divide(agg.jaccard, agg.locAllTotal),
    argument_name_mean_jaccard_wrt_executable: divide(agg.jaccard, agg.locAllExec),
    argument_value_mean_accuracy_wrt_all_total: divide(agg.accAll, agg.locAllTotal),
    argument_value_mean_accuracy_wrt_all_executable: divide(agg.accAll, agg.locAllExec),
    argument_value_mean_accuracy_wrt_expected_total: divide(agg.accExpected, agg.locExpectedTotal),
    argument_value_mean_accuracy_wrt_expected_executable: divide(agg.accExpected, agg.locExpectedExec),
    argument_value_mean_accuracy_wrt_correct_total: divide(agg.accCorrect, agg.locCorrectNameExec),
    argument_value_mean_accuracy_wrt_correct_executable: divide(agg.accCorrect, agg.locCorrectNameExec),
  });
  return stats;
}

/** The paper's headline table (main/api/constants.ts, where the renderer reads it too). */
export { HEADLINE } from '../api/constants.js';

export function headlineValue(stats: Statistics, key: string, location = 'all'): number {
  const v = stats[key];
  return typeof v === 'number' ? v : (v?.[location] ?? 0);
}

/** The statistics of a run and of each API in it (APIs in name order). */
export function statisticsPerApi(items: readonly { readonly api: string; readonly verdict: Verdict }[]): { statistics: Statistics; perApi: Record<string, Statistics> } {
  const perApi: Record<string, Statistics> = {};
  for (const api of [...new Set(items.map((s) => s.api))].sort()) perApi[api] = computeStatistics(items.filter((s) => s.api === api).map((s) => s.verdict));
  return { statistics: computeStatistics(items.map((s) => s.verdict)), perApi };
}
