import { clientField, clientOf, type HttpClient } from '../api/clients.js';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ivm from 'isolated-vm';
import { nodeGlobals } from './globals.js';
import { CAPTURE, SHIMS } from './prelude.js';
import { wrapProgram } from './program.js';

/**
 * A request as the capturing adapter saw it, before normalisation (scoring.md §3), recorded by
 * the host at the moment of the call. `refused` says why a request could not be recorded (too
 * large, too deep, unreadable, no string method); such a request scores `runtime_error`.
 */
export interface RawRequest {
  /** Which client sent it: Axios (absent) or the global `fetch`. */
  readonly client?: HttpClient;
  readonly method: string;
  /** The URL as the reference composed it: `baseURL` + `url` unless `url` has a scheme. */
  readonly url: string;
  /** Where Axios sends it, without the params: its own `buildFullPath(baseURL, url, allowAbsoluteUrls)`. */
  readonly fullPath?: string;
  /** With a custom `paramsSerializer`: the URL Axios builds, the serialized params included. */
  readonly sentUrl?: string;
  readonly headers: Record<string, unknown> | null;
  readonly params: unknown;
  /** `params` given as a `URLSearchParams`: its pairs, in order (reference mode). */
  readonly paramPairs?: readonly (readonly [string, string])[];
  /** `params` given as a `URLSearchParams`: the query its `toString()` answered, which Axios sends (default mode). */
  readonly paramsText?: string;
  /** Axios's `auth` option as its http adapter joins it (`username:password`), sent as `Authorization: Basic` (default mode). */
  readonly auth?: string;
  readonly body:
    | { readonly kind: 'none' }
    | { readonly kind: 'text'; readonly value: string }
    | { readonly kind: 'json'; readonly value: unknown }
    /** A value the transport would not send as it is (a plain object left by a custom `transformRequest`). */
    | { readonly kind: 'object'; readonly value: unknown }
    | { readonly kind: 'form'; readonly entries: readonly (readonly [string, string])[] };
  readonly refused?: string;
}

/**
 * Why a program did not finish normally. `timeout`, `memory` and `crashed` may also come from the
 * supervisor, which stopped the sandbox's process.
 */
export type ExecutionErrorKind = 'syntax' | 'exception' | 'timeout' | 'memory' | 'crashed';

/** What running one program did: the requests it sent, what it logged, and how it ended. */
export interface Execution {
  readonly requests: readonly RawRequest[];
  readonly console: readonly string[];
  readonly error?: { readonly kind: ExecutionErrorKind; readonly message: string };
  readonly durationMs: number;
}

/** How a program's requests are captured: as Axios sends them, or as the reference's mock saw them (`--compat reference`). */
export type CaptureMode = 'default' | 'reference';

/** Per program: its time limit and capture mode. */
/**
 * What the API answers a multi-step program (scoring.md §7): each step's method, a pattern its URL
 * (without the query) matches, and its stubbed response. A request is answered by the first step
 * not yet met that it matches, else by the last met one it matches (reads may repeat), else 404.
 */
export interface Stub {
  readonly method: string;
  /** A regular expression source matched against the request's URL as normalised (decoded, no query). */
  readonly url: string;
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** The response body as JSON text. */
  readonly body: string;
}

export interface RunOptions {
  readonly timeoutMs?: number;
  readonly compat?: CaptureMode;
  /** Answer each request from these (a multi-step sample); absent: every request is answered 200 with `{}`, as the capture always did. */
  readonly stubs?: readonly Stub[];
}

const NOT_FOUND = JSON.stringify({ status: 404, headers: { 'content-type': 'application/json' }, body: '{"error":"not_found"}' });

/** The answer stubs give a request (by its method and normalised URL), as JSON text for the program's side; `patterns` are the stubs' URL patterns, compiled once per run. */
function stubAnswer(stubs: readonly Stub[], patterns: readonly RegExp[], met: boolean[], request: RawRequest): string {
  let url: string | undefined;
  try {
    const target = new URL(request.sentUrl ?? request.fullPath ?? request.url);
    url = `${target.protocol}//${target.host}${decodeURIComponent(target.pathname)}`;
  } catch {
    url = undefined;
  }
  if (url === undefined || request.refused !== undefined) return NOT_FOUND;
  const method = request.method.toLowerCase();
  const matches = stubs.map((s, i) => (s.method.toLowerCase() === method && patterns[i]!.test(url) ? i : -1)).filter((i) => i >= 0);
  const pick = matches.find((i) => !met[i]) ?? matches.filter((i) => met[i]).at(-1);
  if (pick === undefined) return NOT_FOUND;
  met[pick] = true;
  const stub = stubs[pick]!;
  return JSON.stringify({ status: stub.status, headers: { 'content-type': 'application/json', ...(stub.headers ?? {}) }, body: stub.body });
}

export interface SandboxOptions {
  /** Isolate heap limit (MB). */
  readonly memoryLimitMb?: number;
  /** Wall-clock budget for one program, timers included (ms). */
  readonly timeoutMs?: number;
  /** Recycle the isolate once its heap grows past this (bytes). */
  readonly recycleHeapBytes?: number;
}

const require = createRequire(import.meta.url);
/** The real Axios, browser build (UMD), pinned in package.json; read by path since its exports map hides dist/. */
const AXIOS_SOURCE = fs.readFileSync(path.join(path.dirname(require.resolve('axios/package.json')), 'dist', 'axios.min.js'), 'utf8');
/** Node 20's web globals, the WHATWG streams among them from web-streams-polyfill's ponyfill (UMD), pinned in package.json. */
const NODE_GLOBALS = nodeGlobals(fs.readFileSync(path.join(path.dirname(require.resolve('web-streams-polyfill/package.json')), 'dist', 'ponyfill.es2018.js'), 'utf8'));

/** Host-side caps on what one program can hand over. */
const CAPS = { requests: 20, requestChars: 4 * 1024 * 1024, consoleLines: 2000, programChars: 1024 * 1024 };

const isTimeout = (e: unknown): boolean => e instanceof Error && /timed out/i.test(e.message);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPairs = (v: unknown): v is [string, string][] => Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string');

/** A record from the capture (JSON text the prelude wrote) → a RawRequest; anything malformed is refused. */
export function parseRecord(json: string): RawRequest {
  const refused = (why: string): RawRequest => ({ method: '', url: '', headers: null, params: null, body: { kind: 'none' }, refused: why });
  let r: unknown;
  try {
    r = JSON.parse(json);
  } catch {
    return refused('the request could not be recorded');
  }
  if (!isRecord(r)) return refused('the request could not be recorded');
  if (typeof r['refused'] === 'string') return refused(r['refused'].slice(0, 500));
  const { client, method, url, fullPath, sentUrl, headers, params, paramPairs, paramsText, auth, body } = r;
  const optionalText = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';
  if (typeof method !== 'string' || typeof url !== 'string' || typeof fullPath !== 'string' || !optionalText(sentUrl) || !optionalText(paramsText) || !optionalText(auth)) return refused('the request could not be recorded');
  if (!isRecord(body) || typeof body['kind'] !== 'string') return refused('the request body could not be recorded');
  let b: RawRequest['body'];
  if (body['kind'] === 'none') b = { kind: 'none' };
  else if (body['kind'] === 'text' && typeof body['value'] === 'string') b = { kind: 'text', value: body['value'] };
  else if (body['kind'] === 'object') b = { kind: 'object', value: body['value'] };
  else if (body['kind'] === 'form' && isPairs(body['entries'])) b = { kind: 'form', entries: body['entries'] };
  else return refused('the request body could not be recorded');
  if (paramPairs !== undefined && !isPairs(paramPairs)) return refused('the request params could not be recorded');
  return {
    ...clientField(clientOf(client)),
    method,
    url,
    fullPath,
    ...(sentUrl !== undefined ? { sentUrl } : {}),
    headers: isRecord(headers) ? headers : null,
    params: params ?? null,
    ...(paramPairs !== undefined ? { paramPairs } : {}),
    ...(typeof paramsText === 'string' ? { paramsText } : {}),
    ...(typeof auth === 'string' ? { auth } : {}),
    body: b,
  };
}

/**
 * Runs generated programs in an isolated-vm isolate: a fresh context per program on one
 * long-lived isolate, the real Axios inside with an adapter that records each request and
 * answers 200. No Node API, file system, network or host object is reachable from a context;
 * the one host function a context holds (the record channel) is taken off its global before
 * the program runs. The isolate is recycled after a timeout, an out-of-memory or once its heap
 * has grown. A program that wedges isolated-vm itself (a getter loop read outside the time
 * limit, a V8 abort) takes this process with it: run it under the supervisor (createExecutor).
 */
export class Sandbox implements Disposable {
  private readonly memoryLimitMb: number;
  private readonly timeoutMs: number;
  private readonly recycleHeapBytes: number;
  private isolate!: ivm.Isolate;
  private scripts!: ivm.Script[];
  private disposed = false;
  /** How many isolates this sandbox has started (1 + recycles). */
  isolatesStarted = 0;

  constructor(options: SandboxOptions = {}) {
    this.memoryLimitMb = options.memoryLimitMb ?? 64;
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.recycleHeapBytes = options.recycleHeapBytes ?? 40 * 1024 * 1024;
    this.start();
  }

  private start(): void {
    this.isolate = new ivm.Isolate({ memoryLimit: this.memoryLimitMb });
    this.scripts = [SHIMS, AXIOS_SOURCE, NODE_GLOBALS, CAPTURE].map((code, i) => this.isolate.compileScriptSync(code, { filename: `wapii-prelude-${i}.js` }));
    this.isolatesStarted++;
  }

  private recycle(): void {
    for (const s of this.scripts) s.release();
    if (!this.isolate.isDisposed) this.isolate.dispose();
    this.start();
  }

  run(code: string, options: RunOptions = {}): Execution {
    if (this.disposed) throw new Error('bug: sandbox used after dispose');
    if (this.isolate.isDisposed) this.recycle();
    const started = performance.now();
    const budget = options.timeoutMs ?? this.timeoutMs;
    const remaining = (): number => Math.max(1, Math.floor(budget - (performance.now() - started)));
    const requests: RawRequest[] = [];
    const consoleLines: string[] = [];
    let programError: Execution['error'];
    let requestChars = 0;
    // process.exit ends the program as Node does: nothing it does afterwards (a catch or finally
    // that swallowed the exit, the rejection it left, a loop, its timers) is recorded or held
    // against it. A thrown signal alone can be caught, so the host closes the channel here.
    let exited = false;
    // The one channel from the program's world to the host: strings only, counted and capped here.
    const met = (options.stubs ?? []).map(() => false);
    const patterns = (options.stubs ?? []).map((s) => new RegExp(s.url));
    // A request's answer goes back to the program as JSON text (stubs only); without stubs, nothing.
    const record = (kind: unknown, payload: unknown): string | undefined => {
      if (exited || typeof kind !== 'string' || typeof payload !== 'string') return undefined;
      if (kind === 'exit') exited = true;
      else if (kind === 'request') {
        if (requests.length >= CAPS.requests) return options.stubs ? NOT_FOUND : undefined;
        requestChars += payload.length;
        const request = requestChars > CAPS.requestChars ? parseRecord('{"refused":"the program sent more than 4 MB of requests"}') : parseRecord(payload);
        requests.push(request);
        return options.stubs ? stubAnswer(options.stubs, patterns, met, request) : undefined;
      } else if (kind === 'console') {
        if (consoleLines.length < CAPS.consoleLines) consoleLines.push(payload.slice(0, 4000));
      } else if ((kind === 'error' || kind === 'syntax') && !programError) {
        programError = { kind: kind === 'syntax' ? 'syntax' : 'exception', message: payload.slice(0, 2000) };
      }
      return undefined;
    };
    const context = this.isolate.createContextSync();
    const refs: ivm.Reference[] = [];
    let error: Execution['error'];
    try {
      context.global.setSync('__wapiiHost', new ivm.Callback(record));
      let control: ivm.Reference | undefined;
      for (const s of this.scripts) {
        const result = s.runSync(context, { timeout: remaining(), reference: true }) as ivm.Reference;
        refs.push(result);
        control = result;
      }
      const runRef = control!.getSync('run', { reference: true }) as ivm.Reference;
      const tickRef = control!.getSync('tick', { reference: true }) as ivm.Reference;
      refs.push(runRef, tickRef);
      if (code.length > CAPS.programChars) programError = { kind: 'syntax', message: 'the program is longer than 1 MB' };
      else {
        runRef.applySync(undefined, [wrapProgram(code), options.compat ?? 'default'], { timeout: remaining() });
        // Fire the virtual timers one at a time, each followed by its ticks and promise jobs.
        while (!exited && performance.now() - started < budget && tickRef.applySync(undefined, [], { timeout: remaining() }) === true);
        if (!exited && performance.now() - started >= budget) throw new Error('Script execution timed out.');
      }
    } catch (e) {
      if (this.isolate.isDisposed) error = { kind: 'memory', message: `the program ran out of memory (${this.memoryLimitMb} MB)` };
      else if (isTimeout(e)) error = { kind: 'timeout', message: `the program ran longer than ${budget} ms` };
      // isolated-vm reports a promise the program rejected and never handled; its value is the program's, so it is not read.
      else error = { kind: 'exception', message: 'the program left a promise rejected (an unhandled rejection)' };
    } finally {
      for (const r of refs) r.release();
      if (!this.isolate.isDisposed) context.release();
    }
    error ??= programError;
    if (error?.kind === 'timeout' || error?.kind === 'memory' || this.isolate.isDisposed || this.heapUsed() > this.recycleHeapBytes) this.recycle();
    // What ended the isolate's work after process.exit (a timeout, an unhandled rejection) is not the program's error; one recorded before it is.
    if (exited) error = programError;
    return { requests, console: consoleLines, ...(error ? { error } : {}), durationMs: performance.now() - started };
  }

  private heapUsed(): number {
    return this.isolate.isDisposed ? Infinity : this.isolate.getHeapStatisticsSync().used_heap_size;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.scripts) s.release();
    if (!this.isolate.isDisposed) this.isolate.dispose();
  }
}
