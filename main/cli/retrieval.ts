import type { Command } from 'commander';
import type { RecallReport } from '../api/fileTools.js';
import { WapiiError } from '../api/result.js';
import { datasetSource, isDatasetFile } from './datasetInput.js';
import type { CliIo } from './io.js';
import { percent } from './scoring.js';
import { formatTable } from './table.js';
import { withService } from './withService.js';

type Recall = RecallReport['recall'];

export function retrievalJson(report: RecallReport): unknown {
  return { recall: report.recall, per_api: report.per_api, samples: report.samples };
}

/** Recall@1/5/10 overall and per API, then each sample's rank (or `-` when not retrieved within k). */
export function recallText(report: RecallReport, k: number): string {
  const row = (label: string, r: Recall, n: number): string[] => [label, String(n), percent(r['1']), percent(r['5']), percent(r['10'])];
  const table = formatTable(
    ['API', 'samples', 'recall@1', 'recall@5', 'recall@10'],
    [row('all', report.recall, report.samples.length), ...Object.entries(report.per_api).map(([api, r]) => row(api, r, r.samples))],
  );
  const ranks = formatTable(['#', 'api', 'rank'], report.samples.map((s) => [s.index, s.api, s.rank !== null && s.rank <= k ? s.rank : `> ${k}`]));
  return `${report.retriever}\n${table}${ranks}`;
}

export function registerRetrievalCommands(program: Command, io: CliIo): void {
  program
    .command('retrieve')
    .description("rank each sample's API endpoints for its task (BM25) and report how often the expected one comes first, in the top 5, top 10")
    .requiredOption('--dataset <file|id|name>', 'a dataset file (with --specs) or a stored dataset')
    .option('--specs <dir>', 'spec folder for a dataset file')
    .option('-k, --k <k>', 'ranks shown per sample are cut at k', '10')
    .option('--json', 'print {recall: {"1","5","10"}, per_api, samples: [{index, api, rank}]}')
    .action(async (opts: { dataset: string; specs?: string; k: string; json?: boolean }) => {
      const k = Number(opts.k);
      if (!Number.isInteger(k) || k < 1) throw new WapiiError('bad_input', `-k must be a positive integer, not "${opts.k}"`);
      const db = isDatasetFile(opts.dataset) ? null : program.opts<{ db?: string }>().db;
      const report = await withService(db, async (client) => client.measureRecall({ source: await datasetSource(opts.dataset, opts.specs, client) }));
      io.stdout(opts.json ? JSON.stringify(retrievalJson(report), null, 2) + '\n' : recallText(report, k));
    });
}
