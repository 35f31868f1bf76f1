import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export interface ServeProcess {
  readonly url: string;
  readonly openUrl: string;
  readonly token: string;
  readonly child: ChildProcess;
  /** Everything it printed on stdout and stderr so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the real `wapii serve` in a child process and waits for the URL it prints; `args` are global options (`--db`), `serveArgs` serve's own (`--no-demo`). */
export function startServe(args: readonly string[], options: { env?: NodeJS.ProcessEnv; serveArgs?: readonly string[] } = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), ...args, 'serve', '--port', '0', ...(options.serveArgs ?? [])], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let output = '';
  return new Promise((resolve, reject) => {
    // Generous: on a loaded machine (2 cores shared by many test processes) tsx alone can take 30 s to start serve.
    const timer = setTimeout(() => reject(new Error(`wapii serve printed no URL within 120 s:\n${output}`)), 120_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /at (http:\/\/\S+\/\?token=(\S+))/.exec(output);
      if (!match?.[1] || !match[2]) return;
      clearTimeout(timer);
      child.stdout.off('data', onData);
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      const openUrl = match[1];
      resolve({
        url: openUrl.replace(/\/\?token=.*$/, ''),
        openUrl,
        token: match[2],
        child,
        output: () => output,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`wapii serve exited with ${code}:\n${output}`));
    });
  });
}

export interface RawResponse {
  /** 0 when the server closed the connection without a status line. */
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/**
 * Sends bytes exactly as given over a fresh TCP connection (no client library to fix them up)
 * and reads the first response; answers once the server closes or `idleMs` pass without data.
 * `halfCloseAfterMs`: when nothing came back by then, half-close the connection, so a request
 * the server still waits on (truncated, or a body shorter than declared) ends at once.
 */
export function rawRequest(url: string, request: string | Buffer, options: { idleMs?: number; halfCloseAfterMs?: number } = {}): Promise<RawResponse> {
  const idleMs = options.idleMs ?? 2000;
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const head = end >= 0 ? text.slice(0, end) : text;
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1];
      resolve({ status: status ? Number(status) : 0, head, body: end >= 0 ? text.slice(end + 4) : '' });
    };
    socket.setTimeout(idleMs, finish);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // One complete response with a declared length is enough; keep-alive would hold the socket open.
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text.slice(end + 4), 'latin1') >= Number(length)) finish();
    });
    socket.on('end', finish);
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNREFUSED' ? reject(error) : finish()));
    socket.write(request);
    if (options.halfCloseAfterMs !== undefined) {
      const timer = setTimeout(() => chunks.length === 0 && !done && socket.end(), options.halfCloseAfterMs);
      socket.on('close', () => clearTimeout(timer));
    }
  });
}

/** The server's resident memory in bytes, from /proc (Linux); undefined elsewhere. */
export function residentBytes(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface LoadReport {
  readonly requests: number;
  readonly connections: number;
  /** Requests answered 200 with `ok: true`. */
  readonly ok: number;
  readonly failures: readonly string[];
  readonly edits: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly wallMs: number;
  /** The server's peak resident memory while loaded (sampled every 50 ms), when /proc has it. */
  readonly peakRssBytes: number | undefined;
}

/**
 * A bounded load on a running serve: `requests` API calls (a mix of listing, reading and
 * editing samples of dataset 1) over at most `connections` keep-alive connections on loopback.
 * It stops by itself once every request is answered.
 */
export async function loadServe(serve: ServeProcess, options: { connections: number; requests: number }): Promise<LoadReport> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const post = (method: string, input: unknown): Promise<{ status: number; text: string; ms: number }> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(input);
      const started = performance.now();
      const req = http.request(
        `${serve.url}/api/${method}`,
        { method: 'POST', agent, headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString(), ms: performance.now() - started }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const samples = JSON.parse((await post('listSamples', { datasetId: 1 })).text) as { value: { id: string }[] };
  const ids = samples.value.map((s) => s.id);
  const latencies: number[] = [];
  const failures: string[] = [];
  let edits = 0;
  let peak: number | undefined;
  const sampler = setInterval(() => {
    const rss = serve.child.pid === undefined ? undefined : residentBytes(serve.child.pid);
    if (rss !== undefined) peak = Math.max(peak ?? 0, rss);
  }, 50);
  const started = performance.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.requests) {
      const i = next++;
      const sampleId = ids[i % ids.length]!;
      const [method, input] = (
        [
          ['listDatasets', {}],
          ['listSamples', { datasetId: 1 }],
          ['getSample', { datasetId: 1, sampleId }],
          ['editSample', { datasetId: 1, sampleId, reviewState: i % 2 ? 'accepted' : 'rejected', reason: `load ${i}` }],
        ] as const
      )[i % 4]!;
      try {
        const answer = await post(method, input);
        latencies.push(answer.ms);
        if (answer.status !== 200 || !answer.text.startsWith('{"ok":true')) failures.push(`${method}: ${answer.status} ${answer.text.slice(0, 200)}`);
        else if (method === 'editSample') edits++;
      } catch (error) {
        failures.push(`${method}: ${String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return {
    requests: options.requests,
    connections: options.connections,
    ok: options.requests - failures.length,
    failures,
    edits,
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    wallMs,
    peakRssBytes: peak,
  };
}
