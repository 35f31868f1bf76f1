import { clientField, DEFAULT_CLIENT, HTTP_CLIENTS } from '../api/clients.js';
import path from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { unwrap, WapiiError } from '../api/result.js';
import { parseDataset } from '../dataset/index.js';
import { createExecutor } from '../execution/index.js';
import { ORACLE_WRITERS, stepsOracleProgram, type CallStyle, type CompletionMode, type HttpClient, type Quote } from '../prompt/index.js';
import { scoreCodes, type CodeScores } from '../runner/index.js';
import { headlineValue, HEADLINE, proportionsOf, type CompatMode, type Statistics } from '../scoring/index.js';
import { openWorkbench, prepareDataset } from '../service/index.js';
import { StepSchema } from '../api/schemas.js';
import { z } from 'zod';

const StepsOfSchema = z.array(StepSchema).min(2);
import { readCodeDir, readFileInput, writeFiles } from './files.js';
import { readSpecFolder } from './specFolder.js';
import type { CliIo } from './io.js';
import { formatTable } from './table.js';
import { failuresOf, failureTable } from './taxonomy.js';
import { uncertaintyJson } from './uncertainty.js';

export const percent = (v: number): string => `${(v * 100).toFixed(1)}%`;

/** The paper's headline table, for the run and per API. */
export function headlineTable(statistics: Statistics, perApi: Readonly<Record<string, Statistics>>): string {
  const apis = Object.keys(perApi);
  const columns = apis.length > 1 ? ['all', ...apis] : ['all'];
  const stats = (c: string): Statistics => (c === 'all' ? statistics : (perApi[c] ?? statistics));
  const rows = [
    ['Samples', ...columns.map((c) => String(headlineValue(stats(c), 'samples_total')))],
    // A rate with no denominator is undefined: "–" with its counts, not the reference's 0.0%.
    ...HEADLINE.map(([label, key]) => [label, ...columns.map((c) => (proportionsOf(stats(c))[key]?.n === 0 ? `– (${proportionsOf(stats(c))[key]!.k}/0)` : percent(headlineValue(stats(c), key))))]),
  ];
  return formatTable(['', ...columns], rows);
}

export function scoreJson(scores: CodeScores): unknown {
  const report = { statistics: scores.statistics, per_api: scores.perApi, samples: Object.fromEntries(scores.samples.map((s) => [String(s.index), s.evaluation.verdict])) };
  return { ...report, ...uncertaintyJson(report) };
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
    .action(async (opts: { dataset: string; specs: string; codes: string; api?: string; compat: CompatMode; client: HttpClient; timeout: string; json?: boolean; save?: boolean }) => {
      const timeoutMs = Number(opts.timeout);
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new WapiiError('bad_input', `--timeout must be a positive number of milliseconds, not "${opts.timeout}"`);
      const prepared = unwrap(await prepareDataset(unwrap(readFileInput(opts.dataset)), unwrap(await readSpecFolder(opts.specs))));
      const codes = unwrap(readCodeDir(opts.codes));
      // A real-world sample's code is read with its own starter (its fields).
      const samples = prepared.samples.map((s, index) => ({ index, api: s.api, config: s.config, task: s.task, ...(s.fields ? { fields: s.fields } : {}) })).filter((s) => !opts.api || s.api === opts.api);
      if (opts.api && samples.length === 0) throw new WapiiError('bad_input', `the dataset has no sample for API \`${opts.api}\``);
      const specs = new Map([...prepared.specs].map(([api, p]) => [api, p.spec]));
      await using executor = createExecutor({ timeoutMs });
      const scores = await scoreCodes({ samples, codes, specs, executor, compat: opts.compat, client: opts.client });
      if (scores.samples.length === 0) throw new WapiiError('bad_input', `no code file in ${opts.codes} matches a sample of the dataset`);
      const failures = failuresOf(scores, new Map(samples.map((s) => [s.index, s.config])), specs);
      let runId: number | undefined;
      if (opts.save) {
        using wb = openWorkbench({ db: program.opts<{ db?: string }>().db });
        runId = wb.store.saveRun({
          kind: 'imported codes',
          dataset: path.resolve(opts.dataset),
          settings: { compat: opts.compat, codes: path.resolve(opts.codes), timeoutMs, ...clientField(opts.client), ...(opts.api ? { api: opts.api } : {}) },
          statistics: { statistics: scores.statistics, per_api: scores.perApi },
          samples: scores.samples.map((s) => ({
            index: s.index,
            api: s.api,
            code: s.code,
            request: s.evaluation.request,
            verdict: s.evaluation.verdict,
            extraction: s.evaluation.extraction,
            execution: s.evaluation.execution,
            durationMs: s.evaluation.execution?.durationMs,
            failures: failures.samples[String(s.index)],
          })),
        });
      }
      if (opts.json) io.stdout(JSON.stringify({ ...(scoreJson(scores) as object), failures, ...(runId !== undefined ? { run: runId } : {}) }, null, 2) + '\n');
      else {
        io.stdout(headlineTable(scores.statistics, scores.perApi));
        io.stdout(failureTable(failures));
        if (runId !== undefined) io.stdout(`saved as run ${runId}\n`);
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
    .action(async (opts: { dataset: string; setup: CompletionMode; quotes: Quote; style: CallStyle; client: HttpClient; out: string }) => {
      const file = unwrap(readFileInput(opts.dataset));
      const samples = unwrap(parseDataset(file.content, file.filename));
      const write = ORACLE_WRITERS[opts.client];
      // A multi-step sample's ground truth is its whole program, every step awaited in order (scoring.md §7).
      const programOf = (s: (typeof samples)[number]): string => {
        const steps = StepsOfSchema.safeParse(s.fields?.['steps']);
        return steps.success ? stepsOracleProgram({ task: s.task, steps: steps.data }, opts.client, opts.quotes, opts.style) : write(s, opts.setup, opts.quotes, opts.style).program;
      };
      const files = Object.fromEntries(samples.map((s, i) => [`${String(i).padStart(4, '0')}.js`, programOf(s)]));
      const written = unwrap(writeFiles(opts.out, files));
      io.stdout(`wrote ${written.length} programs to ${opts.out}\n`);
    });
}
