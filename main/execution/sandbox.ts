import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import ivm from 'isolated-vm';
import { CAPTURE, SHIMS } from './prelude.js';
import { wrapProgram } from './program.js';

/** A request as the capturing adapter saw it, before normalisation (scoring.md §3). */
export interface RawRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Record<string, unknown> | null;
  readonly params: unknown;
  readonly body:
    | { readonly kind: 'none' }
    | { readonly kind: 'text'; readonly value: string }
    | { readonly kind: 'json'; readonly value: unknown }
    | { readonly kind: 'form'; readonly entries: readonly (readonly [string, string])[] };
}

export type ExecutionErrorKind = 'syntax' | 'exception' | 'timeout' | 'memory';

/** What running one program did: the requests it sent, what it logged, and how it ended. */
export interface Execution {
  readonly requests: readonly RawRequest[];
  readonly console: readonly string[];
  readonly error?: { readonly kind: ExecutionErrorKind; readonly message: string };
  readonly durationMs: number;
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

const isTimeout = (e: unknown): boolean => e instanceof Error && /timed out/i.test(e.message);

/**
 * Runs generated programs in an isolated-vm isolate: a fresh context per program on one
 * long-lived isolate, the real Axios inside with an adapter that records each request and
 * answers 200. No Node API, file system, network or host object is reachable from a context.
 * The isolate is recycled after a timeout, an out-of-memory or once its heap has grown.
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
    this.scripts = [SHIMS, AXIOS_SOURCE, CAPTURE].map((code, i) => this.isolate.compileScriptSync(code, { filename: `wapii-prelude-${i}.js` }));
    this.isolatesStarted++;
  }

  private recycle(): void {
    for (const s of this.scripts) s.release();
    if (!this.isolate.isDisposed) this.isolate.dispose();
    this.start();
  }

  run(code: string, options: { timeoutMs?: number } = {}): Execution {
    if (this.disposed) throw new Error('bug: sandbox used after dispose');
    if (this.isolate.isDisposed) this.recycle();
    const started = performance.now();
    const budget = options.timeoutMs ?? this.timeoutMs;
    const remaining = (): number => Math.max(1, Math.floor(budget - (performance.now() - started)));
    const context = this.isolate.createContextSync();
    let script: ivm.Script | undefined;
    let error: Execution['error'];
    let result = '{"requests":[],"console":[],"errors":[]}';
    try {
      for (const s of this.scripts) s.runSync(context, { timeout: remaining() });
      try {
        script = this.isolate.compileScriptSync(wrapProgram(code), { filename: 'program.js' });
      } catch (e) {
        error = { kind: 'syntax', message: e instanceof Error ? e.message : String(e) };
      }
      if (script) {
        script.runSync(context, { timeout: remaining() });
        // Fire the virtual timers one at a time, each followed by its promise jobs.
        while (performance.now() - started < budget && context.evalSync('__wapiiTick()', { timeout: remaining() }) === true);
        if (performance.now() - started >= budget) throw new Error('Script execution timed out.');
      }
      result = context.evalSync('__wapiiResult()', { timeout: remaining() }) as string;
    } catch (e) {
      if (this.isolate.isDisposed) error = { kind: 'memory', message: `the program ran out of memory (${this.memoryLimitMb} MB)` };
      else if (isTimeout(e)) error = { kind: 'timeout', message: `the program ran longer than ${budget} ms` };
      else error = { kind: 'exception', message: e instanceof Error ? e.message : String(e) };
      if (!this.isolate.isDisposed) {
        try {
          result = context.evalSync('__wapiiResult()', { timeout: 50 }) as string;
        } catch {
          // the context is wedged; the isolate is recycled below
        }
      }
    } finally {
      script?.release();
      if (!this.isolate.isDisposed) context.release();
    }
    const parsed = JSON.parse(result) as { requests: RawRequest[]; console: string[]; errors: string[] };
    if (!error && parsed.errors.length > 0) error = { kind: 'exception', message: parsed.errors[0] ?? 'error' };
    if (error?.kind === 'timeout' || error?.kind === 'memory' || this.isolate.isDisposed || this.heapUsed() > this.recycleHeapBytes) this.recycle();
    return { requests: parsed.requests, console: parsed.console, ...(error ? { error } : {}), durationMs: performance.now() - started };
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
