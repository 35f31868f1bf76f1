import type { JsonValue } from '../api/schemas.js';
import type { ArgumentLocation } from '../openapi/index.js';

/** Why a sample produced no request to score (scoring.md §4). */
export type ErrorVerdict = 'timeout' | 'unsatisfiable' | 'no_request' | 'incomplete_request' | 'runtime_error';
export type SampleVerdict = 'correct' | 'wrong' | 'illegal' | 'nonexecutable';
export type PartVerdict = 'correct' | 'wrong' | 'illegal';
export type ArgumentVerdict = 'correct' | 'incorrect_value' | 'missing' | 'unnecessary' | 'illegal';

export interface ArgumentResult {
  readonly expected: JsonValue | null;
  readonly actual: JsonValue | null;
  readonly verdict: ArgumentVerdict;
}

export type ArgumentResults = Partial<Record<ArgumentLocation, Record<string, ArgumentResult>>>;

/**
 * The verdicts of one sample, named as in the reference's results. A multi-step sample's
 * (scoring.md §7) carries its steps' verdicts and counts beside them; its own URL, method and
 * endpoint verdicts are null and its arguments empty (they are its steps').
 */
export interface Verdict extends Partial<StepCounts> {
  readonly sample_verdict: SampleVerdict;
  readonly error_verdict: ErrorVerdict | null;
  readonly url_verdict: PartVerdict | null;
  readonly method_verdict: PartVerdict | null;
  readonly endpoint_verdict: PartVerdict | null;
  readonly arguments: ArgumentResults;
}

/** One step's result: the captured request it took (its position among the program's captured requests; null: missing) and its §4 verdicts. */
export interface StepResult {
  readonly request: number | null;
  readonly verdict: Verdict;
}

/** What scoring.md §7 adds beside a multi-step sample's verdicts. */
export interface StepCounts {
  readonly steps: readonly StepResult[];
  readonly steps_total: number;
  readonly steps_correct: number;
  readonly steps_missing: number;
  /** Captured requests no step took, by position. */
  readonly extra: readonly number[];
  readonly extra_requests: number;
  /** The first step that is not correct; null when every step is (even if an extra request made the sample wrong). */
  readonly first_failed_step: number | null;
  readonly carried_correct: number;
  readonly carried_total: number;
}

/** `default` follows scoring.md; `reference` reproduces the WAPIIBench code where the two differ. */
export type CompatMode = 'default' | 'reference';
