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

/** The verdicts of one sample, named as in the reference's results. */
export interface Verdict {
  readonly sample_verdict: SampleVerdict;
  readonly error_verdict: ErrorVerdict | null;
  readonly url_verdict: PartVerdict | null;
  readonly method_verdict: PartVerdict | null;
  readonly endpoint_verdict: PartVerdict | null;
  readonly arguments: ArgumentResults;
}

/** `default` follows scoring.md; `reference` reproduces the WAPIIBench code where the two differ. */
export type CompatMode = 'default' | 'reference';
