import fs from 'node:fs';
import type { Input, WorkbenchApi } from '../api/contract.js';
import { unwrap, WapiiError } from '../api/result.js';
import { readFileInput } from './files.js';
import { readSpecFolder } from './specFolder.js';
import { findStoredDataset } from './withService.js';

/** A dataset a file tool of the service reads. */
export type DatasetSource = Input<'measureRecall'>['source'];

/** Whether `--dataset` names a file (a command on one opens no database). */
export const isDatasetFile = (ref: string): boolean => fs.existsSync(ref) && fs.statSync(ref).isFile();

/**
 * `--dataset <file|id|name>`: a dataset file (with `--specs <dir>`), read here, else a stored
 * dataset by id or name (the service reads it with the specs it was imported with).
 */
export async function datasetSource(ref: string, specsDir: string | undefined, client: WorkbenchApi): Promise<DatasetSource> {
  if (isDatasetFile(ref)) {
    if (!specsDir) throw new WapiiError('bad_input', `--dataset ${ref} is a file: give its spec folder with --specs <dir>`);
    return { dataset: unwrap(readFileInput(ref)), specs: unwrap(await readSpecFolder(specsDir)) };
  }
  const dataset = findStoredDataset(await client.listDatasets({}), ref);
  if (!dataset) throw new WapiiError('not_found', `--dataset "${ref}" is neither a file nor a stored dataset's id or name (see \`wapii list\`)`);
  return { datasetId: dataset.id };
}
