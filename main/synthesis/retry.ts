// One retry policy for runs and synthesis: defined with the provider HTTP layer.
export { DEFAULT_RETRY, withRetry, type RetryPolicy } from '../providers/retry.js';
