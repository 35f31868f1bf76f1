import type { WorkbenchApi } from '../api/contract.js';
import { WapiiError } from '../api/result.js';
import type { DatasetSummary } from '../api/schemas.js';
import { localClient, openWorkbench, type ServiceOptions, type Workbench } from '../service/index.js';

/** How a command's service decodes (`wapii run`): GPU, threads, step deadline, chat wrapper, progress. */
export type EvaluationChoices = Partial<NonNullable<ServiceOptions['evaluation']>>;
/** A run's progress as the service reports it while the run generates. */
export type RunProgress = Parameters<NonNullable<EvaluationChoices['onProgress']>>[1];

/**
 * Calls `fn` with the service in this process (through the contract's in-process client), on the
 * database `db` (`--db`; undefined: the default), or with `null` on an in-memory one, so a command
 * that stores nothing never opens, creates or migrates the user's database. Shut down after.
 */
export async function withService<T>(db: string | undefined | null, fn: (client: WorkbenchApi, wb: Workbench) => Promise<T> | T, evaluation?: EvaluationChoices): Promise<T> {
  const wb = openWorkbench({ db: db === null ? ':memory:' : db, ...(evaluation ? { evaluation } : {}) });
  try {
    return await fn(localClient(wb.service), wb);
  } finally {
    await wb.shutdown();
  }
}

/** A stored dataset by id (digits) or exact name, as the store finds one. */
export function findStoredDataset(datasets: readonly DatasetSummary[], ref: string): DatasetSummary | undefined {
  return /^\d+$/.test(ref) ? datasets.find((d) => d.id === Number(ref)) : datasets.find((d) => d.name === ref);
}

/** `no run "7" in <db> (have: 1, 2)`: what a command says of a run it cannot find. */
export async function noRun(client: WorkbenchApi, wb: Workbench, ref: string, quoted: boolean, list = true): Promise<WapiiError> {
  const have = list ? ` (have: ${(await client.listRuns({})).map((r) => r.id).sort((a, b) => a - b).join(', ') || 'none'})` : '';
  return new WapiiError('not_found', `no run ${quoted ? `"${ref}"` : ref} in ${wb.dbPath}${have}`);
}
