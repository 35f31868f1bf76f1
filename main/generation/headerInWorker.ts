import { Worker } from 'node:worker_threads';
import type { GgufFileInfo } from 'node-llama-cpp';
import { fail, type Result } from '../api/result.js';

/**
 * The heap a header read may use. A real model's header (a 262k-token vocabulary with its scores
 * and merges, about 20 MB) parses in well under 100 MB; the cap stays far below the point where V8
 * aborts the whole process on one oversized array instead of failing the thread.
 */
export const HEADER_HEAP_MB = 256;

interface Job {
  readonly id: number;
  readonly file: string;
  readonly resolve: (result: Result<GgufFileInfo>) => void;
}

let worker: Worker | undefined;
let current: Job | undefined;
let nextId = 1;
let queue: Promise<unknown> = Promise.resolve();

function headerWorker(): Worker {
  if (worker) return worker;
  // Under tsx (the CLI, tests) the worker is TypeScript and needs tsx's loader; built code runs the .js file.
  const here = import.meta.url;
  const created = new Worker(new URL(here.endsWith('.ts') ? './header-worker-source.mjs' : './header-worker.js', here), { resourceLimits: { maxOldGenerationSizeMb: HEADER_HEAP_MB } });
  created.unref();
  const finish = (result: Result<GgufFileInfo>): void => {
    const job = current;
    current = undefined;
    // Idle, it never holds the process open; while it reads, it must (a CLI awaiting the answer has nothing else keeping it alive).
    created.unref();
    job?.resolve(result);
  };
  created.on('message', (message: { id: number; result: Result<GgufFileInfo> }) => {
    if (message.id === current?.id) finish(message.result);
  });
  created.on('error', (error: Error & { code?: string }) => {
    worker = undefined;
    finish(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? fail('bad_input', `reading its GGUF header needed more than ${HEADER_HEAP_MB} MB; the header is malformed or declares far more than a model holds`)
        : fail('internal', `internal error: the GGUF header reader stopped: ${error.message.split('\n')[0]}`),
    );
  });
  created.on('exit', (code) => {
    worker = undefined;
    finish(fail('internal', `internal error: the GGUF header reader stopped (worker exit ${code})`));
  });
  worker = created;
  return created;
}

/**
 * A model file's header as node-llama-cpp reads it, read on a worker thread with a capped heap:
 * a model file is untrusted (a download, a folder scan), and a header that explodes while parsing
 * ends that read with `bad_input`, not the process. The bounded reader of main/gguf checks every
 * declared count first. One file at a time; the worker is kept for the next one and replaced after a failure.
 */
export function readModelHeader(file: string): Promise<Result<GgufFileInfo>> {
  const run = queue.then(
    () =>
      new Promise<Result<GgufFileInfo>>((resolve) => {
        const job: Job = { id: nextId++, file, resolve };
        current = job;
        const reader = headerWorker();
        reader.ref();
        reader.postMessage({ id: job.id, file });
      }),
  );
  queue = run;
  return run;
}

/** Ends the header worker (a server that stops); the next read starts a new one. */
export async function stopHeaderWorker(): Promise<void> {
  const running = worker;
  worker = undefined;
  await running?.terminate();
}
