import { HEADLINE, LOCATION_LABELS, LOCATION_ROWS, statistic, type RunDetail, type Statistics } from '../../api.js';
import { definedStatistic, percent } from '../../format.js';
import { OverrideMark, Rate, type Uncertainty } from './Rate.js';

/** The paper's headline table for the run and each API in it, each rate with its 95% interval. */
export function HeadlineTable({ run }: { run: RunDetail }): React.JSX.Element {
  const apis = Object.keys(run.per_api);
  const columns: [string, Statistics | null, Uncertainty | null][] = [['all', run.statistics, run.uncertainty], ...apis.map((a): [string, Statistics, Uncertainty | null] => [a, run.per_api[a]!, run.per_api_uncertainty[a] ?? null])];
  return (
    <>
      <table className="grid numbers" data-testid="headline-table">
        <thead>
          <tr>
            <th>metric</th>
            {columns.map(([name]) => (
              <th key={name}>{name === 'all' ? `all (${statistic(run.statistics, 'samples_total')})` : `${name} (${statistic(run.per_api[name], 'samples_total')})`}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {HEADLINE.map(([label, key]) => (
            <tr key={key}>
              <th title={key}>{label}</th>
              {columns.map(([name, stats, u]) => (
                <td key={name}>
                  <Rate value={definedStatistic(stats, key)} of={u?.counts[key]} interval={u?.intervals[key]} />
                </td>
              ))}
            </tr>
          ))}
          {Object.entries(run.pass_at_k).map(([k, v]) => (
            <tr key={`pass@${k}`}>
              <th title="Chen et al. (2021), unbiased estimator over the outputs of each sample">pass@{k}</th>
              <td>{percent(v)}</td>
              {columns.slice(1).map(([name]) => (
                <td key={name} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted table-note" data-testid="headline-note">
        [95% interval] (Wilson; mean metrics: percentile bootstrap, seed {run.bootstrap.seed}, {run.bootstrap.resamples} resamples); hover a number for k/n. – : undefined,
        no sample in the denominator.
        {run.overridden > 0 && (
          <>
            {' '}
            <OverrideMark count={run.overridden} /> Includes {run.overridden} verdict{run.overridden === 1 ? '' : 's'} overridden by a reviewer.
          </>
        )}
      </p>
    </>
  );
}

/** Argument counts per location over the executable samples, as `wapii report` prints them. */
export function LocationTable({ statistics }: { statistics: Statistics }): React.JSX.Element {
  const locations = new Set<string>();
  for (const [, key] of LOCATION_ROWS) {
    const v = statistics[key];
    if (v && typeof v === 'object') for (const loc of Object.keys(v)) locations.add(loc);
  }
  const columns = ['all', ...[...locations].filter((l) => l !== 'all').sort()];
  return (
    <table className="grid numbers" data-testid="location-table">
      <thead>
        <tr>
          <th>arguments (executable samples)</th>
          {columns.map((c) => (
            <th key={c}>{LOCATION_LABELS[c] ?? c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {LOCATION_ROWS.map(([label, key]) => (
          <tr key={key}>
            <th title={key}>{label}</th>
            {columns.map((c) => (
              <td key={c}>{statistic(statistics, key, c)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
