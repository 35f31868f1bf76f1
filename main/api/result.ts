/**
 * Errors that cross module boundaries are values. One code union, one message a user can act on
 * (tRPC's TRPCError{code} is the model).
 */
export type ErrorCode =
  | 'bad_input' // the user's file, flag or request is wrong; the message says how
  | 'not_found' // a named dataset, sample, run or file does not exist
  | 'conflict' // the request clashes with what is stored (e.g. nothing to undo)
  | 'unauthorized' // serve mode: missing or wrong access token
  | 'internal'; // a bug; details are logged, never shown raw

export interface ErrorInfo {
  readonly code: ErrorCode;
  readonly message: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ErrorInfo };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = <T = never>(code: ErrorCode, message: string): Result<T> => ({ ok: false, error: { code, message } });

/** Thrown by service methods; transports turn it into `{code, message}`. */
export class WapiiError extends Error implements ErrorInfo {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'WapiiError';
  }
  static from(error: ErrorInfo): WapiiError {
    return new WapiiError(error.code, error.message);
  }
}

/** A broken invariant inside the workbench — never used for bad user input (VS Code's BugIndicatingError). */
export class BugError extends Error {
  constructor(message: string) {
    super(`bug: ${message}`);
    this.name = 'BugError';
  }
}

/** Unwraps a result inside a service method: a failure becomes a thrown WapiiError. */
export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw WapiiError.from(result.error);
  return result.value;
}
