import fs from 'node:fs';
import { unwrap, WapiiError } from '../api/result.js';
import type { RequestConfig } from '../api/schemas.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { openWorkbench, prepareDataset } from '../service/index.js';
import { readFileInput } from './files.js';
import { readSpecFolder } from './specFolder.js';

export interface DatasetInput {
  readonly name: string;
  /** In file (or stored) order; `index` is the position. */
  readonly samples: readonly { index: number; id: string; api: string; task: string; config: RequestConfig }[];
  readonly specs: ReadonlyMap<string, ApiSpec>;
}

/**
 * `--dataset <file|id|name>`: a dataset file (with `--specs <dir>`), else a stored dataset by id
 * or name with the specs it was imported with.
 */
export async function loadDatasetInput(ref: string, specsDir: string | undefined, db: string | undefined): Promise<DatasetInput> {
  if (fs.existsSync(ref) && fs.statSync(ref).isFile()) {
    if (!specsDir) throw new WapiiError('bad_input', `--dataset ${ref} is a file: give its spec folder with --specs <dir>`);
    const prepared = unwrap(await prepareDataset(unwrap(readFileInput(ref)), unwrap(await readSpecFolder(specsDir))));
    return {
      name: ref,
      samples: prepared.samples.map((s, index) => ({ index, id: s.id, api: s.api, task: s.task, config: s.config })),
      specs: new Map([...prepared.specs].map(([api, p]) => [api, p.spec])),
    };
  }
  using wb = openWorkbench({ db });
  const dataset = wb.store.findDataset(ref);
  if (!dataset) throw new WapiiError('not_found', `--dataset "${ref}" is neither a file nor a stored dataset's id or name (see \`wapii list\`)`);
  const specs = new Map<string, ApiSpec>();
  for (const [api, hash] of wb.store.datasetApis(dataset.id)) {
    const stored = wb.store.getSpec(hash);
    if (!stored) throw new WapiiError('internal', `bug: spec ${hash} is referenced but not stored`);
    specs.set(api, unwrap(await loadSpec(stored.content, stored.filename)));
  }
  const samples = wb.store.listSamples(dataset.id).map((s) => ({ index: s.position, id: s.id, api: s.api, task: s.task, config: s.config }));
  return { name: dataset.name, samples, specs };
}
