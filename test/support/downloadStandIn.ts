import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { tempDir } from './paths.js';

/** How a stand-in answers one path. */
export interface Route {
  /** The file it serves (changeable between requests: a file replaced on the server). */
  data?: Buffer;
  etag?: string;
  /** Sent as Last-Modified; If-Range may carry it instead of an ETag. */
  lastModified?: string;
  /** Content-Disposition's file name. */
  disposition?: string;
  /** Declares the full length, sends this many bytes, then closes the connection. */
  closeAfter?: number;
  /** Answers 302 to this location. */
  redirect?: string;
  /** Whether Range requests honour If-Range (a changed file is sent whole, 200); false: the range of whatever it has now. */
  honourIfRange?: boolean;
  /** Milliseconds between 64 KiB chunks. */
  delayMs?: number;
}

export interface SeenRequest {
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
}

export interface StandIn {
  readonly origin: string;
  readonly routes: Map<string, Route>;
  readonly seen: SeenRequest[];
  close(): Promise<void>;
}

function handler(routes: Map<string, Route>, seen: SeenRequest[]): http.RequestListener {
  return (req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://stand-in').pathname;
    seen.push({ path: pathname, headers: req.headers });
    const route = routes.get(pathname);
    if (!route) return void res.writeHead(404).end();
    if (route.redirect) return void res.writeHead(302, { Location: route.redirect }).end();
    const data = route.data ?? Buffer.alloc(0);
    const ranged = /bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    const partial = ranged !== null && (route.honourIfRange === false || ifRange === undefined || ifRange === (route.etag ?? route.lastModified));
    const start = partial ? Number(ranged[1]) : 0;
    res.writeHead(partial ? 206 : 200, {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(data.length - start),
      ...(route.etag ? { ETag: route.etag } : {}),
      ...(route.lastModified ? { 'Last-Modified': route.lastModified } : {}),
      ...(route.disposition ? { 'Content-Disposition': `attachment; filename="${route.disposition}"` } : {}),
      ...(partial ? { 'Content-Range': `bytes ${start}-${data.length - 1}/${data.length}` } : {}),
    });
    let at = start;
    const step = (): void => {
      if (res.destroyed) return;
      // Closed a moment after the last byte left, as a server that dies mid-file: the client has read them.
      if (route.closeAfter !== undefined && at - start >= route.closeAfter) return void setTimeout(() => res.socket?.destroy(), 20);
      if (at >= data.length) return void res.end();
      const size = Math.min(64 * 1024, route.closeAfter !== undefined ? route.closeAfter - (at - start) : Infinity);
      const chunk = data.subarray(at, at + size);
      at += chunk.length;
      // The next step (perhaps the close) waits until this chunk has left: destroying the socket with
      // bytes still queued drops them, and the client would see fewer than closeAfter.
      res.write(chunk, () => setTimeout(step, route.delayMs ?? 0));
    };
    step();
  };
}

/** A local file server on 127.0.0.1 that records what it receives; `tls`: https with a certificate for 127.0.0.1. */
export async function downloadStandIn(tls?: { key: string; cert: string }): Promise<StandIn> {
  const routes = new Map<string, Route>();
  const seen: SeenRequest[] = [];
  const server = tls ? https.createServer(tls, handler(routes, seen)) : http.createServer(handler(routes, seen));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    routes,
    seen,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A self-signed certificate for 127.0.0.1, made with the openssl command. */
export function selfSignedCertificate(): { key: string; cert: string } {
  const dir = tempDir('wapii-tls-');
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
  const pair = { key: fs.readFileSync(key, 'utf8'), cert: fs.readFileSync(cert, 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return pair;
}

/** A port on 127.0.0.1 where nothing listens. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
