import path from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_CLIENT, HTTP_CLIENTS, type HttpClient } from '../api/clients.js';
import { HEADLINE } from '../api/constants.js';
import type { Input } from '../api/contract.js';
import type { Headline } from '../api/reports.js';
import { unwrap, WapiiError } from '../api/result.js';
import { readCodeDir, readFileInput, writeFiles } from './files.js';
import { readSpecFolder } from './specFolder.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import { failureTable } from './taxonomy.js';
import { withService } from './withService.js';

type OracleInput = Input<'oraclePrograms'>;

export const percent = (v: number): string => `${(v * 100).toFixed(1)}%`;

/** The paper's headline table, for the run and per API (the service's numbers, see headlineOf). */
export function headlineTable(headline: Headline): string {
  const columns = headline.columns.length > 2 ? headline.columns : headline.columns.slice(0, 1);
  const rows = [
    ['Samples', ...columns.map((c) => String(c.values['samples_total'] ?? 0))],
    // A rate with no denominator is undefined: "–" with its counts, not the reference's 0.0%.
    ...HEADLINE.map(([label, key]) => [label, ...columns.map((c) => (c.of[key]?.n === 0 ? `– (${c.of[key]!.k}/0)` : percent(c.values[key] ?? 0)))]),
  ];
  return formatTable(['', ...columns.map((c) => c.name)], rows);
}

export function registerScoringCommands(program: Command, io: CliIo): void {
  program
    .command('score')
    .description('score generated programs (one file per sample) against a dataset: extract, execute in the sandbox, compare')
    .requiredOption('--dataset <file>', 'dataset JSON file')
    .requiredOption('--specs <dir>', 'spec folder (<api>.yaml|json)')
    .requiredOption('--codes <dir>', 'folder of NNNN.js (or NNNN_code.js) files, NNNN = the sample\'s position in the dataset file')
    .option('--api <api>', 'score only the samples of this API')
    .addOption(new Option('--compat <mode>', 'reproduce the WAPIIBench reference code').choices(['default', 'reference']).default('default'))
    .addOption(new Option('--client <client>', 'the HTTP client the programs were asked to call (fetch: the call may be `fetch(` or `axios.`)').choices(HTTP_CLIENTS).default(DEFAULT_CLIENT))
    .option('--timeout <ms>', 'wall-clock limit per program', '1000')
    .option('--json', 'print {statistics, per_api, samples, failures: {counts, per_api, samples}}')
    .option('--save', 'store the run in the database')
    .action(async (opts: { dataset: string; specs: string; codes: string; api?: string; compat: 'default' | 'reference'; client: HttpClient; timeout: string; json?: boolean; save?: boolean }) => {
      const timeoutMs = Number(opts.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs <= 0 || timeoutMs > 60_000) throw new WapiiError('bad_input', `--timeout must be a whole number of milliseconds from 1 to 60000, not "${opts.timeout}"`);
      const dataset = unwrap(readFileInput(opts.dataset));
      const specs = unwrap(await readSpecFolder(opts.specs));
      const codes = [...unwrap(readCodeDir(opts.codes))].map(([index, code]) => ({ index, code }));
      // Only --save opens the database; scoring alone stores nothing.
      const scored = await withService(opts.save ? program.opts<{ db?: string }>().db : null, (client) =>
        client.scoreCodes({
          dataset,
          specs,
          codes,
          codesFrom: opts.codes,
          ...(opts.api ? { api: opts.api } : {}),
          compat: opts.compat,
          client: opts.client,
          timeoutMs,
          ...(opts.save ? { save: { dataset: path.resolve(opts.dataset), codes: path.resolve(opts.codes) } } : {}),
        }),
      );
      if (opts.json) io.stdout(JSON.stringify({ ...scored.report, failures: scored.failures, ...(scored.run !== undefined ? { run: scored.run } : {}) }, null, 2) + '\n');
      else {
        io.stdout(headlineTable(scored.headline));
        io.stdout(failureTable(scored.failures));
        if (scored.run !== undefined) io.stdout(`saved as run ${scored.run}\n`);
      }
    });

  program
    .command('oracle')
    .description('write the ground-truth program of every sample (what a perfect model would produce)')
    .requiredOption('--dataset <file>', 'dataset JSON file')
    .addOption(new Option('--setup <setup>', 'full completion (after `axios.`) or argument completion').choices(['full', 'argument']).makeOptionMandatory())
    .addOption(new Option('--quotes <quotes>', 'string quote style').choices(['single', 'double', 'backtick']).default('single'))
    .addOption(new Option('--style <style>', 'promise chain or await').choices(['then', 'await']).default('then'))
    .addOption(new Option('--client <client>', 'the HTTP client the program calls: Axios, or the global fetch (`fetch(url, {method, headers, body})`)').choices(HTTP_CLIENTS).default(DEFAULT_CLIENT))
    .requiredOption('--out <dir>', 'folder for the NNNN.js files')
    .action(async (opts: { dataset: string; setup: OracleInput['setup']; quotes: NonNullable<OracleInput['quotes']>; style: NonNullable<OracleInput['style']>; client: HttpClient; out: string }) => {
      const dataset = unwrap(readFileInput(opts.dataset));
      const { files } = await withService(null, (client) => client.oraclePrograms({ dataset, setup: opts.setup, quotes: opts.quotes, style: opts.style, client: opts.client }));
      const written = unwrap(writeFiles(opts.out, files));
      io.stdout(`wrote ${written.length} programs to ${opts.out}\n`);
    });
}
