import { useEffect, useState } from 'react';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { Output } from '../../../../main/api/contract.js';
import { FAILURE_CLASSES } from '../../../../main/api/constants.js';
import { getClient } from '../../client.js';
import { Loading } from '../../components/Empty.js';
import { percent, signedPoints } from '../../format.js';
import { Rate } from '../runs/Rate.js';
import { messageOf } from '../../notices.js';
import './conditions.css';

type Comparison = Output<'compareConditions'>;
type Row = Comparison['rows'][number];

/** Distinct colours for up to 16 failure classes, in taxonomy order (endpoint errors red, arguments amber, execution grey). */
const CLASS_COLORS = ['#b3261e', '#d9534f', '#8e24aa', '#ba68c8', '#a4560b', '#e39a3b', '#c0ca33', '#7cb342', '#00897b', '#26a69a', '#546e7a', '#6b6b76', '#90a4ae', '#3949ab', '#5c6bc0', '#8d6e63', '#6d4c41', '#c2185b'];
const ALL_CLASSES: readonly string[] = FAILURE_CLASSES;
const colorOf = (c: string): string => CLASS_COLORS[Math.max(0, ALL_CLASSES.indexOf(c))] ?? '#6b6b76';
const pct = (v: unknown): string => percent(typeof v === 'number' ? v / 100 : null);

/**
 * Runs of one dataset and model under different knowledge conditions: which piece of knowledge
 * fixes which failure. A table and two charts from compareConditions (the `wapii conditions` figures).
 */
export function ConditionComparison({ runIds }: { runIds: readonly number[] }): React.JSX.Element | null {
  const [result, setResult] = useState<Comparison | undefined>();
  const [error, setError] = useState<string | undefined>();
  const key = runIds.join(',');
  useEffect(() => {
    let live = true;
    setError(undefined);
    getClient()
      .compareConditions({ runIds: [...runIds] })
      .then(
        (r) => live && setResult(r),
        (e: unknown) => live && (setResult(undefined), setError(messageOf(e))),
      );
    return () => {
      live = false;
    };
    // `key` summarises runIds.
  }, [key]);
  if (error)
    return (
      <section className="conditions" data-testid="conditions">
        <h3>By knowledge condition</h3>
        <p className="error-inline">{error}</p>
      </section>
    );
  if (!result) return <Loading what="the conditions" />;
  const cells = new Set(result.rows.map((r) => `${r.setup}/${r.setting}`)).size > 1;
  const label = (r: Row): string => `${r.knowledge}${cells ? ` · ${r.setup ?? ''}/${r.setting ?? ''}` : ''}`;
  return (
    <section className="conditions" data-testid="conditions">
      <h3>
        By knowledge condition <span className="muted">— {result.model ?? 'remote'} on {result.dataset}; gain over the `none` run of the same setup and setting</span>
      </h3>
      <div className="table-scroll">
        <table className="grid numbers" data-testid="conditions-table">
          <thead>
            <tr>
              <th>run</th>
              <th>knowledge</th>
              {cells && <th>setup · setting</th>}
              <th>outputs</th>
              <th>correct (t)</th>
              <th>illegal (e)</th>
              <th>gain over none</th>
              {result.classes.map((c) => (
                <th key={c} title={c}>
                  {c.replace(/_/g, ' ')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.rows.map((r) => (
              <tr key={r.runId} data-run-id={r.runId}>
                <td>#{r.runId}</td>
                <td>{r.knowledge}</td>
                {cells && (
                  <td>
                    {r.setup} · {r.setting}
                  </td>
                )}
                <td>{r.outputs}</td>
                <td>{percent(r.correct)}</td>
                <td>
                  <Rate value={r.illegal} of={r.illegalOf} />
                </td>
                <td className={r.gain === null ? 'muted' : r.gain > 0 ? 'fixed' : r.gain < 0 ? 'regressed' : undefined}>{r.gain === null ? '–' : signedPoints(r.gain)}</td>
                {result.classes.map((c) => (
                  <td key={c}>{(r.failures as Record<string, number>)[c] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="results-grid">
        <figure className="chart" data-testid="chart-conditions">
          <figcaption>Correct (t) and illegal (e) per condition (the gain over none under each)</figcaption>
          <ResponsiveContainer width="100%" height={240}>
            <BarChart data={result.rows.map((r) => ({ name: `${label(r)}${r.gain === null ? '' : ` ${signedPoints(r.gain)}`}`, correct: r.correct * 100, illegal: r.illegalOf.n === 0 ? null : r.illegal * 100 }))} margin={{ top: 16, right: 8, left: 0, bottom: 0 }}>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey="name" interval={0} tick={{ fontSize: 11 }} />
              <YAxis unit="%" domain={[0, 100]} />
              <Tooltip formatter={pct} />
              <Legend />
              <Bar dataKey="correct" name="correct (t)" fill="var(--ok, #1f7a3d)" isAnimationActive={false} />
              <Bar dataKey="illegal" name="illegal (e)" fill="var(--bad, #b3261e)" isAnimationActive={false} />
            </BarChart>
          </ResponsiveContainer>
        </figure>
        <figure className="chart" data-testid="chart-condition-failures">
          <figcaption>Failure classes per condition (outputs carrying each)</figcaption>
          {result.classes.length === 0 ? (
            <p className="muted">No failures under any condition.</p>
          ) : (
            <ResponsiveContainer width="100%" height={240}>
              <BarChart data={result.rows.map((r) => ({ name: label(r), ...(r.failures as Record<string, number>) }))} margin={{ top: 16, right: 8, left: 0, bottom: 0 }}>
                <CartesianGrid strokeDasharray="3 3" vertical={false} />
                <XAxis dataKey="name" interval={0} tick={{ fontSize: 11 }} />
                <YAxis allowDecimals={false} />
                <Tooltip />
                <Legend formatter={(v: string) => v.replace(/_/g, ' ')} wrapperStyle={{ fontSize: 11 }} />
                {result.classes.map((c) => (
                  <Bar key={c} dataKey={c} stackId="failures" fill={colorOf(c)} isAnimationActive={false} />
                ))}
              </BarChart>
            </ResponsiveContainer>
          )}
        </figure>
      </div>
    </section>
  );
}
