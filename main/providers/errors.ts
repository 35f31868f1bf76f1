/**
 * The one error family of every model caller (runs and synthesis alike): a failed call, a call
 * that must stop the run, and an answer that came back but cannot be used.
 */

/**
 * A failed call. `retryable` for 429 and 5xx (and lost connections); `retryAfterMs` when the
 * server said how long to wait (`Retry-After`).
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/**
 * An error no retry or other sample can fix: the key is refused, the quota is spent, the
 * spending cap is reached. The run stops and ends `failed` with this one line.
 */
export class FatalProviderError extends ProviderError {
  constructor(message: string, status?: number) {
    super(message, status, false);
    this.name = 'FatalProviderError';
  }
}

/**
 * The server answered, but the answer cannot be used: not JSON, JSON without the expected fields,
 * usage that is not a count of tokens, larger than the answer cap, or a body still trickling in
 * at the time limit. The same server is not asked again for this output (it would likely answer
 * the same, and a lying usage would be paid twice); a pool hands the output to another member.
 */
export class UnusableAnswerError extends ProviderError {
  constructor(message: string, status?: number) {
    super(message, status, false);
    this.name = 'UnusableAnswerError';
  }
}

/** `Retry-After`: seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;
