import { Bar, BarChart, CartesianGrid, Cell, ErrorBar, LabelList, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { ERROR_VERDICTS, statistic, type CompareResult, type RunDetail, type RunSampleRow, type Statistics } from '../../api.js';
import type { Uncertainty } from './Rate.js';

type FailureClass = RunSampleRow['failures'][number];
import { definedStatistic, percent, signedPoints } from '../../format.js';
// Axis text, grid and tooltip on the shared colour variables (dark scheme).
import './results.css';

// Bars follow the shared colour variables (styles.css), so a dark theme recolours them too.
const COLORS = { correct: 'var(--ok, #1f7a3d)', illegal: 'var(--bad, #b3261e)', wrong: 'var(--warn, #a4560b)', nonexecutable: 'var(--muted, #6b6b76)', unconstrained: 'var(--accent-soft, #8aa4e8)', constrained: 'var(--accent, #2f5bd3)', repair: 'var(--warn, #a4560b)', whisker: 'var(--text, #1d1d22)' };
const pct = (v: unknown): string => percent(typeof v === 'number' ? v / 100 : null);

/**
 * A rate in percent for a bar and its 95% interval as an error bar ([below, above] the value);
 * an undefined rate (denominator 0, or a mean over no sample) has no bar at all rather than a bar at 0.
 */
function barOf(stats: Statistics | null | undefined, u: Uncertainty | null | undefined, key: string): { value: number | null; err: [number, number] } {
  const of = u?.counts[key];
  const v = definedStatistic(stats, key);
  if (v === null || (of && of.n === 0)) return { value: null, err: [0, 0] };
  const i = u?.intervals[key];
  return { value: v * 100, err: i ? [(v - i[0]) * 100, (i[1] - v) * 100] : [0, 0] };
}

/** Correct (t) and illegal (e) per API, as bars in percent. */
export function PerApiChart({ run }: { run: RunDetail }): React.JSX.Element {
  const data = [['all', run.statistics, run.uncertainty] as const, ...Object.entries(run.per_api).map(([api, s]) => [api, s, run.per_api_uncertainty[api]] as const)].map(([api, s, u]) => {
    const correct = barOf(s, u, 'samples_correct_wrt_total');
    const illegal = barOf(s, u, 'samples_illegal_wrt_executable');
    return { api, correct: correct.value, correctErr: correct.err, illegal: illegal.value, illegalErr: illegal.err };
  });
  return (
    // Beyond three APIs the chart takes a full row, so every API's label has room beside its neighbours.
    <figure className={`chart${data.length > 4 ? ' wide' : ''}`} data-testid="chart-per-api">
      <figcaption>Correct (t) and illegal (e) implementations per API, with 95% intervals</figcaption>
      <ResponsiveContainer width="100%" height={220}>
        <BarChart data={data} margin={{ top: 16, right: 8, left: 0, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="api" interval={0} tick={{ fontSize: 11 }} />
          <YAxis unit="%" domain={[0, 100]} />
          <Tooltip formatter={pct} />
          <Legend />
          <Bar dataKey="correct" name="correct (t)" fill={COLORS.correct} isAnimationActive={false}>
            <ErrorBar dataKey="correctErr" width={4} stroke={COLORS.whisker} direction="y" />
          </Bar>
          <Bar dataKey="illegal" name="illegal (e)" fill={COLORS.illegal} isAnimationActive={false}>
            <ErrorBar dataKey="illegalErr" width={4} stroke={COLORS.whisker} direction="y" />
          </Bar>
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
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 32, left: 8, bottom: 0 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis type="number" allowDecimals={false} />
          <YAxis type="category" dataKey="name" width={130} interval={0} tick={{ fontSize: 12 }} />
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
  /** The spec checker's repair rounds on the same model, when run. */
  readonly repair?: RunDetail | undefined;
  /** Unconstrained (a) vs constrained (b) on the samples both have: exact McNemar per outcome. */
  readonly paired?: CompareResult['paired'][number] | undefined;
  /** Unconstrained (a) vs repair (b). */
  readonly pairedRepair?: CompareResult['paired'][number] | undefined;
}

/** The grid's conditions in the order their bars are drawn. */
const CONDITIONS = ['unconstrained', 'constrained', 'repair'];
const pValue = (p: number): string => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/** Two-line category labels (setup · metric, then the gain and its test): one line each never overlaps its neighbours. */
function GridTick({ x, y, payload }: { x?: number; y?: number; payload?: { value: string } }): React.JSX.Element {
  const [first, ...rest] = (payload?.value ?? '').split('\n');
  return (
    <text x={x} y={y} textAnchor="middle" fontSize={11} fill="currentColor">
      <tspan x={x} dy="1em">
        {first}
      </tspan>
      {rest.map((line) => (
        <tspan key={line} x={x} dy="1.2em">
          {line}
        </tspan>
      ))}
    </text>
  );
}

/** For a grid: unconstrained vs constrained per setup, correct (t) and illegal (e) with 95% intervals, and the gain with its paired test. */
export function GridChart({ cells }: { cells: readonly GridCell[] }): React.JSX.Element {
  const data = cells.flatMap((c) =>
    (['samples_correct_wrt_total', 'samples_illegal_wrt_executable'] as const).map((key) => {
      const u = c.unconstrained ? barOf(c.unconstrained.statistics, c.unconstrained.uncertainty, key) : null;
      const k = c.constrained ? barOf(c.constrained.statistics, c.constrained.uncertainty, key) : null;
      const r = c.repair ? barOf(c.repair.statistics, c.repair.uncertainty, key) : null;
      // The paired test of correct samples carries the correct (t) gain; illegal (e) is tested on the samples executable in both runs.
      const outcome = key.startsWith('samples_correct') ? 'samples_correct' : 'samples_illegal';
      const gain = (label: string, to: typeof k, paired: GridCell['paired']): string | null => {
        if (u?.value == null || to?.value == null) return null;
        const test = paired?.[outcome];
        return `${label}${signedPoints((to.value - u.value) / 100)}${test ? `, ${pValue(test.p_value)}${test.p_value < 0.05 ? ' *' : ''}` : ''}`;
      };
      const gains = [gain(c.repair ? 'constrained ' : '', k, c.paired), gain('repair ', r, c.pairedRepair)].filter((g): g is string => g !== null);
      return {
        name: [`${c.setup === 'full' ? 'full' : 'argument'} · ${key.includes('correct') ? 'correct (t)' : 'illegal (e)'}`, ...gains].join('\n'),
        unconstrained: u?.value ?? null,
        unconstrainedErr: u?.err ?? [0, 0],
        constrained: k?.value ?? null,
        constrainedErr: k?.err ?? [0, 0],
        repair: r?.value ?? null,
        repairErr: r?.err ?? [0, 0],
      };
    }),
  );
  // Only the conditions the run set has get a bar (and so a legend entry): a grid of unconstrained
  // and repair runs listed "constrained" in its legend with no such run.
  const hasConstrained = cells.some((c) => c.constrained);
  const hasRepair = cells.some((c) => c.repair);
  const others = [hasConstrained && 'constrained', hasRepair && 'repair'].filter((x): x is string => typeof x === 'string');
  return (
    <figure className="chart wide" data-testid="chart-grid">
      <figcaption>Unconstrained vs {others.join(' and ')}, with 95% intervals; each gain over unconstrained with its exact McNemar test (* p &lt; 0.05)</figcaption>
      <ResponsiveContainer width="100%" height={260}>
        <BarChart data={data} margin={{ top: 20, right: 8, left: 0, bottom: 8 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis dataKey="name" interval={0} height={hasRepair ? 54 : 40} tick={<GridTick />} />
          <YAxis unit="%" domain={[0, 100]} />
          <Tooltip formatter={pct} labelFormatter={(l) => String(l).replace('\n', ' · ')} />
          {/* In the bars' order (recharts sorts the legend alphabetically by default). */}
          <Legend itemSorter={(item) => CONDITIONS.indexOf(String(item.dataKey))} />
          <Bar dataKey="unconstrained" fill={COLORS.unconstrained} isAnimationActive={false}>
            <ErrorBar dataKey="unconstrainedErr" width={4} stroke={COLORS.whisker} direction="y" />
          </Bar>
          {hasConstrained && (
            <Bar dataKey="constrained" fill={COLORS.constrained} isAnimationActive={false}>
              <ErrorBar dataKey="constrainedErr" width={4} stroke={COLORS.whisker} direction="y" />
            </Bar>
          )}
          {hasRepair && (
            <Bar dataKey="repair" fill={COLORS.repair} isAnimationActive={false}>
              <ErrorBar dataKey="repairErr" width={4} stroke={COLORS.whisker} direction="y" />
            </Bar>
          )}
        </BarChart>
      </ResponsiveContainer>
    </figure>
  );
}
