import os from 'node:os';
import type { Execution, RunOptions, SandboxOptions } from './sandbox.js';
import { Supervisor } from './supervisor.js';

/** Runs programs, each in a supervised sandbox process. */
export interface Executor extends AsyncDisposable {
  run(code: string, options?: RunOptions): Execution | Promise<Execution>;
  readonly size: number;
}

/** Cores left for sandboxes: all but one, which stays with the caller. */
export const defaultPoolSize = (): number => Math.max(1, os.availableParallelism() - 1);

export interface ExecutorOptions extends SandboxOptions {
  /** How many sandbox processes (default: one per core but one). */
  readonly workers?: number;
  /** Added to the time limit before a program's process is stopped (ms, default 1000). */
  readonly marginMs?: number;
  /** Resident memory at which a sandbox process is stopped (MB, default 512). */
  readonly memoryCeilingMb?: number;
}

/**
 * Sandboxes in supervised child processes, each with its own isolate; programs go to whichever
 * is free. Every caller (`wapii score`, runs, the oracle check) scores through this, so no
 * program can stall, crash or abort the process that holds the results.
 */
export function createExecutor(options: ExecutorOptions = {}): Executor & { readonly supervisor: Supervisor } {
  const supervisor = new Supervisor({ ...options, processes: options.workers ?? defaultPoolSize() });
  return {
    supervisor,
    get size() {
      return supervisor.size;
    },
    run: (code, o) => supervisor.run(code, o),
    [Symbol.asyncDispose]: () => supervisor[Symbol.asyncDispose](),
  };
}
