import type { Setup } from '../api/setup.js';
import type { Vocabulary } from '../gguf/index.js';

/**
 * What generation needs of the constraints, and no more: the runner makes a Constrainer from the
 * run's specs (main/runner/constrainer.ts, on main/constraints) and hands it to a backend as
 * `constrainBy`, so generation imports no other stage.
 */

/** The setup a constraint is made for: the starter, where its call starts, the names in scope there. */
export type ConstrainedSetup = Pick<Setup, 'starter' | 'callStart' | 'definitions'>;

/**
 * A token constraint as the local decoder drives it (main/constraints' TokenConstraint is one):
 * one pick checked, a token taken, the full mask where a pick was refused.
 */
export interface DecodingConstraint {
  /** Whether `token` may come next. */
  check(token: number): boolean;
  /** Appends a token; false (and nothing changed) when it is not allowed. */
  advance(token: number): boolean;
  /** The tokens allowed next, one bit per token id. */
  mask(): Uint32Array;
  readonly vocabularySize: number;
  /** The bytes of a character the tokens so far began and did not finish (empty when none). */
  readonly pendingBytes: Uint8Array;
  /** Where the text stands: whether no invocation is open, and the shortest text that closes the one that is. */
  readonly state: { isComplete(): boolean; completion(): string | undefined };
}

/** One decoding sequence's token constraints: kept from sample to sample, so memoised masks carry over. */
export interface SequenceConstraints {
  /**
   * The token constraint for a sample, standing where the model writes: the starter fed from its
   * call on, the names in scope there in its language. Throws where the API has no spec, or where
   * the starter does not open an invocation the constraints accept.
   */
  atCall(api: string, setup: ConstrainedSetup): DecodingConstraint;
  /**
   * A multi-step program's constraint between calls (`first`: atCall's): for the text so far, the
   * one whose language has the names the program declared since.
   */
  betweenCalls(api: string, setup: ConstrainedSetup, first: DecodingConstraint): (text: string) => DecodingConstraint;
}

/** How a run constrains the invocations of its APIs, per API and setup. */
export interface Constrainer {
  /** The local decoder: one sequence's token constraints over the model's vocabulary. */
  tokens(vocabulary: Vocabulary): SequenceConstraints;
  /** A constrained multi-step program's text, cut back to where it parses (`closing`: what closes the starter's function). */
  cutWhereItParses(api: string, setup: ConstrainedSetup, closing: string): (text: string) => string;
  /** Servers and providers that take a grammar: the API's GBNF for the names in scope at the call. Throws where the API has no spec. */
  grammar(api: string, setup: ConstrainedSetup): string;
  /**
   * The shortest text that closes the invocation `text` left open after the starter; undefined
   * where none is open, or where the text left the language.
   */
  closing(api: string, setup: ConstrainedSetup, text: string): string | undefined;
}
