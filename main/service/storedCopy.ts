import type { FileInput } from '../api/contract.js';
import { unwrap, WapiiError, type Result } from '../api/result.js';
import { sha256, type Store } from '../store/index.js';
import { prepareDataset, type PreparedDataset } from './prepare.js';

/**
 * importDataset's `reuse`: the stored dataset of the name (else of `<name>-<8 hex digits of the
 * files' sha-256>`) that holds the same samples and specs as the files given, so a dataset file
 * run again (`wapii run --dataset <file> --specs <dir>`) is found rather than stored twice; else
 * the first of the two names that is free. 'conflict' when both hold other samples or specs.
 */
export async function storedCopy(store: Store, input: { readonly name: string; readonly dataset: FileInput; readonly specs: readonly FileInput[] }): Promise<{ readonly existing: number } | { readonly name: string }> {
  // Read once, and only to compare with a dataset already stored under the name: importing reads it itself.
  let prepared: Result<PreparedDataset> | undefined;
  const same = async (id: number): Promise<boolean> => {
    prepared ??= await prepareDataset(input.dataset, input.specs);
    const p = unwrap(prepared);
    const stored = store.listSamples(id).map((s) => JSON.stringify([s.api, s.task, s.config, s.fields ?? null]));
    const given = p.samples.map((s) => JSON.stringify([s.api, s.task, s.config, s.fields ?? null]));
    const apis = store.datasetApis(id);
    return JSON.stringify(stored) === JSON.stringify(given) && apis.size === p.specs.size && [...p.specs].every(([api, spec]) => apis.get(api) === sha256(spec.file.content));
  };
  const hash = sha256(`${input.dataset.content}\0${input.specs.map((f) => `${f.filename}\0${f.content}`).join('\0')}`).slice(0, 8);
  for (const name of [input.name, `${input.name}-${hash}`]) {
    const existing = store.findDataset(name);
    if (!existing) return { name };
    if (await same(existing.id)) return { existing: existing.id };
  }
  throw new WapiiError('conflict', `datasets "${input.name}" and "${input.name}-${hash}" are stored with other samples or specs than ${input.dataset.filename}; import it under another name`);
}
