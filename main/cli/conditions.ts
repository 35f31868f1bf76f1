import { readRunSettings } from '../api/evaluation.js';
import type { Command } from 'commander';
import { unwrap, WapiiError } from '../api/result.js';
import { reportOf } from '../runner/index.js';
import { classifyFailure, conditionRows, countFailures, FAILURE_CLASSES, headlineValue, proportionsOf, type ConditionRow, type ExecutionFailure, type FailureClass, type Verdict } from '../scoring/index.js';
import { localClient, openWorkbench, prepareDataset } from '../service/index.js';
import type { StoredRun } from '../store/index.js';
import { readFileInput } from './files.js';
import { readSpecFolder } from './specFolder.js';
import type { CliIo } from './io.js';
import { percent } from './scoring.js';
import { formatTable } from './table.js';

export type { ConditionRow };

const knowledgeOf = (run: StoredRun): string => String(((run.manifest ?? {}) as Record<string, unknown>)['knowledge'] ?? 'none');
const cellOf = (run: StoredRun): string => {
  const settings = readRunSettings(run.settings);
  return `${settings.setup}/${settings.setting}`;
};

/** Runs made on dataset files (`wapii run --dataset <file> --specs`): classified here, from the specs given. */
async function fileRunRows(runs: readonly StoredRun[], specs: string): Promise<ConditionRow[]> {
  const datasets = new Set(runs.map((r) => r.dataset));
  if (datasets.size !== 1) throw new WapiiError('bad_input', `the runs are on different datasets (${[...datasets].join(', ')})`);
  const prepared = unwrap(await prepareDataset(unwrap(readFileInput(runs[0]!.dataset)), unwrap(await readSpecFolder(specs))));
  return conditionRows(
    runs.map((run) => {
      const statistics = reportOf(run).statistics;
      const items = run.samples.flatMap((s) => {
        if (s.verdict === null || s.error !== undefined) return [];
        if (s.failures) return [{ api: s.api, failures: s.failures as FailureClass[] }];
        const sample = prepared.samples[s.index];
        const spec = sample ? prepared.specs.get(sample.api)?.spec : undefined;
        if (!sample || !spec) return [];
        const executionError = ((s.execution ?? {}) as { error?: { kind: ExecutionFailure } }).error?.kind;
        return [{ api: s.api, failures: classifyFailure({ verdict: s.verdict as Verdict, spec, expected: sample.config, executionError }) }];
      });
      return {
        run: run.id,
        knowledge: knowledgeOf(run),
        cell: cellOf(run),
        outputs: items.length,
        correct: headlineValue(statistics, 'samples_correct_wrt_total'),
        illegal: headlineValue(statistics, 'samples_illegal_wrt_executable'),
        failures: countFailures(items).counts,
      };
    }),
  );
}

export function registerConditionCommands(program: Command, io: CliIo): void {
  program
    .command('conditions')
    .description('compare runs of one dataset and model made under different knowledge conditions: correct (t), illegal (e), failure classes, gain over none')
    .argument('<runs...>', 'run numbers (e.g. those one `wapii run --knowledge ...` made)')
    .option('--specs <dir>', 'runs on a dataset file: the spec folder they were made with (runs on a stored dataset need none)')
    .option('--json', 'print [{run, knowledge, cell, outputs, correct, illegal, gain, failures}]')
    .action(async (refs: string[], opts: { specs?: string; json?: boolean }) => {
      const db = program.opts<{ db?: string }>().db;
      const wb = openWorkbench({ db });
      let table: ConditionRow[];
      // What each run's illegal (e) divides: with no executable output it is undefined ("–"), not 0.0%.
      const illegalOf = new Map<number, { k: number; n: number }>();
      try {
        const runs = refs.map((ref) => {
          const run = /^\d+$/.test(ref) ? wb.store.getRun(Number(ref)) : undefined;
          if (!run) throw new WapiiError('not_found', `no run "${ref}" in ${wb.dbPath}`);
          return run;
        });
        const stored = runs.map((r) => wb.service.evaluation.runs.get(r.id)?.datasetId ?? null);
        if (stored.every((id) => id !== null)) {
          // Runs on a stored dataset: the service's comparison (the app's), which reads each run's own snapshot and specs.
          const result = await localClient(wb.service).compareConditions({ runIds: runs.map((r) => r.id) });
          for (const r of result.rows) illegalOf.set(r.runId, r.illegalOf);
          table = result.rows.map((r) => ({ run: r.runId, knowledge: r.knowledge, cell: `${r.setup ?? ''}/${r.setting ?? ''}`, outputs: r.outputs, correct: r.correct, illegal: r.illegal, gain: r.gain, failures: r.failures as ConditionRow['failures'] }));
        } else {
          if (!opts.specs) throw new WapiiError('bad_input', 'runs made on a dataset file need the spec folder they were made with: --specs <dir>');
          table = await fileRunRows(runs, opts.specs);
          for (const run of runs) illegalOf.set(run.id, proportionsOf(reportOf(run).statistics)['samples_illegal_wrt_executable'] ?? { k: 0, n: 0 });
        }
      } finally {
        await wb.shutdown();
      }
      if (opts.json) {
        io.stdout(JSON.stringify(table.map((r) => ({ ...r, illegalOf: illegalOf.get(r.run) })), null, 2) + '\n');
        return;
      }
      const classes = FAILURE_CLASSES.filter((c) => table.some((r) => r.failures[c] > 0));
      const cells = new Set(table.map((r) => r.cell)).size > 1;
      io.stdout(
        formatTable(
          ['run', 'knowledge', ...(cells ? ['cell'] : []), 'outputs', 'correct (t)', 'illegal (e)', 'gain over none', ...classes],
          table.map((r) => [r.run, r.knowledge, ...(cells ? [r.cell] : []), r.outputs, percent(r.correct), illegalOf.get(r.run)?.n === 0 ? `– (${illegalOf.get(r.run)!.k}/0)` : percent(r.illegal), r.gain === null ? '-' : `${r.gain >= 0 ? '+' : ''}${(r.gain * 100).toFixed(1)}`, ...classes.map((c) => r.failures[c])]),
          40,
        ),
      );
    });
}
