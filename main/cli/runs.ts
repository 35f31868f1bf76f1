import { clientField, clientOf } from '../api/clients.js';
import type { Command } from 'commander';
import type { WorkbenchApi } from '../api/contract.js';
import { readRunSettings, type CompareResult, type ProviderModelSchema, type StartRunInputSchema } from '../api/evaluation.js';
import type { Headline, RunReport } from '../api/reports.js';
import { WapiiError } from '../api/result.js';
import { localClient, openWorkbench } from '../service/index.js';
import { conditionsOf, emptySubsetMessage, selectSubset } from '../service/runPlan.js';
import type { z } from 'zod';
import type { CliIo } from './io.js';
import { percent } from './scoring.js';
import { formatTable } from './table.js';
import { findStoredDataset, type EvaluationChoices, type RunProgress } from './withService.js';

/** The options of `wapii run` as commander hands them over. */
export type RunOptions = Record<string, string | boolean | undefined>;

const int = (name: string, value: string, min = 0): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new WapiiError('bad_input', `${name} must be an integer >= ${min}, not "${value}"`);
  return n;
};

/** The options of `wapii run` a resumed run must agree with, each with its stored settings' key and the value given. */
function resumeOptions(opts: RunOptions): [option: string, key: 'temperature' | 'topK' | 'topP' | 'seed' | 'n' | 'maxTokens' | 'setup' | 'setting' | 'client' | 'prompt', value: string | number][] {
  const num = (k: string): number => Number(opts[k]);
  return [
    ['temperature', 'temperature', num('temperature')],
    ['topK', 'topK', num('topK')],
    ['topP', 'topP', num('topP')],
    ['seed', 'seed', num('seed')],
    ['n', 'n', num('n')],
    ['maxTokens', 'maxTokens', num('maxTokens')],
    ['setup', 'setup', String(opts['setup'])],
    ['setting', 'setting', String(opts['setting'])],
    ['client', 'client', String(opts['client'])],
    ['chat', 'prompt', opts['chat'] === undefined ? 'completion' : 'chat'],
  ];
}

/** `--sample N [--sample-seed S] [--stratify api]`: the subset's seeded random sample, or undefined without --sample. */
export function sampleOption(opts: RunOptions): { size: number; seed: number; stratify: 'none' | 'api' } | undefined {
  if (opts['sample'] === undefined) {
    if (opts['sampleSeed'] !== undefined || opts['stratify'] !== undefined) throw new WapiiError('bad_input', '--sample-seed and --stratify go with --sample <n>');
    return undefined;
  }
  const stratify = opts['stratify'] === undefined ? 'none' : String(opts['stratify']);
  if (stratify !== 'none' && stratify !== 'api') throw new WapiiError('bad_input', `--stratify takes api or none, not "${stratify}"`);
  return { size: int('--sample', String(opts['sample']), 1), seed: int('--sample-seed', String(opts['sampleSeed'] ?? '1'), 0), stratify };
}

/**
 * `wapii run --dataset <id|name>`: a run on a stored dataset, through the same service methods and
 * job queue as the app (startRun / resumeRun / cancelRun), in this process. Ctrl-C cancels it; the
 * finished outputs stay and `--resume <run>` continues.
 */
export async function runOnStoredDataset(program: Command, io: CliIo, opts: RunOptions, draw: (p: RunProgress) => void, reportText: (headline: Headline) => string, given: (option: string) => boolean = () => false): Promise<void> {
  const str = (k: string): string => String(opts[k]);
  // How each run decodes (a local model's sequences and threads, and why), said once when it starts generating.
  const announced = new Set<number>();
  const announce = (runId: number): void => {
    if (announced.has(runId)) return;
    announced.add(runId);
    const decoding = wb.service.decodingOf(runId);
    if (decoding !== undefined) io.stderr(`${decoding}\n`);
  };
  const wb = openWorkbench({
    db: program.opts<{ db?: string }>().db,
    evaluation: {
      gpu: str('gpu') as NonNullable<EvaluationChoices['gpu']>,
      ...(opts['threads'] ? { threads: int('--threads', str('threads'), 1) } : {}),
      ...(opts['stepDeadline'] !== undefined ? { stepDeadlineMs: int('--step-deadline', str('stepDeadline'), 1) } : {}),
      ...(typeof opts['chat'] === 'string' ? { chatWrapper: opts['chat'] as NonNullable<EvaluationChoices['chatWrapper']> } : {}),
      onProgress: (runId, p) => (announce(runId), draw(p)),
    },
  });
  await using _shutdown = { [Symbol.asyncDispose]: () => wb.shutdown() };
  const client = localClient(wb.service);
  const datasets = await client.listDatasets({});
  const dataset = findStoredDataset(datasets, str('dataset'));
  if (!dataset) {
    const known = datasets.map((d) => `${d.id} "${d.name}"`).join(', ') || 'none';
    throw new WapiiError('not_found', `no stored dataset "${str('dataset')}" in ${wb.dbPath} (have: ${known}); a dataset file needs --specs <dir>`);
  }
  let runIds: number[];
  // `none` unless given: a resumed run keeps the condition it was made with.
  const knowledge = str('knowledge').split(',').map((k) => k.trim()).filter((k) => k !== '');
  if (opts['resume'] !== undefined) {
    const runId = int('--resume', str('resume'), 1);
    const retryErrors = opts['retryErrors'] === true;
    // A resume continues the run as it was made: an option given now that says otherwise is refused, not silently dropped.
    const made = readRunSettings((await client.getRun({ runId })).settings);
    for (const [option, key, value] of resumeOptions(opts)) {
      if (given(option) && JSON.stringify(made[key]) !== JSON.stringify(value)) throw new WapiiError('bad_input', `run ${runId} was made with ${key} = ${JSON.stringify(made[key])}, not ${JSON.stringify(value)}; resume it with the same options`);
    }
    const errored = retryErrors ? (await client.listRunSamples({ runId, filter: { errored: true }, limit: 1 })).total : 0;
    const summary = await client.resumeRun({ runId, retryErrors });
    io.stderr(`resuming run ${runId}${summary.knowledge && summary.knowledge !== 'none' ? ` (knowledge: ${summary.knowledge})` : ''}: ${summary.done} outputs stored, ${summary.total - summary.done + errored} to generate\n`);
    runIds = [runId];
  } else {
    if (opts['provider'] === undefined && !opts['model'] === !opts['remote']) throw new WapiiError('bad_input', 'give a model: --model <file.gguf>, --remote <url>, or --provider <name> --model <name>');
    if (opts['provider'] !== undefined && (!opts['model'] || opts['remote'])) throw new WapiiError('bad_input', '--provider takes the model by name: --provider <name> --model <model> [--base-url <url>]');
    const sample = sampleOption(opts);
    const subset = {
      ...(opts['limit'] !== undefined ? { limit: int('--limit', str('limit'), 1) } : {}),
      ...(sample ? { sample } : {}),
      ...(opts['api'] !== undefined ? { apis: str('api').split(',') } : {}),
      ...(opts['review'] !== undefined ? { reviewStates: str('review').split(',') as ('accepted' | 'fixed' | 'unreviewed' | 'rejected')[] } : {}),
    };
    // Checked before the model joins the library, so a wrong subset writes nothing at all.
    const all = await client.listSamples({ datasetId: dataset.id });
    if (selectSubset(all, subset).length === 0) throw new WapiiError('bad_input', emptySubsetMessage(dataset.name, all, subset));
    conditionsOf({ knowledge });
    const model: z.input<typeof StartRunInputSchema>['model'] =
      opts['provider'] !== undefined
        ? { provider: providerOption(opts) }
        : opts['model']
          ? { modelId: (await client.addModel({ path: str('model') })).id }
          : { remote: { url: str('remote'), model: str('remoteModel') } };
    const input: z.input<typeof StartRunInputSchema> = {
      datasetId: dataset.id,
      model,
      subset,
      setup: str('setup') as z.input<typeof StartRunInputSchema>['setup'],
      setting: str('setting') as 'unconstrained' | 'constrained' | 'repair',
      ...(str('setting') === 'repair' ? { repairRounds: Number(str('repairRounds')) } : {}),
      ...clientField(clientOf(str('client'))),
      prompt: opts['chat'] === undefined ? 'completion' : 'chat',
      sampling: { temperature: Number(str('temperature')), topK: Number(str('topK')), topP: Number(str('topP')), seed: Number(str('seed')), n: Number(str('n')), maxTokens: Number(str('maxTokens')) },
      ...(opts['parallel'] !== undefined ? { parallel: Number(str('parallel')) } : {}),
      contextSize: Number(str('context')),
      knowledge,
    };
    runIds = (await client.startRun(input)).runIds;
    for (const runId of runIds) {
      const run = await client.getRun({ runId });
      io.stderr(`run ${runId}: ${run.total} outputs to generate on dataset "${dataset.name}"${runIds.length > 1 || run.knowledge !== 'none' ? ` (knowledge: ${run.knowledge})` : ''}\n`);
    }
  }
  // One Ctrl-C cancels every run this command queued; finished outputs stay.
  const onAbort = (): void => {
    for (const runId of runIds) void client.cancelRun({ runId }).catch(() => undefined);
  };
  io.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await wb.service.evaluation.jobs.idle();
  } finally {
    io.signal?.removeEventListener('abort', onAbort);
  }
  if (io.isTTY) io.stderr('\n');
  const reports: { run: number; knowledge: string | null; report: RunReport; headline: Headline }[] = [];
  for (const runId of runIds) {
    const run = await client.getRun({ runId });
    if (run.status !== 'finished') {
      if (run.status === 'failed') throw new WapiiError('bad_input', `run ${runId} failed: ${run.error}`);
      io.stderr(`${run.status}: ${run.done} finished outputs of run ${runId} are stored; continue with \`wapii run --dataset ${dataset.id} --resume ${runId}\`\n`);
      continue;
    }
    // A prompt that does not fit the context (a long knowledge condition) fails each output with that reason: say so here, not only in the store.
    const failed = await client.listRunSamples({ runId, filter: { errored: true }, limit: 1 });
    if (failed.total > 0) io.stderr(`${failed.total} outputs of run ${runId} failed; the first: ${failed.rows[0]?.error}\n`);
    const { report, headline } = await client.getRunReport({ runId });
    reports.push({ run: runId, knowledge: run.knowledge, report, headline });
  }
  if (reports.length === 0) return;
  const grid = runIds.length > 1;
  if (opts['json']) {
    const json = reports.map((r) => ({ ...r.report, run: r.run, ...(r.knowledge && r.knowledge !== 'none' ? { knowledge: r.knowledge } : {}) }));
    io.stdout(JSON.stringify(grid ? json : json[0], null, 2) + '\n');
  } else for (const r of reports) io.stdout(`${grid ? `knowledge: ${r.knowledge}\n` : ''}${reportText(r.headline)}run ${r.run}\n`);
}

export function registerRunsCommand(program: Command, io: CliIo): void {
  program
    .command('runs')
    .description('the stored runs: dataset, model, setup, setting, knowledge condition, status, correct (t), illegal (e)')
    .option('--json', 'print [{"id", "status", "dataset", "model", "setup", "setting", ...}]')
    .action(async (opts: { json?: boolean }) => {
      const wb = openWorkbench({ db: program.opts<{ db?: string }>().db });
      try {
        const runs = await localClient(wb.service).listRuns({});
        if (opts.json) {
          io.stdout(JSON.stringify(runs, null, 2) + '\n');
          return;
        }
        if (runs.length === 0) {
          io.stdout('no runs yet: start one with `wapii run --dataset <id|name> --model <file.gguf>`\n');
          return;
        }
        // A rate with no denominator (illegal among 0 executable outputs) is undefined, not 0.0%.
        const cell = (v: number | null, of: { k: number; n: number } | null): string => (v === null ? '-' : of?.n === 0 ? `– (${of.k}/0)` : percent(v));
        io.stdout(
          formatTable(
            ['run', 'status', 'dataset', 'model', 'setup', 'setting', 'knowledge', 'done', 'correct (t)', 'illegal (e)', 'created'],
            runs.map((r) => [String(r.id), r.status + (r.datasetChanged ? ' *' : ''), r.dataset, r.model ?? '-', r.setup ?? '-', r.setting ?? '-', r.knowledge ?? '-', `${r.done}/${r.total}`, cell(r.correct, r.correctOf) + (r.overridden ? ' †' : ''), cell(r.illegal, r.illegalOf) + (r.overridden ? ' †' : ''), r.createdAt.slice(0, 16).replace('T', ' ')]),
          ),
        );
        if (runs.some((r) => r.datasetChanged)) io.stdout('* the dataset was edited since the run took its samples\n');
        if (runs.some((r) => r.overridden)) io.stdout('† includes verdicts a reviewer overrode\n');
      } finally {
        await wb.shutdown();
      }
    });
}

/** `--provider <name> --model <m> [--base-url] [--pool] [--batch] [--spending-cap] [--parallel]` as the contract's provider model. */
function providerOption(opts: RunOptions): z.input<typeof ProviderModelSchema> {
  const str = (k: string): string => String(opts[k]);
  const cap = opts['spendingCap'] !== undefined ? Number(str('spendingCap')) : undefined;
  if (cap !== undefined && !(cap > 0)) throw new WapiiError('bad_input', `--spending-cap must be a positive number of US dollars, not "${str('spendingCap')}"`);
  return {
    name: str('provider') as z.input<typeof ProviderModelSchema>['name'],
    model: str('model'),
    ...(opts['baseUrl'] !== undefined ? { baseUrl: str('baseUrl') } : {}),
    ...(opts['pool'] !== undefined ? { pool: str('pool').split(',').map((u) => u.trim()).filter((u) => u !== '') } : {}),
    ...(opts['batch'] ? { batch: true } : {}),
    ...(cap !== undefined ? { spendingCapUsd: cap } : {}),
    ...(opts['parallel'] !== undefined ? { concurrency: int('--parallel', str('parallel'), 1) } : {}),
  };
}

/** A sample whose verdict differs between two runs: run A's index (run B's too where it numbers the sample otherwise) and both verdicts. */
export interface ChangedSample {
  readonly index: number;
  readonly b_index?: number;
  readonly a: string | null;
  readonly b: string | null;
}

/**
 * `wapii compare`'s samples, as the Compare page pairs them (the service's compareRuns): by
 * sample id, content hash or, for dataset files, position, and only the samples both runs have;
 * one line of error when they share none. Positions alone paired run B's first sample with run A's
 * first whatever each was.
 */
export async function compareSamples(client: WorkbenchApi, a: number, b: number): Promise<{ paired: CompareResult['paired'][number]; alignment: { by: string; common: number; aLacks: number; bLacks: number }; changed: ChangedSample[] }> {
  const result = await client.compareRuns({ baselineId: a, runIds: [b], changedOnly: true, limit: 100_000 });
  const r = result.alignment.runs[0]!;
  const changed = result.rows.map((row) => {
    const other = row.indexes[1] ?? row.index;
    return { index: row.index, ...(other !== row.index ? { b_index: other } : {}), a: row.baseline, b: row.others[0] ?? null };
  });
  return { paired: result.paired[0]!, alignment: { by: result.alignment.by, common: r.common, aLacks: r.baselineLacks, bLacks: r.runLacks }, changed };
}
