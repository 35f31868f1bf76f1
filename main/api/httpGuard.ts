import { timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/** A request target that parsed: the decoded path and the query. */
export interface Target {
  readonly pathname: string;
  readonly query: URLSearchParams;
}

/**
 * The request target, or why it is malformed. Only origin-form (`/path?query`) is served: the
 * absolute form (`http://host/...`) is for proxies, and `//x` would parse as a host. Percent
 * escapes must decode to UTF-8 (`/%ff` does not).
 */
export function parseTarget(raw: string | undefined): { ok: true; target: Target } | { ok: false; message: string } {
  if (!raw?.startsWith('/') || raw.startsWith('//')) return { ok: false, message: 'malformed request target: it must be a path starting with a single /' };
  let url: URL;
  try {
    url = new URL(raw, 'http://wapii.invalid');
  } catch {
    return { ok: false, message: 'malformed request target' };
  }
  try {
    return { ok: true, target: { pathname: decodeURIComponent(url.pathname), query: url.searchParams } };
  } catch {
    return { ok: false, message: 'malformed percent-encoding in the request path' };
  }
}

export function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The cookie's name carries the port: cookies ignore ports, so with one shared name a second
 * `serve` on 127.0.0.1 would overwrite the first one's cookie (and each would send the other its token).
 */
export const cookieName = (port: number): string => `wapii_token_${port}`;

export type Credential = { readonly via: 'bearer' | 'cookie'; readonly value: string };

/** The token a request carries: the bearer header (scripts, tools) wins over the cookie (a browser). */
export function credentialOf(req: http.IncomingMessage, cookie: string): Credential | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return { via: 'bearer', value: auth.slice(7) };
  for (const part of req.headers.cookie?.split(';') ?? []) {
    const [name, ...value] = part.trim().split('=');
    if (name === cookie) return { via: 'cookie', value: value.join('=') };
  }
  return undefined;
}

/**
 * Why a state-changing request must be refused as cross-site, or undefined when it may go on
 * (OWASP CSRF cheat sheet: verify the origin with standard headers, and require a content type
 * no HTML form can send, so a cross-origin script needs a CORS preflight this server never grants).
 * `Sec-Fetch-Site` and `Origin`, when present, must say the request came from this server's own
 * page; another port on 127.0.0.1 is same-site but not same-origin, so it is refused too. A
 * request authorised by the cookie must carry one of them (every current browser sends `Origin`
 * on a POST); a bearer token cannot be attached by a cross-site page, so tools need neither.
 */
export function crossSiteReason(req: http.IncomingMessage, via: Credential['via'], origins: ReadonlySet<string>): string | undefined {
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return 'requests to the API must have Content-Type: application/json';
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return `cross-site request refused (Sec-Fetch-Site: ${site})`;
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.has(origin)) return `cross-origin request refused (Origin: ${origin})`;
  if (via === 'cookie' && site === undefined && origin === undefined) return 'a browser request without Origin or Sec-Fetch-Site is refused';
  return undefined;
}

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost|::ffff:127\.\d+\.\d+\.\d+)$/i;
export const isLoopback = (host: string): boolean => LOOPBACK.test(host);
