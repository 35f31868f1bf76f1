import type { Verdict } from './verdicts.js';

/** The outputs of one run, by sample position (one verdict, or one per attempt). */
export type RunVerdicts = Readonly<Record<string, Verdict | readonly Verdict[]>>;

const outputs = (v: Verdict | readonly Verdict[] | undefined): readonly Verdict[] => (v === undefined ? [] : Array.isArray(v) ? v : [v as Verdict]);
const solved = (v: Verdict | readonly Verdict[] | undefined): boolean => outputs(v).some((o) => o.sample_verdict === 'correct');

/**
 * NovelAPIBench's gate for one model, for web APIs: the samples it fails without knowledge and
 * solves with it. "Fails" means none of its outputs in `without` is correct (and it has some);
 * "solves" means at least one of its outputs in `with` is. Sample positions, ascending.
 */
export function failedWithoutSolvedWith(without: RunVerdicts, withKnowledge: RunVerdicts): number[] {
  return Object.keys(without)
    .filter((index) => outputs(without[index]).length > 0 && !solved(without[index]) && solved(withKnowledge[index]))
    .map(Number)
    .sort((a, b) => a - b);
}
