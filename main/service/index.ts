import { unwrap } from '../api/result.js';
import { defaultDatabasePath, Store } from '../store/index.js';
import type { PrepareImport } from './prepareInWorker.js';
import { WorkbenchService } from './service.js';

export { callMethod, localClient, WorkbenchService, type ServiceOptions } from './service.js';
export { apiOfSpecFile, prepareDataset, type PreparedDataset } from './prepare.js';
export { readDemo } from './demo.js';
export { prepareInWorker, stopImportWorker, type PrepareImport } from './prepareInWorker.js';

export interface Workbench extends Disposable {
  readonly store: Store;
  readonly service: WorkbenchService;
  readonly dbPath: string;
}

/** Opens the database (default: the user's data directory) and the service on top of it. */
export function openWorkbench(options: { db?: string | undefined; author?: string; prepare?: PrepareImport } = {}): Workbench {
  const dbPath = options.db ?? defaultDatabasePath();
  const store = unwrap(Store.open(dbPath));
  const service = new WorkbenchService({ store, ...(options.author ? { author: options.author } : {}), ...(options.prepare ? { prepare: options.prepare } : {}) });
  return { store, service, dbPath, [Symbol.dispose]: () => store.close() };
}
