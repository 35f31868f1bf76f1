import { ProviderError } from './provider.js';

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 5;

const urlOf = (input: Parameters<typeof fetch>[0]): string => (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);

/**
 * A fetch for calls that carry an API key: it follows a redirect only within the origin it was
 * sent to. fetch's own `redirect: 'follow'` would resend the key header to whatever host a
 * server (or a proxy in between) names; browsers, curl and requests drop credentials on a
 * cross-origin redirect, and a key in a custom header is never dropped, so this refuses the hop
 * instead: a non-retryable ProviderError naming the origin it pointed to.
 */
export function sameOriginFetch(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    let url = urlOf(input);
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
      const next = new URL(location, url);
      await response.body?.cancel();
      if (next.origin !== origin) {
        throw new ProviderError(`${origin} redirected to another origin (${next.origin}); a call carrying an API key does not follow it — set the base URL to the server that answers`, response.status, false);
      }
      if (hop >= MAX_REDIRECTS) throw new ProviderError(`${origin} redirected more than ${MAX_REDIRECTS} times`, response.status, false);
      url = next.href;
      // 303, and 301/302 after a POST, turn into a GET without a body (as fetch itself does).
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && (request.method ?? 'GET').toUpperCase() === 'POST')) {
        const { body: _body, ...rest } = request;
        request = { ...rest, method: 'GET' };
      }
    }
  };
}
