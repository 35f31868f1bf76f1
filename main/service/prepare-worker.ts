// prepareDataset on its own thread, for prepareInWorker. Jobs {id, dataset, specs} in; for each,
// {id, type: 'progress', ...} messages, then one {id, type: 'done', result} out.
import { parentPort } from 'node:worker_threads';
import type { FileInput } from '../api/contract.js';
import type { Result } from '../api/result.js';
import { prepareDataset, type PrepareOptions } from './prepare.js';
import type { ImportPlan } from './prepareInWorker.js';

parentPort?.on('message', (job: { id: number; dataset: FileInput; specs: FileInput[]; options: PrepareOptions }) => {
  void (async () => {
    const progress = (done: number, total: number, message: string): void => parentPort?.postMessage({ id: job.id, type: 'progress', done, total, message });
    const reading = (file: string): void => parentPort?.postMessage({ id: job.id, type: 'reading', file });
    const prepared = await prepareDataset(job.dataset, job.specs, progress, { ...job.options, reading });
    // A parsed spec holds more than a message can carry; the import needs only its title.
    const result: Result<ImportPlan> = prepared.ok
      ? { ok: true, value: { samples: prepared.value.samples, ...(prepared.value.skipped ? { skipped: prepared.value.skipped } : {}), ...(prepared.value.brokenRefs ? { brokenRefs: prepared.value.brokenRefs } : {}), ...(prepared.value.serverFor ? { serverFor: prepared.value.serverFor } : {}), specs: new Map([...prepared.value.specs].map(([api, s]) => [api, { api, file: s.file, ...(s.original ? { original: s.original } : {}), spec: { title: s.spec.title } }])) } }
      : prepared;
    parentPort?.postMessage({ id: job.id, type: 'done', result });
  })();
});
