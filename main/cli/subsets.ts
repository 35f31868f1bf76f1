import path from 'node:path';
import type { Command } from 'commander';
import { unwrap, WapiiError } from '../api/result.js';
import { exportFlat, parseDataset } from '../dataset/index.js';
import { reportOf } from '../runner/index.js';
import { failedWithoutSolvedWith } from '../scoring/index.js';
import { openWorkbench } from '../service/index.js';
import { sha256, type StoredRun } from '../store/index.js';
import { readFileInput, writeFiles } from './files.js';
import type { CliIo } from './io.js';

const describeRun = (run: StoredRun): Record<string, unknown> => {
  const manifest = (run.manifest ?? {}) as Record<string, unknown>;
  return { id: run.id, kind: run.kind, knowledge: manifest['knowledge'] ?? 'none', model: manifest['modelSha256'] ?? null, modelFile: manifest['modelFile'] ?? null, createdAt: run.createdAt };
};

export function registerSubsetCommands(program: Command, io: CliIo): void {
  program
    .command('subset')
    .description("derive a model-conditional dataset: the samples a model fails in one run (e.g. knowledge none) and solves in another (e.g. full)")
    .requiredOption('--without <run>', 'the run without the knowledge (its failures are kept)')
    .requiredOption('--with <run>', 'the run with the knowledge (of those, its successes are kept)')
    .requiredOption('--out <file.json>', 'the derived dataset (flat WAPIIBench list); its provenance goes beside it as <name>.provenance.json')
    .option('--json', 'print the provenance')
    .action((opts: { without: string; with: string; out: string; json?: boolean }) => {
      if (!opts.out.endsWith('.json')) throw new WapiiError('bad_input', `--out must name a .json file, not "${opts.out}"`);
      using wb = openWorkbench({ db: program.opts<{ db?: string }>().db });
      const load = (ref: string): StoredRun => {
        const run = /^\d+$/.test(ref) ? wb.store.getRun(Number(ref)) : undefined;
        if (!run) throw new WapiiError('not_found', `no run "${ref}" in ${wb.dbPath} (have: ${wb.store.listRuns().map((r) => r.id).join(', ') || 'none'})`);
        return run;
      };
      const [without, withKnowledge] = [load(opts.without), load(opts.with)];
      if (without.dataset !== withKnowledge.dataset) throw new WapiiError('bad_input', `runs ${without.id} and ${withKnowledge.id} are on different datasets (${without.dataset}, ${withKnowledge.dataset})`);
      const [a, b] = [describeRun(without), describeRun(withKnowledge)];
      if (a['model'] !== b['model']) throw new WapiiError('bad_input', `runs ${without.id} and ${withKnowledge.id} were made with different models: a model-conditional subset compares one model with itself`);
      const file = unwrap(readFileInput(without.dataset));
      const samples = unwrap(parseDataset(file.content, file.filename));
      const kept = failedWithoutSolvedWith(reportOf(without).samples, reportOf(withKnowledge).samples);
      const provenance = {
        rule: `failed in run ${without.id} (no output correct) and solved in run ${withKnowledge.id} (an output correct)`,
        source: { dataset: path.resolve(without.dataset), sha256: sha256(file.content), samples: kept },
        runs: { without: a, with: b },
      };
      const provenanceFile = opts.out.replace(/\.json$/, '.provenance.json');
      unwrap(writeFiles(opts.out, { [path.basename(opts.out)]: exportFlat(kept.map((i) => samples[i]!).filter((s) => s !== undefined)) }));
      unwrap(writeFiles(provenanceFile, { [path.basename(provenanceFile)]: JSON.stringify(provenance, null, 2) + '\n' }));
      io.stdout(opts.json ? JSON.stringify(provenance, null, 2) + '\n' : `wrote ${kept.length} samples failed in run ${without.id} and solved in run ${withKnowledge.id} to ${opts.out} (provenance: ${provenanceFile})\n`);
    });
}
