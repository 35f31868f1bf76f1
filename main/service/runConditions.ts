import type { ConditionComparison, RunDetail } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import { conditionRows, countFailures, FAILURE_CLASSES, headlineValue, type Statistics } from '../scoring/index.js';
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
