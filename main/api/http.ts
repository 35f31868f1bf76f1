import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { METHODS, type Method, type WorkbenchEvent } from './contract.js';
import { HTTP_STATUS, toErrorInfo } from './errors.js';
import type { Envelope } from './constants.js';
import { BodyReader, type BodyLimits } from './httpBody.js';
import { pickEncoding, StaticFiles } from './httpStatic.js';
import { cookieName, credentialOf, crossSiteReason, parseTarget, sameToken, signInPage } from './httpGuard.js';
import { WapiiError } from './result.js';

export interface HttpTransportOptions {
  readonly call: (method: Method, input: unknown) => Promise<unknown>;
  readonly subscribe: (listener: (event: WorkbenchEvent) => void) => () => void;
  /** The built renderer (`out/renderer`); served as static files. */
  readonly staticDir: string;
  readonly token?: string;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Caps on buffered request bodies (default: DEFAULT_BODY_LIMITS). */
  readonly bodyLimits?: BodyLimits;
  readonly log?: (message: string) => void;
}

export interface HttpTransport extends AsyncDisposable {
  readonly url: string;
  /** The URL to open: it hands the browser the access token once, which then lives in a cookie. */
  readonly openUrl: string;
  readonly token: string;
  /** The name of the cookie that carries the token (per port, see cookieName). */
  readonly cookie: string;
  close(): Promise<void>;
}

/** A WAPIIBench import with its specs is about 2 MB; public specs reach 10–20 MB (JSON-encoded in the body). */
export const DEFAULT_BODY_LIMITS: BodyLimits = { perRequest: 64 * 1024 * 1024, total: 128 * 1024 * 1024 };

/**
 * On every response: no framing by other sites (clickjacking), no token-bearing URL in a Referer,
 * no reading of these files by other origins' `<script>`/`<img>`, and the same content policy
 * the renderer's page declares in its meta tag (a header can also forbid framing).
 */
const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
};

function send(res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...SECURITY_HEADERS, ...headers });
  res.end(body);
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);
/** Below about 1 KB the headers and the compressor's framing eat what compression saves. */
export const COMPRESS_JSON_FROM = 1024;

/**
 * An API answer, compressed as the client accepts when it is over COMPRESS_JSON_FROM bytes: JSON
 * of samples and rows compresses 5 to 10 times. Quality 5 (brotli) and level 6 (gzip) rather than
 * the static files' 9: an answer is compressed once per call, so speed counts more than the last
 * few percent.
 */
async function sendJson(req: http.IncomingMessage, res: http.ServerResponse, status: number, body: string): Promise<void> {
  const raw = Buffer.from(body, 'utf8');
  const encoding = raw.length > COMPRESS_JSON_FROM ? pickEncoding(req.headers['accept-encoding']) : undefined;
  if (!encoding) return send(res, status, body, { Vary: 'Accept-Encoding' });
  const packed = encoding === 'br' ? await brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } }) : await gzip(raw, { level: 6 });
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...SECURITY_HEADERS, Vary: 'Accept-Encoding', 'Content-Encoding': encoding, 'Content-Length': String(packed.length) });
  res.end(packed);
}

function refuse(res: http.ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}): void {
  send(res, status, JSON.stringify({ ok: false, error: { code, message } } satisfies Envelope<never>), headers);
}

/**
 * `wapii serve`: the service contract over HTTP on loopback. POST /api/<method> with a JSON body
 * answers an Envelope; GET /api/events streams events as server-sent events; everything else is
 * the renderer's static files. Every request needs the access token (bearer header or the cookie
 * set by opening `openUrl`), the Host header must name this server (no DNS rebinding), and a
 * call must come from this server's own page or a non-browser client (httpGuard.crossSiteReason).
 * Whatever goes wrong inside one request ends as that request's response, never the process.
 * Written on node:http because the surface is three routes; a framework would add more than it saves.
 */
export async function startHttpTransport(options: HttpTransportOptions): Promise<HttpTransport> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const host = options.host ?? '127.0.0.1';
  const files = new StaticFiles(options.staticDir);
  const log = options.log ?? (() => undefined);
  const bodies = new BodyReader(options.bodyLimits ?? DEFAULT_BODY_LIMITS);
  const streams = new Set<http.ServerResponse>();
  let allowedHosts: ReadonlySet<string> = new Set();
  let allowedOrigins: ReadonlySet<string> = new Set();
  let cookie = cookieName(0);

  const serveStatic = async (req: http.IncomingMessage, res: http.ServerResponse, pathname: string): Promise<void> => {
    const answer = await files.answer(pathname, req);
    if (answer.kind === 'missing') {
      send(res, 503, 'The renderer is not built: run `npm run build` first.', { 'Content-Type': 'text/plain; charset=utf-8' });
      return;
    }
    res.writeHead(answer.status, { ...answer.headers, ...SECURITY_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : answer.body);
  };

  const callApi = async (req: http.IncomingMessage, res: http.ServerResponse, method: Method): Promise<void> => {
    const body = await bodies.read(req);
    if (!body.ok) {
      if (!res.destroyed) refuse(res, body.refusal.status, body.refusal.status === 503 ? 'busy' : 'bad_input', body.refusal.message, body.refusal.status === 503 ? { 'Retry-After': '1' } : {});
      return;
    }
    try {
      let input: unknown;
      try {
        input = body.text ? JSON.parse(body.text) : {};
      } catch {
        throw new WapiiError('bad_input', 'request body is not valid JSON');
      }
      const value = await options.call(method, input);
      await sendJson(req, res, 200, JSON.stringify({ ok: true, value } satisfies Envelope<unknown>));
    } catch (error) {
      const info = toErrorInfo(error, log);
      refuse(res, HTTP_STATUS[info.code], info.code, info.message);
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const parsed = parseTarget(req.url);
    if (!parsed.ok) return refuse(res, 400, 'bad_input', parsed.message);
    if (!allowedHosts.has(req.headers.host ?? '')) return refuse(res, 403, 'unauthorized', 'unexpected Host header');
    const { pathname, query } = parsed.target;
    if (req.method === 'GET' && pathname === '/' && sameToken(query.get('token') ?? undefined, token)) {
      res.writeHead(303, { 'Set-Cookie': `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`, Location: '/', 'Cache-Control': 'no-store', ...SECURITY_HEADERS });
      res.end();
      return;
    }
    const credential = credentialOf(req, cookie);
    if (!credential || !sameToken(credential.value, token)) {
      // A browser asking for a page gets a page that says how to get back in; the API stays JSON.
      if ((req.method === 'GET' || req.method === 'HEAD') && !pathname.startsWith('/api/')) {
        return send(res, 401, signInPage(credential !== undefined), { 'Content-Type': 'text/html; charset=utf-8' });
      }
      return refuse(res, 401, 'unauthorized', 'missing or wrong access token: open the URL that `wapii serve` printed (it changes at each start unless serve has --token-file)');
    }
    if (pathname === '/api/events' && req.method === 'GET') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive', ...SECURITY_HEADERS });
      res.write(': connected\n\n');
      streams.add(res);
      res.on('close', () => streams.delete(res));
      return;
    }
    const api = /^\/api\/([A-Za-z]+)$/.exec(pathname);
    if (api) {
      const method = api[1] as Method;
      if (req.method !== 'POST' || !METHODS.includes(method)) return refuse(res, 404, 'not_found', `no API method ${req.method} ${pathname}`);
      const crossSite = crossSiteReason(req, credential.via, allowedOrigins);
      if (crossSite) return refuse(res, crossSite.includes('Content-Type') ? 415 : 403, crossSite.includes('Content-Type') ? 'bad_input' : 'unauthorized', crossSite);
      return callApi(req, res, method);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return refuse(res, 405, 'not_found', 'method not allowed', { Allow: 'GET, HEAD' });
    return serveStatic(req, res, pathname);
  };

  const server = http.createServer((req, res) => {
    // A client that goes away mid-request must not leave an 'error' event nobody listens to.
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    handle(req, res).catch((error: unknown) => {
      log(`serve: ${req.method ?? '?'} request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (res.headersSent || res.destroyed) res.destroy();
      else refuse(res, 500, 'internal', 'internal error while answering this request (details are in the server log)');
    });
  });

  // Node closes an idle keep-alive socket after 5 s, measured by a timer that fires before the
  // socket's pending data is read: when a long synchronous step (loading a model, preparing a
  // vocabulary) holds the event loop that long, a request the client already sent on that socket
  // is dropped and the client sees ECONNRESET. A longer idle time keeps such a request.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;

  const unsubscribe = options.subscribe((event) => {
    const line = `data: ${JSON.stringify(event)}\n\n`;
    for (const stream of streams) if (!stream.destroyed) stream.write(line);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new WapiiError('bad_input', error.code === 'EADDRINUSE' ? `port ${options.port} is already in use; pick another with --port` : `cannot listen on ${host}:${options.port ?? 0}: ${error.message}`)),
    );
    server.listen(options.port ?? 0, host, resolve);
  });
  server.on('error', (error) => log(`serve: ${error.message}`));
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  // Bound to every interface (0.0.0.0, ::): a browser elsewhere names one of this machine's
  // addresses. Only address literals, never a name, so DNS rebinding still gets nowhere.
  const wildcard = host === '0.0.0.0' || host === '::';
  const interfaces = wildcard ? Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((i) => (i.family === 'IPv6' ? `[${i.address}]` : i.address))) : [];
  allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`, ...interfaces.map((a) => `${a}:${port}`)]);
  allowedOrigins = new Set([...allowedHosts].map((h) => `http://${h}`));
  cookie = cookieName(port);
  const base = `http://${shownHost}:${port}`;

  const close = async (): Promise<void> => {
    unsubscribe();
    for (const stream of streams) stream.end();
    streams.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: base, openUrl: `${base}/?token=${token}`, token, cookie, close, [Symbol.asyncDispose]: close };
}
