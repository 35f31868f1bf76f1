import path from 'node:path';
import type { Output, Parsed } from '../api/contract.js';
import type { Subset } from '../api/reports.js';
import { unwrap, WapiiError } from '../api/result.js';
import { exportFlat, parseDataset } from '../dataset/index.js';
import { reportOf } from '../runner/index.js';
import { failedWithoutSolvedWith } from '../scoring/index.js';
import { sha256, type Store, type StoredRun } from '../store/index.js';

const describeRun = (run: StoredRun): Subset['provenance']['runs']['with'] => {
  const manifest = (run.manifest ?? {}) as Record<string, Subset['provenance']['runs']['with']['model']>;
  return { id: run.id, kind: run.kind, knowledge: manifest['knowledge'] ?? 'none', model: manifest['modelSha256'] ?? null, modelFile: manifest['modelFile'] ?? null, createdAt: run.createdAt };
};

/**
 * `wapii subset`: a model-conditional dataset, the samples a model fails in one run (e.g. knowledge
 * none) and solves in another (e.g. full) of the same dataset file, with its provenance. `dataset`
 * is that file (the caller reads it where the runs recorded it).
 */
export function deriveSubset(store: Store, input: Parsed<'deriveSubset'>): Output<'deriveSubset'> {
  const load = (id: number): StoredRun => {
    const run = store.getRun(id);
    if (!run) throw new WapiiError('not_found', `run ${id} does not exist`);
    return run;
  };
  const [without, withKnowledge] = [load(input.without), load(input.with)];
  if (without.dataset !== withKnowledge.dataset) throw new WapiiError('bad_input', `runs ${without.id} and ${withKnowledge.id} are on different datasets (${without.dataset}, ${withKnowledge.dataset})`);
  const [a, b] = [describeRun(without), describeRun(withKnowledge)];
  if (a.model !== b.model) throw new WapiiError('bad_input', `runs ${without.id} and ${withKnowledge.id} were made with different models: a model-conditional subset compares one model with itself`);
  if (!input.dataset) throw new WapiiError('bad_input', `runs ${without.id} and ${withKnowledge.id} were made on the dataset file ${without.dataset}: give its content (\`dataset\`)`);
  const samples = unwrap(parseDataset(input.dataset.content, input.dataset.filename));
  const kept = failedWithoutSolvedWith(reportOf(without).samples, reportOf(withKnowledge).samples);
  return {
    dataset: exportFlat(kept.map((i) => samples[i]!).filter((s) => s !== undefined)),
    provenance: {
      rule: `failed in run ${without.id} (no output correct) and solved in run ${withKnowledge.id} (an output correct)`,
      source: { dataset: path.resolve(without.dataset), sha256: sha256(input.dataset.content), samples: kept },
      runs: { without: a, with: b },
    },
  };
}
