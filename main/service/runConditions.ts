import type { Parsed } from '../api/contract.js';
import { readRunSettings, type ConditionComparison, type RunDetail } from '../api/evaluation.js';
import { unwrap, WapiiError } from '../api/result.js';
import { reportOf } from '../runner/index.js';
import { conditionRows, countFailures, FAILURE_CLASSES, headlineValue, proportionsOf, type FailureClass, type Statistics, type Verdict } from '../scoring/index.js';
import type { Store, StoredRun } from '../store/index.js';
import { prepareDataset } from './prepare.js';
import { storedFailureClasses } from './runFailures.js';
import type { RunResults } from './runResults.js';

/** What makes two runs comparable by condition: the same dataset and model. */
const datasetOf = (r: RunDetail): string => (r.datasetId !== null ? `#${r.datasetId}` : r.dataset);

/**
 * Runs of one dataset and model under different knowledge conditions, side by side: the
 * statistics and failure classes getRun computes (overrides applied), and the gain over `none`
 * from main/scoring's conditionRows, which `wapii conditions` uses too.
 */
export async function compareConditions(results: RunResults, runIds: readonly number[]): Promise<ConditionComparison> {
  const runs = await Promise.all([...new Set(runIds)].map((id) => results.getRun(id)));
  const datasets = [...new Set(runs.map(datasetOf))];
  if (datasets.length > 1) throw new WapiiError('bad_input', `the runs are on different datasets (${[...new Set(runs.map((r) => r.dataset))].join(', ')}); compare conditions on one dataset`);
  const models = [...new Set(runs.map((r) => r.model))];
  if (models.length > 1) throw new WapiiError('bad_input', `the runs use different models (${models.join(', ')}); compare conditions for one model`);
  const empty = countFailures([]).counts;
  const rows = conditionRows(
    runs.map((r) => ({
      run: r.id,
      knowledge: r.knowledge ?? 'none',
      cell: `${r.setup ?? ''}/${r.setting ?? ''}`,
      outputs: r.statistics ? headlineValue(r.statistics as Statistics, 'samples_total') : 0,
      correct: r.statistics ? headlineValue(r.statistics as Statistics, 'samples_correct_wrt_total') : 0,
      illegal: r.statistics ? headlineValue(r.statistics as Statistics, 'samples_illegal_wrt_executable') : 0,
      failures: r.failures?.counts ?? empty,
    })),
  );
  return {
    dataset: runs[0]!.dataset,
    model: runs[0]!.model,
    rows: rows.map((row, i) => {
      const r = runs[i]!;
      return { runId: r.id, knowledge: row.knowledge, setup: r.setup, setting: r.setting, status: r.status, outputs: row.outputs, correct: row.correct, illegal: row.illegal, illegalOf: r.illegalOf ?? { k: 0, n: 0 }, gain: row.gain, failures: row.failures, unclassified: r.failures?.unclassified ?? 0 };
    }),
    classes: FAILURE_CLASSES.filter((c) => rows.some((r) => r.failures[c] > 0)),
  };
}

/**
 * Runs made on a dataset file (`wapii score --save`, runs from before files were stored as
 * datasets), compared on that file and the spec folder they were made with: outputs stored
 * without failure classes are classified from those specs. Statistics are the stored verdicts'.
 */
export async function fileRunConditions(store: Store, input: Pick<Parsed<'compareConditions'>, 'runIds' | 'dataset'> & { specs: NonNullable<Parsed<'compareConditions'>['specs']> }): Promise<ConditionComparison> {
  const runs = input.runIds.map((id): StoredRun => {
    const run = store.getRun(id);
    if (!run) throw new WapiiError('not_found', `run ${id} does not exist`);
    return run;
  });
  const datasets = new Set(runs.map((r) => r.dataset));
  if (datasets.size !== 1) throw new WapiiError('bad_input', `the runs are on different datasets (${[...datasets].join(', ')})`);
  if (!input.dataset) throw new WapiiError('bad_input', `the runs were made on the dataset file ${runs[0]!.dataset}: give its content (\`dataset\`) with the specs`);
  const prepared = unwrap(await prepareDataset(input.dataset, input.specs));
  const measured = runs.map((run) => {
    let unclassified = 0;
    const items = run.samples.flatMap((s) => {
      if (s.verdict === null || s.error !== undefined) return [];
      if (s.failures) return [{ api: s.api, failures: s.failures as FailureClass[] }];
      const sample = prepared.samples[s.index];
      const spec = sample ? prepared.specs.get(sample.api)?.spec : undefined;
      if (!sample || !spec) {
        unclassified++;
        return [];
      }
      return [{ api: s.api, failures: storedFailureClasses(s.verdict as Verdict, s.execution, spec, sample) }];
    });
    return { run, statistics: reportOf(run).statistics, items, unclassified };
  });
  const knowledgeOf = (run: StoredRun): string => String(((run.manifest ?? {}) as Record<string, unknown>)['knowledge'] ?? 'none');
  const rows = conditionRows(
    measured.map(({ run, statistics, items }) => {
      const settings = readRunSettings(run.settings);
      return {
        run: run.id,
        knowledge: knowledgeOf(run),
        cell: `${settings.setup}/${settings.setting}`,
        outputs: items.length,
        correct: headlineValue(statistics, 'samples_correct_wrt_total'),
        illegal: headlineValue(statistics, 'samples_illegal_wrt_executable'),
        failures: countFailures(items).counts,
      };
    }),
  );
  return {
    dataset: runs[0]!.dataset,
    model: null,
    rows: rows.map((row, i) => {
      const { run, statistics, unclassified } = measured[i]!;
      const settings = readRunSettings(run.settings);
      return {
        runId: run.id,
        knowledge: row.knowledge,
        setup: settings.setup,
        setting: settings.setting,
        status: run.status,
        outputs: row.outputs,
        correct: row.correct,
        illegal: row.illegal,
        illegalOf: proportionsOf(statistics)['samples_illegal_wrt_executable'] ?? { k: 0, n: 0 },
        gain: row.gain,
        failures: row.failures,
        unclassified,
      };
    }),
    classes: FAILURE_CLASSES.filter((c) => rows.some((r) => r.failures[c] > 0)),
  };
}
