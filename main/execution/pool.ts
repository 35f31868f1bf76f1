import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { Sandbox, type Execution, type SandboxOptions } from './sandbox.js';

/** Runs programs; one sandbox in this thread, or a pool of sandboxes on worker threads. */
export interface Executor extends AsyncDisposable {
  run(code: string, options?: { timeoutMs?: number }): Execution | Promise<Execution>;
  readonly size: number;
}

/** Cores left for sandboxes: all but one, which stays with the caller. */
export const defaultPoolSize = (): number => Math.max(1, os.availableParallelism() - 1);

interface Job {
  readonly id: number;
  readonly code: string;
  readonly timeoutMs: number | undefined;
  readonly resolve: (e: Execution) => void;
  readonly reject: (e: Error) => void;
}

/**
 * Sandboxes on worker threads, each with its own isolate; programs go to whichever worker is
 * free. With one worker or fewer it runs in this thread instead (no point paying for messages).
 */
export function createExecutor(options: SandboxOptions & { workers?: number } = {}): Executor {
  const size = options.workers ?? defaultPoolSize();
  if (size <= 1) {
    const sandbox = new Sandbox(options);
    return { size: 1, run: async (code, o) => sandbox.run(code, o), [Symbol.asyncDispose]: async () => sandbox.dispose() };
  }
  // Under tsx (the CLI, tests) the worker is TypeScript and needs tsx's loader; built code runs the .js file.
  const here = import.meta.url;
  const isSource = here.endsWith('.ts');
  const workerUrl = new URL(isSource ? './worker-source.mjs' : './worker.js', here);
  const idle: Worker[] = [];
  const busy = new Map<Worker, Job>();
  const queue: Job[] = [];
  let nextId = 1;
  let closed = false;
  let alive = size;

  const dispatch = (): void => {
    while (idle.length > 0 && queue.length > 0) {
      const worker = idle.pop()!;
      const job = queue.shift()!;
      busy.set(worker, job);
      worker.postMessage({ id: job.id, code: job.code, timeoutMs: job.timeoutMs });
    }
  };
  const workers = Array.from({ length: size }, () => {
    const worker = new Worker(workerUrl, { workerData: { memoryLimitMb: options.memoryLimitMb, timeoutMs: options.timeoutMs, recycleHeapBytes: options.recycleHeapBytes } });
    worker.on('message', (message: { id: number; execution: Execution }) => {
      const job = busy.get(worker);
      busy.delete(worker);
      idle.push(worker);
      job?.resolve(message.execution);
      dispatch();
    });
    // A worker that dies takes its job with it; when none is left, so does every queued job.
    worker.on('exit', () => {
      const gone = new Error('a sandbox worker stopped unexpectedly');
      busy.get(worker)?.reject(gone);
      busy.delete(worker);
      const i = idle.indexOf(worker);
      if (i >= 0) idle.splice(i, 1);
      alive--;
      if (alive === 0 && !closed) for (const job of queue.splice(0)) job.reject(gone);
    });
    worker.on('error', () => undefined); // reported through 'exit'
    idle.push(worker);
    return worker;
  });

  return {
    size,
    run: (code, o) =>
      new Promise<Execution>((resolve, reject) => {
        if (closed) return reject(new Error('bug: executor used after dispose'));
        queue.push({ id: nextId++, code, timeoutMs: o?.timeoutMs, resolve, reject });
        dispatch();
      }),
    [Symbol.asyncDispose]: async () => {
      closed = true;
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}
