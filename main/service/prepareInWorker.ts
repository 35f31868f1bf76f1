import { Worker } from 'node:worker_threads';
import type { FileInput } from '../api/contract.js';
import { fail, type Result } from '../api/result.js';
import type { ApiSpec } from '../openapi/index.js';
import type { PreparedDataset, PrepareOptions, ProgressFn } from './prepare.js';

/** What an import stores: the checked samples and, per API, its spec file and title. prepareDataset's result is one. */
export interface ImportPlan {
  readonly samples: PreparedDataset['samples'];
  readonly specs: ReadonlyMap<string, { readonly api: string; readonly file: FileInput; readonly original?: FileInput; readonly spec: Pick<ApiSpec, 'title'> }>;
  readonly skipped?: PreparedDataset['skipped'];
  readonly brokenRefs?: PreparedDataset['brokenRefs'];
  readonly serverFor?: PreparedDataset['serverFor'];
}

export type PrepareImport = (dataset: FileInput, specs: readonly FileInput[], progress?: ProgressFn, options?: PrepareOptions) => Promise<Result<ImportPlan>>;

/** The heap an import's parse and check may use; far above WAPIIBench's, far below the machine's. */
const IMPORT_HEAP_MB = 1024;

/** The import heap: WAPII_IMPORT_HEAP_MB where set to a whole number of MB (a small machine, a test), else IMPORT_HEAP_MB; read when a worker starts. */
function importHeapMb(): number {
  const set = Number(process.env['WAPII_IMPORT_HEAP_MB']);
  return Number.isInteger(set) && set >= 16 ? set : IMPORT_HEAP_MB;
}

type WorkerMessage =
  | { id: number; type: 'progress'; done: number; total: number; message: string }
  | { id: number; type: 'reading'; file: string }
  | { id: number; type: 'done'; result: Result<ImportPlan> };

interface Job {
  readonly id: number;
  /** The file the worker said it reads now: what a refusal at the memory limit names. */
  reading: string;
  readonly progress: ProgressFn | undefined;
  readonly resolve: (result: Result<ImportPlan>) => void;
}

let worker: Worker | undefined;
let current: Job | undefined;
let nextId = 1;
let queue: Promise<unknown> = Promise.resolve();

/** The one import worker, started on first use and kept (its loaded modules make the next import faster); it never holds the process open. */
function importWorker(): Worker {
  if (worker) return worker;
  // Under tsx (the CLI, tests) the worker is TypeScript and needs tsx's loader; built code runs the .js file.
  const here = import.meta.url;
  const heapMb = importHeapMb();
  const created = new Worker(new URL(here.endsWith('.ts') ? './prepare-worker-source.mjs' : './prepare-worker.js', here), { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
  created.unref();
  const finish = (result: Result<ImportPlan>): void => {
    const job = current;
    current = undefined;
    job?.resolve(result);
  };
  created.on('message', (message: WorkerMessage) => {
    if (message.id !== current?.id) return;
    if (message.type === 'progress') current.progress?.(message.done, message.total, message.message);
    else if (message.type === 'reading') current.reading = message.file;
    else finish(message.result);
  });
  created.on('error', (error: Error & { code?: string }) => {
    worker = undefined;
    finish(
      error.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? fail('bad_input', `${current?.reading ?? 'the import'}: reading it needed more than ${heapMb} MB; is the file unusually large or self-referencing?`)
        : fail('internal', `internal error: the import stopped: ${error.message.split('\n')[0]}`),
    );
  });
  created.on('exit', (code) => {
    worker = undefined;
    finish(fail('internal', `internal error: the import stopped (worker exit ${code})`));
  });
  worker = created;
  return created;
}

/**
 * prepareDataset (parse the files, load the specs, check every sample) on a worker thread, so a
 * server keeps answering other requests while a large import is read. One import at a time,
 * with a capped heap: input that explodes while parsing ends that import with an error, not the
 * process (the worker is replaced for the next one).
 */
export const prepareInWorker: PrepareImport = (dataset, specs, progress, options) => {
  const run = queue.then(
    () =>
      new Promise<Result<ImportPlan>>((resolve) => {
        const job: Job = { id: nextId++, reading: dataset.filename, progress, resolve };
        current = job;
        importWorker().postMessage({ id: job.id, dataset, specs, options: options ?? {} });
      }),
  );
  queue = run;
  return run;
};

/** Ends the import worker (a server that stops); the next import starts a new one. */
export async function stopImportWorker(): Promise<void> {
  const running = worker;
  worker = undefined;
  await running?.terminate();
}
