import { LOCATION_ROWS } from '../api/constants.js';
import { RepairRoundSchema, type RunDetail } from '../api/evaluation.js';
import type { Output } from '../api/contract.js';
import type { Headline, RepairReport, ReportUncertainty } from '../api/reports.js';
import { WapiiError } from '../api/result.js';
import { reportOf } from '../runner/index.js';
import { BOOTSTRAP, HEADLINE, headlineValue, passAtKOf, proportionIntervals, proportionsOf, uncertaintyOf, type Statistics, type Verdict } from '../scoring/index.js';
import type { Store, StoredRun } from '../store/index.js';

/**
 * Beside `statistics` in every report the command line prints: `intervals` (Wilson 95% for every
 * sample-level rate, seeded bootstrap for the mean argument metrics), `counts` (k/n each rate
 * divides: n = 0 is an undefined rate that the reference writes as 0), the bootstrap's settings,
 * Wilson intervals per API, and pass@k when every sample has several outputs.
 */
export function uncertaintyJson(report: { statistics: Statistics; per_api: Readonly<Record<string, Statistics>>; samples: Readonly<Record<string, Verdict | readonly Verdict[]>> }): ReportUncertainty {
  const tasks = Object.values(report.samples).map((v) => (Array.isArray(v) ? (v as readonly Verdict[]) : [v as Verdict]));
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

/** The numbers of the paper's headline table (the run, then each API) and of the per-location argument table. */
export function headlineOf(statistics: Statistics, perApi: Readonly<Record<string, Statistics>>): Headline {
  const keys = ['samples_total', ...HEADLINE.map(([, key]) => key)];
  const column = (name: string, stats: Statistics): Headline['columns'][number] => {
    const proportions = proportionsOf(stats);
    return {
      name,
      values: Object.fromEntries(keys.map((key) => [key, headlineValue(stats, key)])),
      of: Object.fromEntries(keys.flatMap((key) => (proportions[key] ? [[key, proportions[key]]] : []))),
    };
  };
  const locations = new Set<string>();
  for (const [, key] of LOCATION_ROWS) {
    const v = statistics[key];
    if (v && typeof v === 'object') for (const loc of Object.keys(v)) locations.add(loc);
  }
  return {
    columns: [column('all', statistics), ...Object.entries(perApi).map(([api, stats]) => column(api, stats))],
    locations: ['all', ...[...locations].filter((l) => l !== 'all').sort()].map((location) => ({ location, values: Object.fromEntries(LOCATION_ROWS.map(([, key]) => [key, headlineValue(statistics, key, location)])) })),
  };
}

const RepairRounds = RepairRoundSchema.array();

/**
 * A repair run's rounds per sample (an array per attempt when n > 1, as `samples` has them), as
 * the inspector shows them; absent for any other run, so its report is unchanged.
 */
export function repairJson(run: Pick<StoredRun, 'samples'>): { repair?: Record<string, RepairReport | RepairReport[]> } {
  const out: Record<string, RepairReport | RepairReport[]> = {};
  let any = false;
  for (const s of run.samples) {
    if (s.error !== undefined || s.verdict === null) continue;
    const stored = typeof s.generation === 'object' && s.generation !== null ? (s.generation as Record<string, unknown>)['repair'] : undefined;
    const parsed = RepairRounds.safeParse(stored ?? []);
    const rounds = parsed.success ? parsed.data : [];
    if (rounds.length > 0) any = true;
    const entry: RepairReport = { rounds_used: Math.max(0, rounds.length - 1), rounds: rounds.map((r) => ({ round: r.round, sample_verdict: r.verdict, error_verdict: r.error, feedback: r.feedback, tokens: r.tokens })) };
    const key = String(s.index);
    const prior = out[key];
    out[key] = prior === undefined ? entry : [...(Array.isArray(prior) ? prior : [prior]), entry];
  }
  return any ? { repair: out } : {};
}

/**
 * A stored run's report as `wapii report` and `run` print it: the metric tables from its stored
 * verdicts (errored outputs left out), its repair rounds, intervals, and the failure classes
 * getRun counts (overrides applied; older outputs classified and stored on the way).
 */
export async function runReport(store: Store, getRun: (runId: number) => Promise<RunDetail>, runId: number): Promise<Output<'getRunReport'>> {
  const run = store.getRun(runId);
  if (!run) throw new WapiiError('not_found', `run ${runId} does not exist`);
  const report = reportOf(run);
  const failures = (await getRun(runId)).failures;
  return {
    run: { id: run.id, kind: run.kind, status: run.status, outputs: run.samples.length },
    report: { ...report, ...repairJson(run), ...uncertaintyJson(report), ...(failures ? { failures } : {}) },
    headline: headlineOf(report.statistics, report.per_api),
  };
}
