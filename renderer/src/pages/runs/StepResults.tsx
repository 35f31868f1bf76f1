import { statistic, type RunDetail, type Statistics } from '../../api.js';
import { definedStatistic, percent } from '../../format.js';
import { Rate, type Uncertainty } from './Rate.js';
import './results.css';

/** The rates a run with multi-step samples adds (scoring.md §7), each with its 95% interval. */
const STEP_RATES: readonly (readonly [string, string, string])[] = [
  ['Task rate: correct samples (t)', 'samples_multistep_correct_wrt_multistep', 'every step correct and no extra request that writes, of the multi-step samples'],
  ['Step rate: correct steps (t)', 'steps_correct_wrt_total', "steps whose request is correct, of every step of the multi-step samples (a missing step counts as not correct)"],
  ['Carried values correct (t)', 'carried_correct_wrt_total', 'values a step takes from an earlier response, sent as that response held them'],
];
const STEP_COUNTS: readonly (readonly [string, string])[] = [
  ['multi-step samples', 'samples_multistep'],
  ['steps', 'steps_total'],
  ['missing steps', 'steps_missing'],
  ['extra requests', 'extra_requests'],
];

/** Whether a run's statistics include multi-step samples. */
export const hasSteps = (stats: Statistics | null | undefined): boolean => typeof stats?.['steps_total'] === 'number';

/**
 * Results of a run with multi-step samples: the task rate beside the step rate and the carried
 * values', with their intervals, for the run and each API that has such samples; then which step
 * samples first failed at.
 */
export function StepResults({ run }: { run: RunDetail }): React.JSX.Element {
  const apis = Object.keys(run.per_api).filter((a) => hasSteps(run.per_api[a]));
  const columns: [string, Statistics | null, Uncertainty | null][] = [['all', run.statistics, run.uncertainty], ...apis.map((a): [string, Statistics, Uncertainty | null] => [a, run.per_api[a]!, run.per_api_uncertainty[a] ?? null])];
  return (
    <div className="step-results">
      <table className="grid numbers" data-testid="step-rates">
        <thead>
          <tr>
            <th>multi-step samples</th>
            {columns.map(([name, stats]) => (
              <th key={name}>
                {name} ({statistic(stats, 'samples_multistep')})
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {STEP_RATES.map(([label, key, title]) => (
            <tr key={key} data-statistic={key}>
              <th title={`${key}: ${title}`}>{label}</th>
              {columns.map(([name, stats, u]) => (
                <td key={name}>
                  <Rate value={definedStatistic(stats, key)} of={u?.counts[key]} interval={u?.intervals[key]} />
                </td>
              ))}
            </tr>
          ))}
          {STEP_COUNTS.map(([label, key]) => (
            <tr key={key}>
              <th title={key}>{label}</th>
              {columns.map(([name, stats]) => (
                <td key={name}>{statistic(stats, key)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <FirstFailedStep statistics={run.statistics!} />
    </div>
  );
}

/** How many multi-step samples first failed at each step, and how many failed at none. */
function FirstFailedStep({ statistics }: { statistics: Statistics }): React.JSX.Element {
  const byStep = statistics['first_failed_step'];
  const counts = byStep && typeof byStep === 'object' ? byStep : {};
  const samples = statistic(statistics, 'samples_multistep');
  const steps = Object.keys(counts)
    .map(Number)
    .filter((n) => Number.isInteger(n))
    .sort((a, b) => a - b);
  const last = steps.length > 0 ? steps[steps.length - 1]! : -1;
  const failing = steps.reduce((n, s) => n + (counts[String(s)] ?? 0), 0);
  const rows: [string, number, string][] = [
    ...Array.from({ length: last + 1 }, (_, s): [string, number, string] => [`step ${s}`, counts[String(s)] ?? 0, `the first step that is not correct is step ${s}`]),
    ['none', samples - failing, 'every step correct (an extra request that writes still makes the sample wrong)'],
  ];
  return (
    <table className="grid numbers first-failed" data-testid="first-failed-step">
      <thead>
        <tr>
          <th>first failed step</th>
          <th>samples</th>
          <th>share</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([label, n, title]) => (
          <tr key={label} data-step={label}>
            <th title={title}>{label}</th>
            <td>{n}</td>
            <td>
              <span className="share-bar" aria-hidden="true">
                <span style={{ width: `${samples === 0 ? 0 : (100 * n) / samples}%` }} className={label === 'none' ? 'none' : undefined} />
              </span>
              {samples === 0 ? '–' : percent(n / samples)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
