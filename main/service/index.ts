import path from 'node:path';
import { unwrap } from '../api/result.js';
import { defaultDatabasePath, Store } from '../store/index.js';
import type { PrepareImport } from './prepareInWorker.js';
import { WorkbenchService, type ServiceOptions } from './service.js';

export { callMethod, localClient, WorkbenchService, type ServiceOptions } from './service.js';
export { apiOfSpecFile, prepareDataset, type PreparedDataset } from './prepare.js';
export { readDemo, type Demo, type DemoRun } from './demo.js';
export { makeTestModel, TEST_MODEL_VOCABULARIES, type TestModelShape, type TestModelVocabulary } from './testModels.js';
export { prepareInWorker, stopImportWorker, type PrepareImport } from './prepareInWorker.js';

export interface Workbench extends Disposable {
  readonly store: Store;
  readonly service: WorkbenchService;
  readonly dbPath: string;
  /** Stops the run queue (a running run becomes interrupted, resumable), unloads the model, closes the database. */
  shutdown(): Promise<void>;
}

/** Opens the database (default: the user's data directory; `:memory:`, one of this process alone) and the service on top of it. */
export function openWorkbench(
  options: { db?: string | undefined; author?: string; prepare?: PrepareImport; evaluation?: Partial<NonNullable<ServiceOptions['evaluation']>>; apiKeys?: ServiceOptions['apiKeys'] } = {},
): Workbench {
  const dbPath = options.db ?? defaultDatabasePath();
  const store = unwrap(Store.open(dbPath));
  // Models live beside the database unless $WAPII_MODELS or the caller says otherwise.
  const modelsFolder = options.evaluation?.modelsFolder ?? process.env['WAPII_MODELS'] ?? path.join(path.dirname(path.resolve(dbPath)), 'models');
  const service = new WorkbenchService({
    store,
    ...(options.author ? { author: options.author } : {}),
    ...(options.prepare ? { prepare: options.prepare } : {}),
    ...(options.apiKeys ? { apiKeys: options.apiKeys } : {}),
    evaluation: { dbPath: dbPath === ':memory:' ? dbPath : path.resolve(dbPath), ...options.evaluation, modelsFolder },
  });
  const shutdown = async (): Promise<void> => {
    await service.evaluation.shutdown();
    store.close();
  };
  return { store, service, dbPath, shutdown, [Symbol.dispose]: () => store.close() };
}
