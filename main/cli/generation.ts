import { DEFAULT_CLIENT, HTTP_CLIENTS } from '../api/clients.js';
import path from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_PARALLEL, DEFAULT_PARALLEL_GPU, HEADLINE, LOCATION_ROWS, SAMPLING_DEFAULTS } from '../api/constants.js';
import type { Output, WorkbenchApi } from '../api/contract.js';
import type { Headline } from '../api/reports.js';
import { unwrap, WapiiError } from '../api/result.js';
import { makeTestModel, TEST_MODEL_VOCABULARIES, type TestModelVocabulary, type Workbench } from '../service/index.js';
import { DEFAULT_REPAIR_ROUNDS } from '../api/evaluation.js';
import { readFileInput } from './files.js';
import { readSpecFolder } from './specFolder.js';
import { compareSamples, runOnStoredDataset } from './runs.js';
import type { CliIo } from './io.js';
import { headlineTable, percent } from './scoring.js';
import { formatTable } from './table.js';
import { PROVIDER_NAMES, PROVIDERS } from '../providers/registry.js';
import { noRun, withService, type RunProgress } from './withService.js';

/** The providers `--provider` takes (a local GGUF model is `--model <file.gguf>`). */
const RUN_PROVIDERS = PROVIDER_NAMES.filter((name) => PROVIDERS[name].modelIs === 'name');
import { failureTable } from './taxonomy.js';
import { pairedTable } from './uncertainty.js';

const positiveInt = (name: string, value: string, min = 1): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new WapiiError('bad_input', `${name} must be an integer >= ${min}, not "${value}"`);
  return n;
};

const duration = (seconds: number | undefined): string => {
  if (seconds === undefined || !Number.isFinite(seconds)) return '--';
  const s = Math.round(seconds);
  return s >= 3600 ? `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m` : s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
};

/** One line: a bar, done/total, correct so far, tokens/s, ETA. Redrawn in place on a terminal. */
export function progressLine(p: RunProgress, width = 24): string {
  const filled = p.total === 0 ? width : Math.round((p.done / p.total) * width);
  const bar = '='.repeat(Math.max(0, filled - 1)) + (filled > 0 ? (p.done === p.total ? '=' : '>') : '') + ' '.repeat(width - filled);
  const correct = p.done > 0 ? ` (${((p.correct / Math.max(1, p.done - p.errors)) * 100).toFixed(1)}%)` : '';
  return `[${bar}] ${p.done}/${p.total}  correct ${p.correct}${correct}${p.errors ? `  errors ${p.errors}` : ''}  ${p.tokensPerSecond.toFixed(1)} tok/s  ETA ${duration(p.etaSeconds)}`;
}

/** The per-location argument table of a run (counts over its executable samples). */
function locationTable(headline: Headline): string {
  const cols = headline.locations;
  return formatTable(['arguments (executable samples)', ...cols.map((c) => c.location)], LOCATION_ROWS.map(([label, key]) => [label, ...cols.map((c) => String(c.values[key] ?? 0))]));
}

export function reportText(headline: Headline): string {
  return `${headlineTable(headline)}\n${locationTable(headline)}`;
}

/** A stored run's report (the service's getRunReport), or one line naming the runs there are. */
async function loadReport(client: WorkbenchApi, wb: Workbench, ref: string): Promise<Output<'getRunReport'>> {
  const id = positiveInt('run', ref);
  try {
    return await client.getRunReport({ runId: id });
  } catch (error) {
    if (error instanceof WapiiError && error.code === 'not_found') throw await noRun(client, wb, String(id), false);
    throw error;
  }
}

export function registerGenerationCommands(program: Command, io: CliIo): void {
  program
    .command('make-test-model')
    .description('write a random-weight GGUF model on a real tokenizer (from node-llama-cpp\'s llama.cpp source), for tests and benchmarks')
    .addOption(new Option('--vocab <name>', 'tokenizer').choices([...TEST_MODEL_VOCABULARIES]).makeOptionMandatory())
    .requiredOption('--out <file.gguf>', 'where to write the model')
    .option('--layers <n>', 'transformer blocks', '2')
    .option('--dim <n>', 'embedding width (a multiple of 32)', '64')
    .option('--seed <n>', 'seed of the weights', '1')
    .addOption(new Option('--weights <type>', 'how the matrices are stored').choices(['f16', 'q8_0']).default('f16'))
    .action((opts: { vocab: TestModelVocabulary; out: string; layers: string; dim: string; seed: string; weights: 'f16' | 'q8_0' }) => {
      const shape = { layers: positiveInt('--layers', opts.layers), dim: positiveInt('--dim', opts.dim, 32), seed: positiveInt('--seed', opts.seed, 0), weights: opts.weights };
      // Not a contract method (main/service/testModels.ts says why): the service's function, in this process.
      const { sizeBytes } = makeTestModel(opts.vocab, opts.out, shape);
      io.stdout(`wrote ${opts.out} (${(sizeBytes / 2 ** 20).toFixed(1)} MiB): ${opts.vocab} tokenizer, ${shape.layers} layers × ${shape.dim}, ${shape.weights} weights, seed ${shape.seed}\n`);
    });

  program
    .command('run')
    .description('generate a completion per sample with a model, execute it, score it, and store every sample as it finishes')
    .option('--model <file.gguf>', 'local GGUF model (node-llama-cpp)')
    .option('--remote <url>', 'an OpenAI-compatible completions server instead (llama-server, vLLM)')
    .option('--remote-model <name>', 'model name to send to the remote server', 'default')
    .addOption(new Option('--provider <name>', `a hosted model or a server, with --model <its name> (stored datasets): keys from ${RUN_PROVIDERS.flatMap((n) => PROVIDERS[n].keyVariables.slice(0, 1)).join(', ')}`).choices(RUN_PROVIDERS))
    .option('--base-url <url>', "with --provider: the API's base URL (default: the provider's own; required for openai-compatible); a key goes only to this origin")
    .option('--pool <urls>', 'with --provider openai-compatible: more servers (comma-separated) sharing the samples by free slots; a failing one hands its samples to the others')
    .option('--batch', "with --provider openai: OpenAI's Batch API (half the price)")
    .option('--spending-cap <usd>', 'with --provider: stop the run once its outputs cost this many US dollars (prices from prices.json beside the database, or $WAPII_PRICES)')
    .requiredOption('--dataset <file|id|name>', 'a stored dataset (id or name), or a dataset JSON file with --specs')
    .option('--specs <dir>', 'spec folder (<api>.yaml|json) of a dataset file')
    .option('--api <apis>', 'stored dataset: only these APIs (comma-separated)')
    .option('--review <states>', 'stored dataset: only samples in these review states (e.g. accepted,fixed)')
    .addOption(new Option('--setup <setup>', 'full completion (after `axios.`) or argument completion').choices(['full', 'argument']).default('full'))
    .addOption(new Option('--setting <setting>', "decode freely, constrained by the spec, or freely with repair rounds (the spec checker's findings sent back to the model)").choices(['unconstrained', 'constrained', 'repair']).default('unconstrained'))
    .option('--repair-rounds <k>', 'with --setting repair: follow-ups per output at most', String(DEFAULT_REPAIR_ROUNDS))
    .addOption(new Option('--client <client>', 'the HTTP client the starter code calls: Axios (the paper), or the global fetch (unconstrained or repair only)').choices(HTTP_CLIENTS).default(DEFAULT_CLIENT))
    .addOption(new Option('--chat [wrapper]', "a chat/instruct model: prompts go through node-llama-cpp's chat wrapper (default: the one the model names), the reply opened with the starter code").choices(['auto', 'chatML', 'general', 'llama3', 'llama2Chat', 'mistral', 'gemma', 'qwen', 'deepSeek']).preset('auto'))
    .option('--limit <n>', 'only the first n samples of the dataset (of the random sample, with --sample)')
    .option('--sample <n>', 'a seeded random sample of n samples (after --api/--review), kept in dataset order')
    .option('--sample-seed <s>', 'with --sample: its seed; the same seed takes the same samples (default 1)')
    .option('--stratify <by>', "with --sample: 'api' keeps each API's share of the samples (largest-remainder rounding)")
    .option('--parallel <n>', `samples decoded at once, in parallel sequences of one context, their tokens in one batch (default: ${DEFAULT_PARALLEL} on the CPU or a remote server, ${DEFAULT_PARALLEL_GPU} on a GPU, fewer where their caches do not fit)`)
    .option('--n <n>', 'outputs per sample', '1')
    .option('--seed <n>', 'sampling seed', '1')
    .option('--temperature <t>', 'sampling temperature; 0 is greedy', '0')
    .option('--top-k <k>', 'top-k sampling', String(SAMPLING_DEFAULTS.topK))
    .option('--top-p <p>', 'top-p sampling', String(SAMPLING_DEFAULTS.topP))
    .option('--max-tokens <n>', 'new tokens per sample', String(SAMPLING_DEFAULTS.maxTokens))
    .option('--context <n>', 'context size per sequence, in tokens', '1024')
    .addOption(new Option('--gpu <choice>', 'GPU offload when one is found, or CPU only').choices(['auto', 'cpu']).default('auto'))
    .option('--threads <n>', 'CPU threads (default: physical cores)')
    .option('--step-deadline <ms>', 'constraint work per token before the sample ends as a timeout', '10000')
    .option('--knowledge <conditions>', 'API knowledge in the prompt, one run per condition: none, endpoint, params, docs, example, full, retrieved:<k>, or parts joined by + (endpoint+params); e.g. none,endpoint,full', 'none')
    .option('--resume <run>', 'continue a run that was interrupted, without redoing finished samples')
    .option('--retry-errors', 'with --resume: generate again the samples that failed with an error')
    .option('--json', 'print the run\'s report as `wapii report --json` does, plus "run": <id>')
    .action(async (opts: Record<string, string | boolean | undefined>, command: Command) => {
      const str = (k: string): string => String(opts[k]);
      const draw = (p: RunProgress): void => {
        if (io.isTTY) io.stderr(`\r${progressLine(p)}\x1b[K`);
        else if (p.done === p.total || p.done % Math.max(1, Math.ceil(p.total / 20)) === 0) io.stderr(`${progressLine(p)}\n`);
      };
      // A dataset file is stored first (found again when the same file and specs come back), then
      // planned and run as a stored dataset is: one plan, one job queue (issue 35 item 2).
      const dataset = opts['specs'] === undefined ? str('dataset') : String(await storeDatasetFile(program, str('dataset'), str('specs')));
      return runOnStoredDataset(program, io, { ...opts, dataset }, draw, reportText, (name) => command.getOptionValueSource(name) === 'cli');
    });

  program
    .command('report')
    .description("a stored run's metrics: the paper's headline table, per API and per argument location")
    .argument('<run>', 'run number')
    .option('--json', 'print {statistics, per_api, samples} as `wapii score --json` does, plus failures: {counts, per_api, unclassified} and, for a repair run, repair: {<sample>: {rounds_used, rounds: [{round, sample_verdict, error_verdict, feedback, tokens}]}}')
    .action(async (ref: string, opts: { json?: boolean }) => {
      const { run, report, headline } = await withService(program.opts<{ db?: string }>().db, (client, wb) => loadReport(client, wb, ref));
      if (opts.json) {
        io.stdout(JSON.stringify(report, null, 2) + '\n');
        return;
      }
      io.stdout(`run ${run.id} (${run.kind}, ${run.status}) — ${run.outputs} outputs\n${reportText(headline)}`);
      const failures = report.failures;
      if (failures) {
        io.stdout(`\n${failureTable(failures)}`);
        if (failures.unclassified > 0) io.stdout(`${failures.unclassified} outputs are not classified (stored before failure classes were, without a snapshot of their samples): \`wapii conditions ${run.id} --specs <dir>\` classifies them\n`);
      }
    });

  program
    .command('compare')
    .description('metric deltas between two runs, and the samples whose verdict changed')
    .argument('<runA>')
    .argument('<runB>')
    .option('--json', 'print {metrics, changed, paired, alignment}: paired[outcome] = {both, a_only, b_only, neither, p_value} (exact McNemar on the samples both runs have)')
    .action(async (a: string, b: string, opts: { json?: boolean }) => {
      const { ra, rb, paired, alignment, changed } = await withService(program.opts<{ db?: string }>().db, async (client, wb) => {
        const [ra, rb] = [await loadReport(client, wb, a), await loadReport(client, wb, b)];
        // Samples paired by identity (shared ones only), their changes and tests (exact McNemar), as the Compare page has them.
        return { ra, rb, ...(await compareSamples(client, ra.run.id, rb.run.id)) };
      });
      const [runA, runB] = [ra.run, rb.run];
      const [ca, cb] = [ra.headline.columns[0]!, rb.headline.columns[0]!];
      const metrics = [['Samples', 'samples_total'] as const, ...HEADLINE].map(([label, key]) => {
        const va = ca.values[key] ?? 0;
        const vb = cb.values[key] ?? 0;
        // A rate with no denominator is undefined (the reference's 0 is kept under its name); its delta is null.
        const oa = ca.of[key];
        const ob = cb.of[key];
        return { label, key, a: va, b: vb, delta: oa?.n === 0 || ob?.n === 0 ? null : vb - va, ...(oa ? { a_of: oa, b_of: ob } : {}) };
      });
      if (opts.json) {
        io.stdout(JSON.stringify({ runs: [runA.id, runB.id], metrics, changed, paired, alignment }, null, 2) + '\n');
        return;
      }
      const fmt = (key: string, v: number, of: { k: number; n: number } | undefined): string => (key === 'samples_total' ? String(v) : of?.n === 0 ? `– (${of.k}/0)` : percent(v));
      const fmtDelta = (key: string, v: number | null): string => (v === null ? '–' : key === 'samples_total' ? `${v >= 0 ? '+' : ''}${v}` : `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}`);
      io.stdout(formatTable(['', `run ${runA.id}`, `run ${runB.id}`, 'Δ (points)'], metrics.map((m) => [m.label, fmt(m.key, m.a, m.a_of), fmt(m.key, m.b, m.b_of), fmtDelta(m.key, m.delta)])));
      io.stdout(`\n${changed.length} samples changed verdict\n`);
      if (changed.length > 0) io.stdout(formatTable(['sample', `run ${runA.id}`, `run ${runB.id}`], changed.map((c) => [c.b_index !== undefined ? `${c.index} (run ${runB.id}: ${c.b_index})` : String(c.index), c.a ?? '-', c.b ?? '-'])));
      io.stdout(`\n${alignment.common} samples paired by ${alignment.by}${alignment.aLacks || alignment.bLacks ? ` (run ${runA.id} lacks ${alignment.aLacks}, run ${runB.id} lacks ${alignment.bLacks})` : ''}; * p < 0.05\n`);
      io.stdout(pairedTable(paired, runA.id, runB.id));
    });
}

/**
 * A dataset file and its spec folder, stored as a dataset named after the file (the one stored
 * before when it holds the same samples and specs; else one named with the content's hash: the
 * service's importDataset with `reuse`), so a file run is planned, queued, resumed and inspected
 * as a stored dataset's is.
 */
async function storeDatasetFile(program: Command, file: string, specsDir: string): Promise<number> {
  const dataset = unwrap(readFileInput(file));
  const specs = unwrap(await readSpecFolder(specsDir));
  const name = path.basename(file).replace(/\.json$/i, '') || 'dataset';
  return withService(program.opts<{ db?: string }>().db, async (client) => {
    try {
      return (await client.importDataset({ name, dataset, specs, reuse: true })).id;
    } catch (error) {
      // The service names the file by its name; the command line by the path given, and how to import it under another name.
      if (error instanceof WapiiError && error.code === 'conflict') throw new WapiiError('conflict', `${error.message.replace(` than ${dataset.filename};`, ` than ${file};`)} (\`wapii import ${file} --specs ${specsDir} --name <name>\`)`);
      throw error;
    }
  });
}
