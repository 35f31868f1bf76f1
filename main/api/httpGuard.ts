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

/**
 * The page a browser gets instead of the app when its token is missing or no longer valid: each
 * `serve` makes a new token unless it is given one, so after a restart every open tab and
 * bookmark holds a dead one. A page says how to get back in; a JSON error in the window would not.
 * `stale`: the browser sent a token (the cookie of an earlier `serve` on this port).
 */
export function signInPage(stale: boolean): string {
  const lead = stale
    ? 'This page holds the access token of an earlier <code>wapii serve</code>. The server has restarted since, with a new token.'
    : 'This page needs the access token that <code>wapii serve</code> printed when it started.';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>WAPII Workbench: sign in again</title>
<style>
:root { color-scheme: light dark; --bg: #f7f7f8; --panel: #fff; --text: #1d1d22; --muted: #6b6b76; --border: #dcdce0; }
@media (prefers-color-scheme: dark) { :root { --bg: #16171b; --panel: #1f2026; --text: #e6e6ea; --muted: #a0a0ab; --border: #34353d; } }
body { font: 15px/1.5 system-ui, sans-serif; background: var(--bg); color: var(--text); margin: 0; }
main { max-width: 640px; margin: 12vh auto; padding: 24px 28px; background: var(--panel); border: 1px solid var(--border); border-radius: 8px; }
h1 { font-size: 20px; margin: 0 0 12px; } code { font: 13px ui-monospace, monospace; } .muted { color: var(--muted); }
ol { padding-left: 20px; }
</style></head>
<body><main data-testid="sign-in">
<h1>Open the workbench from its URL</h1>
<p>${lead}</p>
<ol>
<li>Find the terminal where <code>wapii serve</code> runs: it printed <code>WAPII Workbench at http://…/?token=…</code>.</li>
<li>Open that URL (it hands this browser the new token once, in a cookie).</li>
</ol>
<p class="muted">For a token that stays the same across restarts, start the server with <code>wapii serve --token-file &lt;file&gt;</code>: it takes the token from the file's first line (16 to 512 characters of letters, digits, <code>.</code>, <code>_</code>, <code>~</code>, <code>-</code>; for instance made once with <code>openssl rand -hex 24 &gt; &lt;file&gt;</code>).</p>
</main></body></html>
`;
}
