import type { Command } from 'commander';
import { unwrap, WapiiError } from '../api/result.js';
import { reportOf } from '../runner/index.js';
import { classifyFailure, countFailures, FAILURE_CLASSES, headlineValue, type ExecutionFailure, type FailureCounts, type Verdict } from '../scoring/index.js';
import { openWorkbench, prepareDataset } from '../service/index.js';
import type { StoredRun } from '../store/index.js';
import { readFileInput, readSpecDir } from './files.js';
import type { CliIo } from './program.js';
import { percent } from './scoring.js';
import { formatTable } from './table.js';

export interface ConditionRow {
  readonly run: number;
  readonly knowledge: string;
  readonly outputs: number;
  readonly correct: number;
  readonly illegal: number;
  /** Correct (t) minus that of the `none` run among those compared; null when there is none. */
  readonly gain: number | null;
  readonly failures: FailureCounts;
}

const knowledgeOf = (run: StoredRun): string => String(((run.manifest ?? {}) as Record<string, unknown>)['knowledge'] ?? 'none');

export function registerConditionCommands(program: Command, io: CliIo): void {
  program
    .command('conditions')
    .description('compare runs of one dataset made under different knowledge conditions: correct (t), illegal (e), failure classes, gain over none')
    .argument('<runs...>', 'run numbers (e.g. those one `wapii run --knowledge ...` made)')
    .requiredOption('--specs <dir>', 'the spec folder the runs were made with (failure classes need the specs)')
    .option('--json', 'print [{run, knowledge, outputs, correct, illegal, gain, failures}]')
    .action(async (refs: string[], opts: { specs: string; json?: boolean }) => {
      const runs = (() => {
        using wb = openWorkbench({ db: program.opts<{ db?: string }>().db });
        return refs.map((ref) => {
          const run = /^\d+$/.test(ref) ? wb.store.getRun(Number(ref)) : undefined;
          if (!run) throw new WapiiError('not_found', `no run "${ref}" in ${wb.dbPath}`);
          return run;
        });
      })();
      const datasets = new Set(runs.map((r) => r.dataset));
      if (datasets.size !== 1) throw new WapiiError('bad_input', `the runs are on different datasets (${[...datasets].join(', ')})`);
      const prepared = unwrap(await prepareDataset(unwrap(readFileInput(runs[0]!.dataset)), unwrap(readSpecDir(opts.specs))));
      const rows = runs.map((run) => {
        const statistics = reportOf(run).statistics;
        const items = run.samples.flatMap((s) => {
          const sample = prepared.samples[s.index];
          const spec = sample ? prepared.specs.get(sample.api)?.spec : undefined;
          if (!sample || !spec || s.verdict === null || s.error !== undefined) return [];
          const executionError = ((s.execution ?? {}) as { error?: { kind: ExecutionFailure } }).error?.kind;
          return [{ api: s.api, failures: classifyFailure({ verdict: s.verdict as Verdict, spec, expected: sample.config, executionError }) }];
        });
        return { run: run.id, knowledge: knowledgeOf(run), outputs: items.length, correct: headlineValue(statistics, 'samples_correct_wrt_total'), illegal: headlineValue(statistics, 'samples_illegal_wrt_executable'), failures: countFailures(items).counts };
      });
      const none = rows.find((r) => r.knowledge === 'none');
      const table: ConditionRow[] = rows.map((r) => ({ ...r, gain: none ? r.correct - none.correct : null }));
      if (opts.json) {
        io.stdout(JSON.stringify(table, null, 2) + '\n');
        return;
      }
      const classes = FAILURE_CLASSES.filter((c) => table.some((r) => r.failures[c] > 0));
      io.stdout(
        formatTable(
          ['run', 'knowledge', 'outputs', 'correct (t)', 'illegal (e)', 'gain over none', ...classes],
          table.map((r) => [r.run, r.knowledge, r.outputs, percent(r.correct), percent(r.illegal), r.gain === null ? '-' : `${r.gain >= 0 ? '+' : ''}${(r.gain * 100).toFixed(1)}`, ...classes.map((c) => r.failures[c])]),
          40,
        ),
      );
    });
}
