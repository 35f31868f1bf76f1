import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { METHODS, type Method, type WorkbenchEvent } from './contract.js';
import { HTTP_STATUS, toErrorInfo } from './errors.js';
import type { Envelope } from './constants.js';
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
  readonly log?: (message: string) => void;
}

export interface HttpTransport extends AsyncDisposable {
  readonly url: string;
  /** The URL to open: it hands the browser the access token once, which then lives in a cookie. */
  readonly openUrl: string;
  readonly token: string;
  close(): Promise<void>;
}

const MAX_BODY = 128 * 1024 * 1024;
const COOKIE = 'wapii_token';
const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function tokenOf(req: http.IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7);
  const cookie = req.headers.cookie?.split(';').map((c) => c.trim()).find((c) => c.startsWith(`${COOKIE}=`));
  return cookie?.slice(COOKIE.length + 1);
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) {
        reject(new WapiiError('bad_input', `request body is larger than ${MAX_BODY / 1024 / 1024} MB`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json'): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(body);
}

/**
 * `wapii serve`: the service contract over HTTP on loopback. POST /api/<method> with a JSON body
 * answers an Envelope; GET /api/events streams events as server-sent events; everything else is
 * the renderer's static files. Every request needs the access token (bearer header or the cookie
 * set by opening `openUrl`), and the Host header must name this server (no DNS rebinding).
 * Written on node:http because the surface is three routes; a framework would add more than it saves.
 */
export async function startHttpTransport(options: HttpTransportOptions): Promise<HttpTransport> {
  const token = options.token ?? randomBytes(24).toString('base64url');
  const host = options.host ?? '127.0.0.1';
  const staticRoot = path.resolve(options.staticDir);
  const log = options.log ?? (() => undefined);
  const streams = new Set<http.ServerResponse>();
  let allowedHosts: Set<string> = new Set();

  const serveStatic = (res: http.ServerResponse, pathname: string): void => {
    const target = path.resolve(staticRoot, '.' + decodeURIComponent(pathname));
    const inside = target.startsWith(staticRoot + path.sep) || target === staticRoot;
    const file = inside && fs.existsSync(target) && fs.statSync(target).isFile() ? target : path.join(staticRoot, 'index.html');
    if (!fs.existsSync(file)) {
      send(res, 503, 'The renderer is not built: run `npm run build` first.', 'text/plain; charset=utf-8');
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
    });
    fs.createReadStream(file).pipe(res);
  };

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (!allowedHosts.has(req.headers.host ?? '')) {
        send(res, 403, JSON.stringify({ ok: false, error: { code: 'unauthorized', message: 'unexpected Host header' } }));
        return;
      }
      const queryToken = url.searchParams.get('token') ?? undefined;
      if (req.method === 'GET' && url.pathname === '/' && sameToken(queryToken, token)) {
        res.writeHead(303, { 'Set-Cookie': `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`, Location: '/' });
        res.end();
        return;
      }
      if (!sameToken(tokenOf(req), token)) {
        const envelope: Envelope<never> = { ok: false, error: { code: 'unauthorized', message: 'missing or wrong access token: open the URL that `wapii serve` printed' } };
        send(res, 401, JSON.stringify(envelope));
        return;
      }
      if (url.pathname === '/api/events' && req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
        res.write(': connected\n\n');
        streams.add(res);
        req.on('close', () => streams.delete(res));
        return;
      }
      const api = /^\/api\/([A-Za-z]+)$/.exec(url.pathname);
      if (api) {
        const method = api[1] as Method;
        if (req.method !== 'POST' || !METHODS.includes(method)) {
          send(res, 404, JSON.stringify({ ok: false, error: { code: 'not_found', message: `no API method ${req.method} ${url.pathname}` } }));
          return;
        }
        try {
          const text = await readBody(req);
          let input: unknown;
          try {
            input = text ? JSON.parse(text) : {};
          } catch {
            throw new WapiiError('bad_input', 'request body is not valid JSON');
          }
          const value = await options.call(method, input);
          send(res, 200, JSON.stringify({ ok: true, value } satisfies Envelope<unknown>));
        } catch (error) {
          const info = toErrorInfo(error, log);
          send(res, HTTP_STATUS[info.code], JSON.stringify({ ok: false, error: info } satisfies Envelope<never>));
        }
        return;
      }
      if (req.method !== 'GET') {
        send(res, 405, JSON.stringify({ ok: false, error: { code: 'not_found', message: 'method not allowed' } }));
        return;
      }
      serveStatic(res, url.pathname);
    })();
  });

  const unsubscribe = options.subscribe((event) => {
    const line = `data: ${JSON.stringify(event)}\n\n`;
    for (const stream of streams) stream.write(line);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new WapiiError('bad_input', error.code === 'EADDRINUSE' ? `port ${options.port} is already in use; pick another with --port` : `cannot listen on ${host}:${options.port ?? 0}: ${error.message}`)),
    );
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  allowedHosts = new Set([`${shownHost}:${port}`, `localhost:${port}`, `127.0.0.1:${port}`]);
  const base = `http://${shownHost}:${port}`;

  const close = async (): Promise<void> => {
    unsubscribe();
    for (const stream of streams) stream.end();
    streams.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: base, openUrl: `${base}/?token=${token}`, token, close, [Symbol.asyncDispose]: close };
}

