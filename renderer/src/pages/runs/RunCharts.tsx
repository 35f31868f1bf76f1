import { Bar, BarChart, CartesianGrid, Cell, LabelList, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ERROR_VERDICTS, statistic, type RunDetail, type RunSampleRow } from '../../api.js';

type FailureClass = RunSampleRow['failures'][number];
import { percent, signedPoints } from '../../format.js';

const COLORS = { correct: '#1f7a3d', illegal: '#b3261e', wrong: '#a4560b', nonexecutable: '#6b6b76', unconstrained: '#8aa4e8', constrained: '#2f5bd3' };
const pct = (v: unknown): string => percent(typeof v === 'number' ? v / 100 : null);

/** Correct (t) and illegal (e) per API, as bars in percent. */
export function PerApiChart({ run }: { run: RunDetail }): React.JSX.Element {
  const data = [['all', run.statistics] as const, ...Object.entries(run.per_api)].map(([api, s]) => ({
    api,
    correct: statistic(s, 'samples_correct_wrt_total') * 100,
    illegal: statistic(s, 'samples_illegal_wrt_executable') * 100,
  }));
  return (
    <figure className="chart" data-testid="chart-per-api">
      <figcaption>Correct (t) and illegal (e) implementations per API</figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={data} margin={{ top: 16, right: 8, left: 0, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="api" />
          <YAxis unit="%" domain={[0, 100]} />
          <Tooltip formatter={pct} />
          <Legend />
          <Bar dataKey="correct" name="correct (t)" fill={COLORS.correct} isAnimationActive={false} />
          <Bar dataKey="illegal" name="illegal (e)" fill={COLORS.illegal} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** How the samples ended: verdicts, and why the non-executable ones produced no request. */
export function VerdictChart({ run }: { run: RunDetail }): React.JSX.Element {
  const s = run.statistics;
  const data = [
    { name: 'correct', count: statistic(s, 'samples_correct'), fill: COLORS.correct },
    { name: 'wrong', count: statistic(s, 'samples_wrong'), fill: COLORS.wrong },
    { name: 'illegal', count: statistic(s, 'samples_illegal'), fill: COLORS.illegal },
    ...ERROR_VERDICTS.map((e) => ({ name: e.replace(/_/g, ' '), count: statistic(s, `errors_${e}`), fill: COLORS.nonexecutable })),
  ];
  return (
    <figure className="chart" data-testid="chart-verdicts">
      <figcaption>Sample verdicts and error verdicts (non-executable samples, grey)</figcaption>
      <ResponsiveContainer width="100%" height={250}>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 24, left: 40, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} />
          <YAxis type="category" dataKey="name" width={110} interval={0} />
          <Tooltip />
          <Bar dataKey="count" isAnimationActive={false}>
            {data.map((d) => (
              <Cell key={d.name} fill={d.fill} />
            ))}
            <LabelList dataKey="count" position="right" />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** How many outputs carry each failure class (those with any), for the run; a click filters the samples by it. */
export function FailureChart({ run, onPick }: { run: RunDetail; onPick?: (failure: FailureClass) => void }): React.JSX.Element | null {
  const failures = run.failures;
  if (!failures) return null;
  const data = Object.entries(failures.counts)
    .filter(([, n]) => n > 0)
    .map(([name, count]) => ({ key: name as FailureClass, name: name.replace(/_/g, ' '), count }));
  return (
    <figure className="chart" data-testid="chart-failures">
      <figcaption>
        Failure classes (outputs carrying each; one output may carry several)
        {failures.unclassified > 0 && ` · ${failures.unclassified} not classified`}
      </figcaption>
      {data.length === 0 ? (
        <p className="muted">No failures: every scored output is correct.</p>
      ) : (
        <ResponsiveContainer width="100%" height={Math.max(120, 28 * data.length + 30)}>
          <BarChart data={data} layout="vertical" margin={{ top: 4, right: 32, left: 40, bottom: 0 }}>
            <CartesianGrid strokeDasharray="3 3" horizontal={false} />
            <XAxis type="number" allowDecimals={false} />
            <YAxis type="category" dataKey="name" width={170} interval={0} />
            <Tooltip />
            <Bar dataKey="count" fill={COLORS.illegal} isAnimationActive={false} cursor={onPick ? 'pointer' : undefined} onClick={(_bar, index) => {
                const picked = data[index]?.key;
                if (picked) onPick?.(picked);
              }}
            >
              <LabelList dataKey="count" position="right" />
            </Bar>
          </BarChart>
        </ResponsiveContainer>
      )}
    </figure>
  );
}

/** Failure classes per API (rows with any), beside the chart when the run spans several APIs. */
export function FailureTable({ run }: { run: RunDetail }): React.JSX.Element | null {
  const failures = run.failures;
  const apis = Object.keys(failures?.per_api ?? {});
  if (!failures || apis.length < 2) return null;
  const classes = Object.keys(failures.counts).filter((c) => (failures.counts as Record<string, number>)[c]! > 0);
  return (
    <table className="compact failure-table" data-testid="failure-table">
      <thead>
        <tr>
          <th>failure class</th>
          <th>all</th>
          {apis.map((a) => (
            <th key={a}>{a}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {classes.map((c) => (
          <tr key={c}>
            <td>{c.replace(/_/g, ' ')}</td>
            <td className="n">{(failures.counts as Record<string, number>)[c]}</td>
            {apis.map((a) => (
              <td key={a} className="n">
                {(failures.per_api[a] as Record<string, number> | undefined)?.[c] ?? 0}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export interface GridCell {
  readonly setup: string;
  readonly unconstrained: RunDetail | undefined;
  readonly constrained: RunDetail | undefined;
}

/** For a grid: unconstrained vs constrained per setup, correct (t) and illegal (e), with the gain. */
export function GridChart({ cells }: { cells: readonly GridCell[] }): React.JSX.Element {
  const data = cells.flatMap((c) =>
    (['samples_correct_wrt_total', 'samples_illegal_wrt_executable'] as const).map((key) => {
      const u = c.unconstrained ? statistic(c.unconstrained.statistics, key) : null;
      const k = c.constrained ? statistic(c.constrained.statistics, key) : null;
      const gain = u !== null && k !== null ? ` ${signedPoints(k - u)}` : '';
      return {
        name: `${c.setup === 'full' ? 'full' : 'argument'} · ${key.includes('correct') ? 'correct (t)' : 'illegal (e)'}${gain}`,
        unconstrained: u === null ? null : u * 100,
        constrained: k === null ? null : k * 100,
      };
    }),
  );
  return (
    <figure className="chart" data-testid="chart-grid">
      <figcaption>Unconstrained vs constrained (the gain of constrained decoding under each pair)</figcaption>
      <ResponsiveContainer width="100%" height={240}>
        <BarChart data={data} margin={{ top: 20, right: 8, left: 0, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="name" interval={0} tick={{ fontSize: 11 }} />
          <YAxis unit="%" domain={[0, 100]} />
          <Tooltip formatter={pct} />
          <Legend />
          <Bar dataKey="unconstrained" fill={COLORS.unconstrained} isAnimationActive={false} />
          <Bar dataKey="constrained" fill={COLORS.constrained} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
