import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { startHttpTransport } from '../api/http.js';
import { unwrap, WapiiError } from '../api/result.js';
import { REVIEW_STATES, type DatasetSummary, type Finding, type Sample } from '../api/schemas.js';
import { toErrorInfo } from '../api/errors.js';
import { callMethod, localClient, openWorkbench, prepareDataset, prepareInWorker, readDemo, stopImportWorker, type Workbench } from '../service/index.js';
import { hostWarning, resolveServeToken, TOKEN_ENV } from './serveAccess.js';
import { readFileInput, writeFiles } from './files.js';
import { readSpecFolder } from './specFolder.js';
import { registerConditionCommands } from './conditions.js';
import { registerConstraintCommands } from './constraints.js';
import { registerGenerationCommands } from './generation.js';
import { registerRunsCommand } from './runs.js';
import { registerRetrievalCommands } from './retrieval.js';
import { registerScoringCommands } from './scoring.js';
import { registerSpecVersionCommands } from './specVersions.js';
import { registerSubsetCommands } from './subsets.js';
import { registerSynthesisCommands } from './synthesis.js';
import { formatTable } from './table.js';
import type { CliIo } from './io.js';
import { findStoredDataset } from './withService.js';

/** The repository (or packaged app) root: holds `specs/`, `datasets/` and `out/renderer`. */
export const APP_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface CheckedSample {
  readonly index: number;
  readonly api: string;
  readonly id?: string;
  readonly findings: readonly Finding[];
}

function printFindings(io: CliIo, flagged: readonly CheckedSample[], total: number, json: boolean): void {
  if (json) {
    io.stdout(JSON.stringify(flagged.map((s) => ({ index: s.index, api: s.api, ...(s.id ? { id: s.id } : {}), findings: s.findings })), null, 2) + '\n');
    return;
  }
  for (const s of flagged) {
    io.stdout(`#${s.index} ${s.api}\n`);
    for (const f of s.findings) io.stdout(`  - ${f.message}\n`);
  }
  io.stdout(`${flagged.length} of ${total} samples flagged\n`);
}

function parseReviewStates(text: string): Sample['reviewState'][] {
  const states = text.split(',').map((s) => s.trim()).filter(Boolean);
  const wrong = states.filter((s) => !(REVIEW_STATES as readonly string[]).includes(s));
  if (states.length === 0 || wrong.length > 0) throw new WapiiError('bad_input', `--review takes review states separated by commas (${REVIEW_STATES.join(', ')}), not "${text}"`);
  return states as Sample['reviewState'][];
}

function describeDataset(d: DatasetSummary): string {
  const apis = d.apis.map((a) => `${a.api} ${a.samples}`).join(', ');
  return `dataset ${d.id} "${d.name}": ${d.sampleCount} samples for ${d.apis.length} APIs (${apis}); ${d.flaggedCount} flagged by the checks`;
}

export function buildProgram(io: CliIo): Command {
  const program = new Command('wapii')
    .description('WAPII Workbench: curate web-API integration benchmarks, run local models, score the requests they write')
    .option('--db <file>', 'database file (default: $WAPII_DB, else the user data directory)')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  let workbench: Workbench | undefined;
  const open = (): Workbench => (workbench ??= openWorkbench({ db: program.opts<{ db?: string }>().db }));
  program.hook('postAction', () => {
    workbench?.[Symbol.dispose]();
    workbench = undefined;
  });
  const findDataset = async (wb: Workbench, ref: string | undefined): Promise<DatasetSummary> => {
    const all = await localClient(wb.service).listDatasets({});
    if (all.length === 0) throw new WapiiError('not_found', 'the database holds no dataset yet: import one with `wapii import <file> --specs <dir>`');
    const found = ref === undefined ? all[all.length - 1] : findStoredDataset(all, ref);
    if (!found) throw new WapiiError('not_found', `no dataset named or numbered "${ref}" (have: ${all.map((d) => `${d.id} "${d.name}"`).join(', ')})`);
    return found;
  };

  program
    .command('import')
    .description('import a WAPIIBench dataset (flat list, per-API file, or the real-world format with starter code) with its OpenAPI specs')
    .argument('<dataset>', 'dataset JSON file')
    .requiredOption('--specs <dir>', 'folder of spec files named <api>.yaml or <api>.json')
    .option('--name <name>', 'dataset name (default: the file name)')
    .option('--skip-missing-specs', 'import the samples whose API has a spec; leave the others out (named on stderr)')
    .option('--lenient-refs', 'import a spec whose $refs point at nothing, each as any value (named on stderr); default: refuse it')
    .option('--server <url>', 'base URL (http or https) for a spec that declares no server, stored with it')
    .option('--json', 'print the stored dataset as JSON')
    .action(async (file: string, opts: { specs: string; name?: string; skipMissingSpecs?: boolean; lenientRefs?: boolean; server?: string; json?: boolean }) => {
      const dataset = unwrap(readFileInput(file));
      const specs = unwrap(await readSpecFolder(opts.specs, { lenientRefs: opts.lenientRefs ?? false }));
      const client = localClient(open().service);
      const summary = await client.importDataset({
        dataset,
        specs,
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.skipMissingSpecs ? { skipMissingSpecs: true } : {}),
        ...(opts.lenientRefs ? { lenientRefs: true } : {}),
        ...(opts.server !== undefined ? { server: opts.server } : {}),
      });
      for (const s of summary.skipped ?? []) io.stderr(`left out ${s.samples} sample${s.samples === 1 ? '' : 's'} of API \`${s.api}\`: no spec ${s.api}.yaml or ${s.api}.json\n`);
      for (const b of summary.brokenRefs ?? []) io.stderr(`API \`${b.api}\`: broken $ref "${b.ref}" (${b.uses} use${b.uses === 1 ? '' : 's'}) imported as any value\n`);
      for (const api of summary.serverFor ?? []) io.stderr(`API \`${api}\`: its spec declares no server; using ${opts.server ?? ''}\n`);
      io.stdout(opts.json ? JSON.stringify(summary, null, 2) + '\n' : `imported ${describeDataset(summary)}\n`);
    });

  program
    .command('check')
    .description('check samples against their specs: a stored dataset (default: the latest), or files with --dataset/--specs')
    .argument('[dataset]', 'stored dataset name or id')
    .option('--dataset <file>', 'check a dataset file directly, without the database')
    .option('--specs <dir>', 'spec folder for --dataset')
    .option('--json', 'print [{index, api, findings: [{message, ...}]}] for each flagged sample')
    .action(async (ref: string | undefined, opts: { dataset?: string; specs?: string; json?: boolean }) => {
      if (opts.dataset) {
        if (!opts.specs) throw new WapiiError('bad_input', '--dataset needs --specs <dir> as well');
        const prepared = unwrap(await prepareDataset(unwrap(readFileInput(opts.dataset)), unwrap(await readSpecFolder(opts.specs))));
        const checked = prepared.samples.map((s, index) => ({ index, api: s.api, id: s.id, findings: s.findings }));
        printFindings(io, checked.filter((s) => s.findings.length > 0), checked.length, opts.json ?? false);
        return;
      }
      const wb = open();
      const dataset = await findDataset(wb, ref);
      const samples = await localClient(wb.service).listSamples({ datasetId: dataset.id });
      if (!opts.json) io.stderr(`checking ${describeDataset(dataset)}\n`);
      const checked = samples.map((s) => ({ index: s.position, api: s.api, id: s.id, findings: s.findings }));
      printFindings(io, checked.filter((s) => s.findings.length > 0), checked.length, opts.json ?? false);
    });

  program
    .command('export')
    .description('export a stored dataset in a WAPIIBench format')
    .argument('<dataset>', 'stored dataset name or id')
    .requiredOption('--out <path>', 'a .json file (flat) or a folder (per-api)')
    .addOption(new Option('--format <format>', 'flat list or one file per API').choices(['flat', 'per-api']).default('flat'))
    .option('--review <states>', `only samples in these review states, comma-separated (${REVIEW_STATES.join(', ')})`)
    .action(async (ref: string, opts: { out: string; format: 'flat' | 'per-api'; review?: string }) => {
      const wb = open();
      const dataset = await findDataset(wb, ref);
      const reviewStates = opts.review === undefined ? undefined : parseReviewStates(opts.review);
      const { files, checks } = await localClient(wb.service).exportDataset({ datasetId: dataset.id, format: opts.format, ...(reviewStates ? { reviewStates } : {}) });
      const written = unwrap(writeFiles(opts.out, files));
      const recomputed = checks.recomputed > 0 ? `; ${checks.recomputed} \`checks\` recomputed (the request changed since import, or none came with it)` : '';
      io.stdout(`wrote ${written.join(', ')}: ${checks.samples} samples, ${checks.flagged} flagged by the spec checks as written${recomputed}\n`);
    });

  program
    .command('list')
    .description('list datasets, or the samples of one')
    .argument('[dataset]', 'stored dataset name or id')
    .option('--api <api>', 'only samples of this API')
    .option('--method <method>', 'only samples with this HTTP method')
    .addOption(new Option('--review <state>', 'only samples in this review state').choices(REVIEW_STATES))
    .addOption(new Option('--status <status>', 'only samples whose checks passed or flagged').choices(['ok', 'flagged']))
    .option('--search <text>', 'text search over task and expected request')
    .option('--endpoint <endpoint>', 'only samples of this endpoint, e.g. "GET /shipments/{shipment_id}"')
    .addOption(new Option('--requests <n>', 'only single-request samples (one) or tasks of several requests (several: steps)').choices(['one', 'several']))
    .option('--json', 'print JSON')
    .action(async (ref: string | undefined, opts: { api?: string; method?: string; review?: Sample['reviewState']; status?: 'ok' | 'flagged'; search?: string; endpoint?: string; requests?: 'one' | 'several'; json?: boolean }) => {
      const wb = open();
      const client = localClient(wb.service);
      if (ref === undefined) {
        const datasets = await client.listDatasets({});
        if (opts.json) io.stdout(JSON.stringify(datasets, null, 2) + '\n');
        else if (datasets.length === 0) io.stdout('no datasets yet: import one with `wapii import <file> --specs <dir>`\n');
        else io.stdout(formatTable(['id', 'name', 'samples', 'flagged', 'APIs', 'created'], datasets.map((d) => [d.id, d.name, d.sampleCount, d.flaggedCount, d.apis.map((a) => a.api).join(' '), d.createdAt.slice(0, 19)])));
        return;
      }
      const dataset = await findDataset(wb, ref);
      const filter = {
        ...(opts.api ? { api: opts.api } : {}),
        ...(opts.method ? { method: opts.method } : {}),
        ...(opts.review ? { reviewState: opts.review } : {}),
        ...(opts.status ? { checkStatus: opts.status } : {}),
        ...(opts.search ? { text: opts.search } : {}),
        ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
        ...(opts.requests ? { requests: opts.requests } : {}),
      };
      const samples = await client.listSamples({ datasetId: dataset.id, filter });
      if (opts.json) io.stdout(JSON.stringify(samples, null, 2) + '\n');
      else io.stdout(formatTable(['#', 'api', 'method', 'url', 'review', 'checks', 'task'], samples.map((s) => [s.position, s.api, s.config.method.toUpperCase(), s.config.url, s.reviewState, s.checkStatus, s.task])));
    });

  program
    .command('serve')
    .description('serve the workbench UI and API on loopback, for a browser (headless GPU boxes, tests)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '0')
    .option('--token <token>', `access token (default: $${TOKEN_ENV}, else random; visible in the process list, prefer --token-file)`)
    .option('--token-file <file>', 'read the access token from the first line of this file')
    .option('--no-demo', 'do not import the demo dataset into an empty database')
    .option('--models <dir>', 'the models folder that scans look in and downloads go to (default: $WAPII_MODELS, else beside the database)')
    .action(async (opts: { host: string; port: string; token?: string; tokenFile?: string; demo: boolean; models?: string }) => {
      const port = Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new WapiiError('bad_input', `--port must be a number from 0 to 65535, not "${opts.port}"`);
      const token = resolveServeToken(opts, process.env, (m) => io.stderr(m + '\n'));
      const warning = hostWarning(opts.host);
      if (warning) io.stderr(warning + '\n');
      // Imports parse and check on a worker thread, so the server keeps answering meanwhile.
      const wb = (workbench ??= openWorkbench({
        db: program.opts<{ db?: string }>().db,
        prepare: prepareInWorker,
        ...(opts.models ? { evaluation: { modelsFolder: path.resolve(opts.models) } } : {}),
      }));
      if (opts.demo) unwrap(await wb.service.seedIfEmpty(readDemo(APP_ROOT)));
      const transport = await startHttpTransport({
        call: (method, input) => callMethod(wb.service, method, input),
        subscribe: (listener) => wb.service.onEvent(listener),
        staticDir: path.join(APP_ROOT, 'out', 'renderer'),
        host: opts.host,
        port,
        ...(token ? { token } : {}),
        log: (m) => io.stderr(m + '\n'),
      });
      io.stdout(`WAPII Workbench serving ${wb.dbPath} at ${transport.openUrl}\n`);
      await (io.untilStopped?.() ?? new Promise<void>(() => undefined));
      await transport.close();
      await stopImportWorker();
      // A run still generating stops as interrupted (resumable); the model is unloaded.
      await wb.shutdown();
    });

  registerScoringCommands(program, io);
  registerGenerationCommands(program, io);
  registerRunsCommand(program, io);
  registerConstraintCommands(program, io);
  registerRetrievalCommands(program, io);
  registerSpecVersionCommands(program, io);
  registerSubsetCommands(program, io);
  registerConditionCommands(program, io);
  registerSynthesisCommands(program, io);
  return program;
}

/** Runs the CLI; returns the exit code. Errors print as one line on stderr, never a stack trace. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const info = toErrorInfo(error, (details) => io.stderr(`${details}\n`));
    io.stderr(`wapii: ${info.message}\n`);
    return 1;
  }
}
