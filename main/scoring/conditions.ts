import type { FailureCounts } from './taxonomy.js';

/** One run of a knowledge-condition comparison, as measured. */
export interface ConditionRun {
  readonly run: number;
  readonly knowledge: string;
  /** The cell of the paper's grid it ran in (`full/unconstrained`); gains compare within a cell. */
  readonly cell: string;
  readonly outputs: number;
  /** `samples_correct_wrt_total` and `samples_illegal_wrt_executable`. */
  readonly correct: number;
  readonly illegal: number;
  readonly failures: FailureCounts;
}

export interface ConditionRow extends ConditionRun {
  /** Correct (t) minus that of the `none` run of the same cell (the latest, when several); null when there is none. */
  readonly gain: number | null;
}

/**
 * The gain of each condition over `none`: the `none` run of the same grid cell is the baseline,
 * so a grid of setups × conditions compares knowledge, not setups. Used by `wapii conditions` and
 * the service's compareConditions alike.
 */
export function conditionRows(runs: readonly ConditionRun[]): ConditionRow[] {
  const baseline = new Map<string, ConditionRun>();
  for (const r of runs) if (r.knowledge === 'none' && (baseline.get(r.cell)?.run ?? -1) < r.run) baseline.set(r.cell, r);
  return runs.map((r) => {
    const none = baseline.get(r.cell);
    return { ...r, gain: none ? r.correct - none.correct : null };
  });
}
