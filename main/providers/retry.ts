/** The one retry policy of every model caller: exponential backoff, and a Retry-After obeyed up to a cap. */
import pRetry from 'p-retry';
import { ProviderError } from './errors.js';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  readonly retries: number;
  /** First backoff in ms; doubled each retry (randomised), up to `maxDelayMs`. */
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  /** A `Retry-After` longer than this is cut to it, so a job never stalls for hours. */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { retries: 5, minDelayMs: 1000, maxDelayMs: 60_000, maxRetryAfterMs: 300_000 };

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Calls `attempt` until it succeeds, retrying a retryable ProviderError (429, 5xx, lost
 * connection) with exponential backoff. p-retry has no notion of `Retry-After`, so when the
 * server sent one the wait is at least that long: it is slept before p-retry's own backoff.
 */
export async function withRetry<T>(attempt: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal, onRetry?: (error: ProviderError, attempt: number) => void): Promise<T> {
  return pRetry(attempt, {
    retries: policy.retries,
    factor: 2,
    minTimeout: policy.minDelayMs,
    maxTimeout: policy.maxDelayMs,
    randomize: true,
    ...(signal ? { signal } : {}),
    shouldRetry: ({ error }) => error instanceof ProviderError && error.retryable && !signal?.aborted,
    onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
      if (!(error instanceof ProviderError) || !error.retryable || retriesLeft === 0) return;
      onRetry?.(error, attemptNumber);
      if (error.retryAfterMs !== undefined) await sleep(Math.min(error.retryAfterMs, policy.maxRetryAfterMs), signal);
    },
  });
}
