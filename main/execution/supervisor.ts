import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CaptureMode, Execution, ExecutionErrorKind, RunOptions, SandboxOptions, Stub } from './sandbox.js';

export interface SupervisorOptions extends SandboxOptions {
  /** How many sandbox processes run programs side by side. */
  readonly processes: number;
  /** Added to a program's time limit before its process is stopped (ms): the isolate's own limit fires first unless isolated-vm itself is wedged. */
  readonly marginMs?: number;
  /** A sandbox process whose resident memory passes this is stopped (MB). */
  readonly memoryCeilingMb?: number;
}

interface Job {
  readonly id: number;
  readonly code: string;
  readonly timeoutMs: number;
  readonly compat: CaptureMode;
  readonly stubs?: readonly Stub[];
  readonly resolve: (e: Execution) => void;
  readonly reject: (e: Error) => void;
}

interface Child {
  readonly proc: ChildProcess;
  ready: boolean;
  /** Set once the supervisor killed it: its exit is expected and already handled. */
  stopped: boolean;
  job: Job | undefined;
  deadline: NodeJS.Timeout | undefined;
  /** When the current job was sent. */
  since: number;
  stderr: string;
}

// Under tsx (the CLI, tests) the child is TypeScript and needs tsx's loader; the Electron build emits
// sandbox-child.js beside the main bundle (this code may sit there or in a chunk folder below it).
const here = import.meta.url;
const CHILD_ENTRY = here.endsWith('.ts')
  ? fileURLToPath(new URL('./child-source.mjs', here))
  : (['./sandbox-child.js', '../sandbox-child.js'].map((p) => fileURLToPath(new URL(p, here))).find((p) => fs.existsSync(p)) ?? fileURLToPath(new URL('./sandbox-child.js', here)));
/** After this many processes in a row die before they are ready, the sandbox cannot start here: fail loudly rather than loop. */
const START_ATTEMPTS = 3;
const POLL_MS = 20;
/** V8's messages when it gives up on memory, which isolated-vm answers with abort(). */
const OOM = /out of memory|heap limit|allocation failed|invalid table size|invalid array length/i;

/** VmRSS of a process in MB, or undefined once it is gone (Linux /proc). */
export function residentMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const stoppedRun = (kind: ExecutionErrorKind, message: string, durationMs: number): Execution => ({ requests: [], console: [], error: { kind, message }, durationMs });

/**
 * Owns the sandbox processes: each runs programs one message at a time; the supervisor gives each
 * program a hard deadline (its time limit plus a margin) and a memory ceiling for its process, and
 * on overrun, crash or abort kills the process, answers the program with a `timeout`, `memory` or
 * `crashed` error and starts a replacement, so the run goes on. The supervisor never runs program
 * code, and reads nothing of a program but what its sandbox sends back.
 */
export class Supervisor implements AsyncDisposable {
  readonly size: number;
  private readonly options: SupervisorOptions;
  private readonly children: Child[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private failedStarts = 0;
  private readonly poll: NodeJS.Timeout;
  /** How many sandbox processes were started (the first ones and every replacement). */
  started = 0;
  /** The most resident memory seen in one sandbox process while it ran a program (MB; Linux only). */
  peakResidentMb = 0;

  constructor(options: SupervisorOptions) {
    this.options = options;
    this.size = Math.max(1, options.processes);
    for (let i = 0; i < this.size; i++) this.spawn();
    this.poll = setInterval(() => this.checkMemory(), POLL_MS);
    this.poll.unref();
  }

  private get ceilingMb(): number {
    return this.options.memoryCeilingMb ?? 512;
  }

  private spawn(): void {
    const { memoryLimitMb, timeoutMs, recycleHeapBytes } = this.options;
    const proc = fork(CHILD_ENTRY, [JSON.stringify({ memoryLimitMb, timeoutMs, recycleHeapBytes })], {
      // isolated-vm needs --no-node-snapshot on Node 20+; the child's own heap holds only its messages.
      execArgv: ['--no-node-snapshot', '--max-old-space-size=256'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      // In Electron, process.execPath is the app: run it as plain Node.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    this.started++;
    const child: Child = { proc, ready: false, stopped: false, job: undefined, deadline: undefined, since: 0, stderr: '' };
    this.children.push(child);
    proc.stderr?.on('data', (chunk: Buffer) => {
      child.stderr = (child.stderr + chunk.toString()).slice(-4000);
    });
    proc.on('message', (message: { ready?: true; id?: number; execution?: Execution }) => this.onMessage(child, message));
    proc.on('exit', (code, signal) => this.onExit(child, code, signal));
    proc.on('error', () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    });
  }

  private onMessage(child: Child, message: { ready?: true; id?: number; execution?: Execution }): void {
    if (child.stopped) return;
    if (message.ready) {
      child.ready = true;
      this.failedStarts = 0;
    } else if (child.job && message.id === child.job.id && message.execution) {
      const job = child.job;
      clearTimeout(child.deadline);
      child.job = undefined;
      job.resolve(message.execution);
    }
    this.dispatch();
  }

  private onExit(child: Child, code: number | null, signal: NodeJS.Signals | null): void {
    const i = this.children.indexOf(child);
    if (i >= 0) this.children.splice(i, 1);
    if (child.stopped || this.closed) return;
    clearTimeout(child.deadline);
    const job = child.job;
    child.job = undefined;
    if (job) {
      const memory = OOM.test(child.stderr);
      job.resolve(
        stoppedRun(
          memory ? 'memory' : 'crashed',
          memory ? 'the program ran out of memory and took its sandbox process down' : `the sandbox process died running the program (${signal ?? `exit code ${code}`})`,
          performance.now() - child.since,
        ),
      );
    }
    if (!child.ready && ++this.failedStarts >= START_ATTEMPTS) {
      const last = child.stderr.trim().split('\n').pop() ?? '';
      const error = new Error(`the sandbox process could not start${last ? `: ${last.slice(0, 300)}` : ''}`);
      for (const queued of this.queue.splice(0)) queued.reject(error);
      return;
    }
    this.spawn();
  }

  /** Kills a child that overran, answers its program, and starts a replacement. */
  private stop(child: Child, kind: 'timeout' | 'memory', message: string): void {
    if (child.stopped) return;
    child.stopped = true;
    clearTimeout(child.deadline);
    child.proc.kill('SIGKILL');
    const job = child.job;
    child.job = undefined;
    const i = this.children.indexOf(child);
    if (i >= 0) this.children.splice(i, 1);
    job?.resolve(stoppedRun(kind, message, performance.now() - child.since));
    if (!this.closed) this.spawn();
    this.dispatch();
  }

  private checkMemory(): void {
    for (const child of this.children) {
      if (!child.job || child.proc.pid === undefined) continue;
      const mb = residentMb(child.proc.pid);
      if (mb !== undefined && mb > this.peakResidentMb) this.peakResidentMb = mb;
      if (mb !== undefined && mb > this.ceilingMb) this.stop(child, 'memory', `the program's sandbox process passed ${this.ceilingMb} MB and was stopped`);
    }
  }

  private dispatch(): void {
    for (const child of this.children) {
      if (this.queue.length === 0) return;
      if (!child.ready || child.stopped || child.job) continue;
      const job = this.queue.shift()!;
      child.job = job;
      child.since = performance.now();
      const margin = this.options.marginMs ?? 1000;
      child.deadline = setTimeout(() => this.stop(child, 'timeout', `the program ran past ${job.timeoutMs} ms and its sandbox process was stopped`), job.timeoutMs + margin);
      child.proc.send({ id: job.id, code: job.code, timeoutMs: job.timeoutMs, compat: job.compat, ...(job.stubs ? { stubs: job.stubs } : {}) }, (error) => {
        if (error && child.job === job) this.stop(child, 'timeout', 'the sandbox process stopped answering');
      });
    }
  }

  run(code: string, options: RunOptions = {}): Promise<Execution> {
    return new Promise<Execution>((resolve, reject) => {
      if (this.closed) return reject(new Error('bug: executor used after dispose'));
      this.queue.push({ id: this.nextId++, code, timeoutMs: options.timeoutMs ?? this.options.timeoutMs ?? 1000, compat: options.compat ?? 'default', ...(options.stubs ? { stubs: options.stubs } : {}), resolve, reject });
      this.dispatch();
    });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.poll);
    const closed = new Error('the sandbox was closed before the program ran');
    for (const job of this.queue.splice(0)) job.reject(closed);
    await Promise.all(
      this.children.splice(0).map(
        (child) =>
          new Promise<void>((resolve) => {
            clearTimeout(child.deadline);
            child.job?.reject(closed);
            if (child.proc.exitCode !== null || child.proc.signalCode !== null) return resolve();
            child.proc.once('exit', () => resolve());
            child.proc.kill('SIGKILL');
          }),
      ),
    );
  }
}
