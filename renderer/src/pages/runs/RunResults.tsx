import { HEADLINE, LOCATION_LABELS, LOCATION_ROWS, statistic, type RunDetail, type Statistics } from '../../api.js';
import { percent } from '../../format.js';

/** The paper's headline table for the run and each API in it. */
export function HeadlineTable({ run }: { run: RunDetail }): React.JSX.Element {
  const apis = Object.keys(run.per_api);
  const columns: [string, Statistics | null][] = [['all', run.statistics], ...apis.map((a): [string, Statistics] => [a, run.per_api[a]!])];
  return (
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
            {columns.map(([name, stats]) => (
              <td key={name}>{percent(statistic(stats, key))}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
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
