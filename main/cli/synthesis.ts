import type { Command } from 'commander';
import { WapiiError } from '../api/result.js';
import type { DatasetSummary } from '../api/schemas.js';
import { localClient, openWorkbench, type Workbench } from '../service/index.js';
import type { CliIo } from './program.js';
import { formatTable } from './table.js';

function findDataset(wb: Workbench, ref: string): DatasetSummary {
  const found = wb.store.findDataset(ref);
  if (!found) {
    const have = wb.store.listDatasets().map((d) => `${d.id} "${d.name}"`).join(', ') || 'none; import one with `wapii import <file> --specs <dir>`';
    throw new WapiiError('not_found', `no dataset named or numbered "${ref}" (have: ${have})`);
  }
  return found;
}

/** `wapii coverage` and `wapii synthesize`: which endpoints a dataset covers, and filling the gaps. */
export function registerSynthesisCommands(program: Command, io: CliIo): void {
  const open = (): Workbench => openWorkbench({ db: program.opts<{ db?: string }>().db });

  program
    .command('coverage')
    .description('every endpoint of each API of a dataset with its number of samples; the uncovered ones listed')
    .argument('<dataset>', 'stored dataset name or id')
    .option('--api <api>', 'only this API')
    .option('--json', 'print {datasetId, apis: [{api, endpoints: [{method, path, key, samples}], covered, total, unmatched}]}')
    .action(async (ref: string, opts: { api?: string; json?: boolean }) => {
      using wb = open();
      const dataset = findDataset(wb, ref);
      const coverage = await localClient(wb.service).getCoverage({ datasetId: dataset.id, ...(opts.api ? { api: opts.api } : {}) });
      if (opts.json) {
        io.stdout(JSON.stringify(coverage, null, 2) + '\n');
        return;
      }
      for (const api of coverage.apis) {
        io.stdout(`${api.api} (${api.specTitle}): ${api.covered} of ${api.total} endpoints covered${api.unmatched ? `, ${api.unmatched} samples match no endpoint` : ''}\n`);
        io.stdout(formatTable(['samples', 'endpoint', 'summary'], api.endpoints.map((e) => [e.samples, e.key, e.summary ?? ''])));
        const uncovered = api.endpoints.filter((e) => e.samples === 0);
        io.stdout(uncovered.length ? `uncovered: ${uncovered.map((e) => e.key).join(', ')}\n\n` : 'every endpoint has a sample\n\n');
      }
    });
}
