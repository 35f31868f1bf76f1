import { FatalProviderError, isRetryableStatus, parseRetryAfter, ProviderError, UnusableAnswerError } from './errors.js';
import { withRetry, type RetryPolicy } from './retry.js';
import type { TokenUsage } from './types.js';

export { FatalProviderError, ProviderError, UnusableAnswerError };

export const GENERATION_RETRY: RetryPolicy = { retries: 4, minDelayMs: 500, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 };
/** A request with no whole answer after this long is abandoned (and retried, unless its body had begun). */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
/**
 * The most bytes one answer may take. A run's answer is a few kB and a synthesis answer (32k
 * tokens) about 150 kB, so 8 MiB leaves room; four concurrent 300 MB answers no longer reach memory.
 */
export const ANSWER_CAP_BYTES = 8 * 1024 * 1024;
/** Where a message quotes a server's body or error, it is cut to this many characters (after the key is taken out). */
const QUOTE_CHARS = 200;

export interface HttpOptions {
  /** The key a provider sends: cut out of every error message, whatever the server echoes back. */
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  /** For the whole request: the answer's headers and its body. */
  readonly timeoutMs?: number;
  readonly retry?: RetryPolicy;
  /** Default ANSWER_CAP_BYTES. */
  readonly maxAnswerBytes?: number;
}

export interface JsonAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
}

const sizeText = (bytes: number): string => (bytes >= 1024 * 1024 ? `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB` : `${Math.round((bytes / 1024) * 10) / 10} KiB`);
const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

/** The shortest piece of a key that is taken out of a message on its own. */
const KEY_PIECE = 8;

/**
 * `text` with the key, and every piece of it at least 8 characters long, replaced by `<key>`.
 * Done before anything is cut: a cut key no longer matches the whole key, and a message that
 * quotes 59 of a key's 60 characters still gives it away.
 */
export function redactKey(text: string, key: string | undefined): string {
  if (!key || text === '') return text;
  if (key.length < KEY_PIECE) return text.split(key).join('<key>');
  // Every occurrence of every 8-character piece of the key marks its characters; runs of marked characters go.
  const marked = new Uint8Array(text.length);
  let any = false;
  for (let i = 0; i + KEY_PIECE <= key.length; i++) {
    const piece = key.slice(i, i + KEY_PIECE);
    for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1)) {
      marked.fill(1, at, at + KEY_PIECE);
      any = true;
    }
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (!marked[i]) {
      const next = marked.indexOf(1, i);
      const end = next < 0 ? text.length : next;
      out += text.slice(i, end);
      i = end;
      continue;
    }
    while (i < text.length && marked[i]) i++;
    out += '<key>';
  }
  return out;
}

/** A server's text as one line of a message: the key taken out first, then whitespace folded and the rest cut. */
export function quote(text: string, key: string | undefined, chars = QUOTE_CHARS): string {
  const line = redactKey(text, key).replace(/\s+/g, ' ').trim();
  return line.length > chars ? `${line.slice(0, chars)}…` : line;
}

/**
 * A response's body as text, read as it arrives and refused past `maxBytes` (the rest is not
 * read: the connection is dropped). A declared Content-Length past the cap is refused unread.
 */
export async function readCapped(response: Response, maxBytes: number, where: string): Promise<string> {
  const tooLarge = (): UnusableAnswerError => new UnusableAnswerError(`${where} answered more than ${sizeText(maxBytes)}; refused (an answer is capped at ${sizeText(maxBytes)})`, response.status);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One HTTP exchange with a provider, read whole under one time limit and one size cap: the limit
 * runs from the request until the body's last byte (a server that trickles its body is cut there),
 * and the body is refused past the cap. A cancel aborts the socket at once. A timeout before the
 * answer began, or a lost connection, is a retryable ProviderError; a timeout while the body was
 * arriving is an UnusableAnswerError, not retried: a trickling server would hold the sample again
 * for every retry.
 */
export async function fetchAnswer(
  input: string | URL | Request,
  init: RequestInit,
  signal: AbortSignal | undefined,
  options: Pick<HttpOptions, 'fetch' | 'timeoutMs' | 'maxAnswerBytes'> & { readonly defaultTimeoutMs?: number },
): Promise<{ response: Response; text: string }> {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? options.defaultTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
  const where = url.origin + url.pathname;
  signal?.throwIfAborted();
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response | undefined;
  try {
    response = await doFetch(input, { ...init, signal: signal ? AbortSignal.any([signal, timeout]) : timeout });
    return { response, text: await readCapped(response, options.maxAnswerBytes ?? ANSWER_CAP_BYTES, where) };
  } catch (error) {
    // The cap, or a refused redirect (sameOriginFetch): already one line.
    if (error instanceof ProviderError) throw error;
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('cancelled');
    if (timeout.aborted) {
      if (response) throw new UnusableAnswerError(`${where} answered ${response.status} but did not finish its answer within ${seconds(timeoutMs)}; not asked again (a server that trickles its answer would hold the sample for every retry)`, response.status);
      throw new ProviderError(`${where} did not answer within ${seconds(timeoutMs)}`, undefined, true);
    }
    const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
    throw new ProviderError(`cannot reach ${where}: ${error instanceof Error ? error.message : String(error)}${cause}`, undefined, true);
  }
}

/**
 * A fetch that hands back a response already read under fetchAnswer's time limit and size cap
 * (for an SDK that reads the body itself: it gets the bytes in memory, never an open stream).
 */
export function boundedFetch(base: typeof fetch, options: Pick<HttpOptions, 'timeoutMs' | 'maxAnswerBytes'> & { readonly defaultTimeoutMs?: number }): typeof fetch {
  return async (input, init) => {
    const { response, text } = await fetchAnswer(input, init ?? {}, init?.signal ?? undefined, { ...options, fetch: base });
    const headers = new Headers(response.headers);
    // The text is decoded and whole: the encoding and the length no longer describe it.
    headers.delete('content-encoding');
    headers.delete('content-length');
    const empty = text === '' || response.status === 204 || response.status === 304;
    return new Response(empty ? null : text, { status: response.status, statusText: response.statusText, headers });
  };
}

/** A count of tokens as an answer reports it: absent is undefined; anything but a non-negative whole number is refused. */
function tokenCount(value: unknown, field: string, where: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  throw new UnusableAnswerError(`${where} answered ${field}: ${quote(JSON.stringify(value) ?? String(value), undefined, 40)}, not a count of tokens (a whole number, 0 or more); the output is refused`);
}

/**
 * The one validation of usage fields, for every provider: each field a non-negative whole number
 * (a negative, fractional, huge, NaN or text count is a lie that would pass the spending cap),
 * summed where a provider splits a count (Gemini's thoughts). `required`: which counts a hosted API
 * always reports (the first field of each list); a missing one is then refused too. A count a
 * server does not report is 0.
 */
export function usageFrom(where: string, fields: { readonly input: readonly (readonly [string, unknown])[]; readonly output: readonly (readonly [string, unknown])[] }, required: 'both' | 'input' | 'none'): TokenUsage {
  const sum = (list: readonly (readonly [string, unknown])[], mustHave: boolean): number => {
    let total = 0;
    for (const [index, [field, value]] of list.entries()) {
      const count = tokenCount(value, field, where);
      if (count === undefined && mustHave && index === 0) throw new UnusableAnswerError(`${where} answered without ${field}; the output is refused (its cost cannot be counted against the spending cap)`);
      total += count ?? 0;
    }
    if (!Number.isSafeInteger(total)) throw new UnusableAnswerError(`${where} answered usage past any real count of tokens; the output is refused`);
    return total;
  };
  return { inputTokens: sum(fields.input, required !== 'none'), outputTokens: sum(fields.output, required === 'both') };
}

/** A provider's usage as it hands it on, checked again (any provider, whoever wrote it): the cap relies on it. */
export function checkUsage(usage: TokenUsage, where: string): TokenUsage {
  return usageFrom(where, { input: [['inputTokens', usage.inputTokens]], output: [['outputTokens', usage.outputTokens]] }, 'both');
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

/**
 * The one key-origin rule, with its one line: why a key may not go to `url` (undefined: it may).
 * Checked by the service before a run or job is queued and by each factory again, so a provider
 * made by any caller refuses the same way.
 */
export function keyRefusal(url: string, label: string, officialHost?: string): string | undefined {
  if (mayCarryKey(url, officialHost)) return undefined;
  // A registry label's aside (`(llama-server, vLLM, a proxy)`) is not part of the key's name.
  label = label.replace(/\s*\(.*\)$/, '');
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // Not a URL: named as given.
  }
  return `the ${label} key is sent only ${officialHost ? `to https://${officialHost} or` : 'over https or to'} a server on this machine, not to ${origin}`;
}

/** A factory's check of the key-origin rule: a fatal error, before any request. */
export function assertKeyOrigin(url: string, label: string, officialHost?: string): void {
  const refused = keyRefusal(url, label, officialHost);
  if (refused) throw new FatalProviderError(refused);
}

/** The message a provider put in its error body (OpenAI, Anthropic and Gemini all use `error.message`), else the body. */
function errorMessage(body: unknown, text: string): string {
  if (body && typeof body === 'object' && 'error' in body) {
    const error = (body as { error: unknown }).error;
    if (typeof error === 'string') return error;
    if (error && typeof error === 'object' && 'message' in error && typeof (error as { message: unknown }).message === 'string') return (error as { message: string }).message;
  }
  return text;
}

/**
 * A failed answer as one line: `<where> answered <status>: <the server's message>`, the key and
 * every 8-character piece of it taken out of the whole body before the message is cut.
 */
export function failureLine(where: string, status: number, text: string, apiKey: string | undefined): string {
  const safe = redactKey(text, apiKey);
  let body: unknown;
  try {
    body = JSON.parse(safe);
  } catch {
    body = undefined;
  }
  return `${where} answered ${status}: ${quote(errorMessage(body, safe), apiKey)}`;
}

/**
 * A 429 that waiting does not fix: the account's quota or credit is spent (OpenAI
 * `insufficient_quota`, Anthropic's credit balance, Gemini's "exceeded your current quota … billing").
 * Gemini's per-minute limit ("Resource has been exhausted (e.g. check quota)") passes in a minute: retried.
 */
const QUOTA = /insufficient_quota|exceeded your current quota|credit balance|billing/i;

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

/**
 * The one redirect policy: a request carrying a key never leaves its origin. A redirect within
 * the origin is followed (at most 5 hops); one to another origin is refused, a fatal error naming
 * where it pointed. fetch's own `redirect: 'follow'` would resend the key header to whatever host
 * a server (or a proxy in between) names, and a key in a custom header is never dropped on the way.
 */
export function sameOriginFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    let url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    let request: RequestInit = { ...init, redirect: 'manual' };
    // A Request object carries its own method, headers and body; read them once into the init.
    if (typeof input !== 'string' && !(input instanceof URL)) {
      request = { method: input.method, headers: input.headers, body: input.body === null ? null : await input.arrayBuffer(), signal: input.signal, ...request };
    }
    const origin = new URL(url).origin;
    for (let hop = 0; ; hop++) {
      const response = await base(url, request);
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      const where = new URL(url);
      const next = new URL(location, url);
      await response.body?.cancel();
      if (next.origin !== origin) throw new FatalProviderError(`${where.origin}${where.pathname} answered ${response.status}, a redirect to ${next.origin}; a request carrying a key never leaves its origin — give the base URL of the server that answers`, response.status);
      if (hop >= MAX_REDIRECTS) throw new FatalProviderError(`${origin} redirected more than ${MAX_REDIRECTS} times`, response.status);
      url = next.href;
      // 303, and 301/302 after a POST, turn into a GET without a body (as fetch itself does).
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && (request.method ?? 'GET').toUpperCase() === 'POST')) {
        const { body: _body, ...rest } = request;
        request = { ...rest, method: 'GET' };
      }
    }
  };
}

/**
 * One JSON request to a provider: redirects only within its origin (sameOriginFetch), reads the
 * answer under one time limit and size cap (fetchAnswer), answers a cancel at once, and sorts
 * failures: 401/403 and spent quota are fatal, 408, 429 (with its Retry-After) and 5xx and lost
 * connections are retried, an answer that is not JSON is unusable, the rest fail this sample.
 */
export async function requestJson(
  url: string,
  init: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: unknown; expect?: 'json' | 'text' },
  signal: AbortSignal,
  options: HttpOptions = {},
): Promise<JsonAnswer> {
  const where = new URL(url).origin + new URL(url).pathname;
  const doFetch = sameOriginFetch(options.fetch ?? fetch);
  const once = async (): Promise<JsonAnswer> => {
    const { response, text } = await fetchAnswer(
      url,
      {
        method: init.method,
        // A FormData body (a file upload) sets its own multipart content type.
        headers: { ...(init.body !== undefined && !(init.body instanceof FormData) ? { 'content-type': 'application/json' } : {}), ...init.headers },
        ...(init.body !== undefined ? { body: init.body instanceof FormData ? init.body : JSON.stringify(init.body) } : {}),
      },
      signal,
      { ...options, fetch: doFetch },
    );
    if (response.ok) {
      if (init.expect === 'text') return { status: response.status, headers: response.headers, body: text };
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      if (body !== null && typeof body === 'object') return { status: response.status, headers: response.headers, body };
      throw new UnusableAnswerError(`${where} answered ${response.status} with something that is not a JSON object: ${quote(text, options.apiKey, 120) || '(empty)'}`, response.status);
    }
    // A server may echo the key (in a message, or a body that is not JSON): it never reaches the run's error line.
    const message = failureLine(where, response.status, text, options.apiKey);
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
