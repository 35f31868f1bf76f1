import type { Command } from 'commander';
import { FAILURE_CLASSES } from '../api/constants.js';
import type { FileInput } from '../api/contract.js';
import type { ConditionComparison } from '../api/evaluation.js';
import { unwrap, WapiiError } from '../api/result.js';
import { readFileInput } from './files.js';
import { readSpecFolder } from './specFolder.js';
import type { CliIo } from './io.js';
import { percent } from './scoring.js';
import { formatTable } from './table.js';
import { noRun, withService } from './withService.js';

/** One run of `wapii conditions`, as `--json` prints it. */
export interface ConditionRow {
  readonly run: number;
  readonly knowledge: string;
  /** The cell of the paper's grid it ran in (`full/unconstrained`); gains compare within a cell. */
  readonly cell: string;
  readonly outputs: number;
  readonly correct: number;
  readonly illegal: number;
  readonly gain: number | null;
  readonly failures: ConditionComparison['rows'][number]['failures'];
}

export function registerConditionCommands(program: Command, io: CliIo): void {
  program
    .command('conditions')
    .description('compare runs of one dataset and model made under different knowledge conditions: correct (t), illegal (e), failure classes, gain over none')
    .argument('<runs...>', 'run numbers (e.g. those one `wapii run --knowledge ...` made)')
    .option('--specs <dir>', 'runs on a dataset file: the spec folder they were made with (runs on a stored dataset need none)')
    .option('--json', 'print [{run, knowledge, cell, outputs, correct, illegal, gain, failures}]')
    .action(async (refs: string[], opts: { specs?: string; json?: boolean }) => {
      // What each run's illegal (e) divides: with no executable output it is undefined ("–"), not 0.0%.
      const illegalOf = new Map<number, { k: number; n: number }>();
      const table = await withService(program.opts<{ db?: string }>().db, async (client, wb): Promise<ConditionRow[]> => {
        const known = await client.listRuns({});
        const runs = [];
        for (const ref of refs) {
          const run = /^\d+$/.test(ref) ? known.find((r) => r.id === Number(ref)) : undefined;
          if (!run) throw await noRun(client, wb, ref, true, false);
          runs.push(run);
        }
        // Runs on a stored dataset: the service's comparison (the app's), from each run's own snapshot and specs.
        const stored = runs.every((r) => r.datasetId !== null);
        let files: { specs: FileInput[]; dataset?: FileInput } | undefined;
        if (!stored) {
          if (!opts.specs) throw new WapiiError('bad_input', 'runs made on a dataset file need the spec folder they were made with: --specs <dir>');
          // Runs made on a dataset file: that file (where they recorded it; when they name one) and the specs given.
          const named = new Set(runs.map((r) => r.dataset));
          const dataset = named.size === 1 ? unwrap(readFileInput(runs[0]!.dataset)) : undefined;
          files = { specs: unwrap(await readSpecFolder(opts.specs)), ...(dataset ? { dataset } : {}) };
        }
        const result = await client.compareConditions({ runIds: runs.map((r) => r.id), ...files });
        for (const r of result.rows) illegalOf.set(r.runId, r.illegalOf);
        const cell = (r: (typeof result.rows)[number]): string => `${r.setup ?? ''}/${r.setting ?? ''}`;
        // (The file runs' rows have always listed gain after the failures.)
        return result.rows.map((r) =>
          stored
            ? { run: r.runId, knowledge: r.knowledge, cell: cell(r), outputs: r.outputs, correct: r.correct, illegal: r.illegal, gain: r.gain, failures: r.failures }
            : { run: r.runId, knowledge: r.knowledge, cell: cell(r), outputs: r.outputs, correct: r.correct, illegal: r.illegal, failures: r.failures, gain: r.gain },
        );
      });
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
