import path from 'node:path';
import type { Command } from 'commander';
import { unwrap, WapiiError } from '../api/result.js';
import { readFileInput, writeFiles } from './files.js';
import type { CliIo } from './io.js';
import { noRun, withService } from './withService.js';

export function registerSubsetCommands(program: Command, io: CliIo): void {
  program
    .command('subset')
    .description("derive a model-conditional dataset: the samples a model fails in one run (e.g. knowledge none) and solves in another (e.g. full)")
    .requiredOption('--without <run>', 'the run without the knowledge (its failures are kept)')
    .requiredOption('--with <run>', 'the run with the knowledge (of those, its successes are kept)')
    .requiredOption('--out <file.json>', 'the derived dataset (flat WAPIIBench list); its provenance goes beside it as <name>.provenance.json')
    .option('--json', 'print the provenance')
    .action(async (opts: { without: string; with: string; out: string; json?: boolean }) => {
      if (!opts.out.endsWith('.json')) throw new WapiiError('bad_input', `--out must name a .json file, not "${opts.out}"`);
      const subset = await withService(program.opts<{ db?: string }>().db, async (client, wb) => {
        const known = await client.listRuns({});
        const load = async (ref: string): Promise<(typeof known)[number]> => {
          const run = /^\d+$/.test(ref) ? known.find((r) => r.id === Number(ref)) : undefined;
          if (!run) throw await noRun(client, wb, ref, true);
          return run;
        };
        const [without, withKnowledge] = [await load(opts.without), await load(opts.with)];
        // The dataset file both were made on, read where they recorded it (runs on different datasets are refused by the service).
        const dataset = without.dataset === withKnowledge.dataset ? unwrap(readFileInput(without.dataset)) : undefined;
        return client.deriveSubset({ without: without.id, with: withKnowledge.id, ...(dataset ? { dataset } : {}) });
      });
      const { provenance } = subset;
      const provenanceFile = opts.out.replace(/\.json$/, '.provenance.json');
      unwrap(writeFiles(opts.out, { [path.basename(opts.out)]: subset.dataset }));
      unwrap(writeFiles(provenanceFile, { [path.basename(provenanceFile)]: JSON.stringify(provenance, null, 2) + '\n' }));
      io.stdout(opts.json ? JSON.stringify(provenance, null, 2) + '\n' : `wrote ${provenance.source.samples.length} samples failed in run ${provenance.runs.without.id} and solved in run ${provenance.runs.with.id} to ${opts.out} (provenance: ${provenanceFile})\n`);
    });
}
