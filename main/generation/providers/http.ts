import { isRetryableStatus, parseRetryAfter, ProviderError } from '../../synthesis/provider.js';
import { withRetry, type RetryPolicy } from '../../synthesis/retry.js';

export { ProviderError };

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

export const GENERATION_RETRY: RetryPolicy = { retries: 4, minDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };
/** A request with no answer after this long is abandoned (and retried). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;

export interface HttpOptions {
  /** The key a provider sends: cut out of every error message, whatever the server echoes back. */
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
}

export interface JsonAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

/** Whether a key may be sent to `url`: the provider's own host over https, or a server on this machine. */
export function mayCarryKey(url: string, officialHost?: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host)) return parsed.protocol === 'http:' || parsed.protocol === 'https:';
  if (officialHost !== undefined) return host === officialHost && parsed.protocol === 'https:';
  return parsed.protocol === 'https:';
}

/** The message a provider put in its error body (OpenAI, Anthropic and Gemini all use `error.message`). */
function errorMessage(body: unknown, text: string): string {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object' && 'message' in error && typeof (error as { message: unknown }).message === 'string') return (error as { message: string }).message;
  }
  return text.slice(0, 200).replace(/\s+/g, ' ');
}

/** A 429 that waiting does not fix: the account's quota or credit is spent (OpenAI `insufficient_quota`, Anthropic credit balance). */
const QUOTA = /insufficient_quota|quota|credit balance|billing/i;

/**
 * One JSON request to a provider: never follows a redirect (a call carrying a key is answered by
 * the origin it was sent to, or not at all), gives up after `timeoutMs`, answers a cancel at once
 * (the signal aborts the socket), and sorts failures: 401/403 and spent quota are fatal, 408, 429
 * (with its Retry-After) and 5xx and lost connections are retried, the rest fail this sample.
 */
export async function requestJson(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown; expect?: 'json' | 'text' },
  signal: AbortSignal,
  options: HttpOptions = {},
): Promise<JsonAnswer> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const where = new URL(url).origin + new URL(url).pathname;
  const once = async (): Promise<JsonAnswer> => {
    signal.throwIfAborted();
    const timeout = AbortSignal.timeout(timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method: init.method,
        // A FormData body (a file upload) sets its own multipart content type.
        headers: { ...(init.body !== undefined && !(init.body instanceof FormData) ? { 'content-type': 'application/json' } : {}), ...init.headers },
        ...(init.body !== undefined ? { body: init.body instanceof FormData ? init.body : JSON.stringify(init.body) } : {}),
        redirect: 'manual',
        signal: AbortSignal.any([signal, timeout]),
      });
      text = await response.text();
    } catch (error) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
      if (timeout.aborted) throw new ProviderError(`${where} did not answer within ${Math.round(timeoutMs / 100) / 10} s`, undefined, true);
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new ProviderError(`cannot reach ${where}: ${error instanceof Error ? error.message : String(error)}${cause}`, undefined, true);
    }
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location');
      const to = location ? new URL(location, url).origin : 'elsewhere';
      throw new FatalProviderError(`${where} answered ${response.status}, a redirect to ${to}; requests carrying a key do not follow redirects — give the base URL of the server that answers`, response.status);
    }
    let body: unknown;
    try {
      body = init.expect === 'text' && response.ok ? text : text === '' ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (response.ok && body !== undefined) return { status: response.status, headers: response.headers, body };
    const said = `${where} answered ${response.status}: ${response.ok ? `something that is not JSON: ${text.slice(0, 120)}` : errorMessage(body, text)}`;
    // A server may echo the key (in a message, or a body that is not JSON): it never reaches the run's error line.
    const message = options.apiKey ? said.split(options.apiKey).join('<key>') : said;
    if (response.status === 401 || response.status === 403) throw new FatalProviderError(`${message} (check the API key)`, response.status);
    if ((response.status === 429 || response.status === 402) && QUOTA.test(text)) throw new FatalProviderError(message, response.status);
    throw new ProviderError(message, response.status, isRetryableStatus(response.status) || response.status === 529, parseRetryAfter(response.headers.get('retry-after')));
  };
  return withRetry(once, options.retry ?? GENERATION_RETRY, signal);
}

/** The first string among a response's ids and request-id headers, each once. */
export function requestIds(...ids: (string | null | undefined)[]): string[] {
  return [...new Set(ids.filter((id): id is string => typeof id === 'string' && id !== ''))];
}
