import { Fragment, useEffect, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { CompareResult, RunSampleDetail, RunSummary } from '../../api.js';
import { LOCATION_LABELS } from '../../api.js';
import { getClient } from '../../client.js';
import { Empty, Failed, Loading } from '../../components/Empty.js';
import { step, useShortcuts } from '../../components/shortcuts.js';
import { Verdict } from '../../components/Verdict.js';
import { json, signedPoints } from '../../format.js';
import { attempt } from '../../notices.js';
import { OverrideMark, Rate } from '../runs/Rate.js';
import { setupLabel, useRuns } from '../runs/runsStore.js';
import { ConditionComparison } from './ConditionComparison.js';
import { ArgumentCell, SideBySideHead, VerdictRow } from './SideBySide.js';
import { StepsSideBySide } from './StepsSideBySide.js';
import './compare.css';

type Row = CompareResult['rows'][number];
const runLabel = (r: RunSummary): string => `#${r.id} ${r.model ?? r.kind} · ${setupLabel(r)}${r.knowledge && r.knowledge !== 'none' ? ` · ${r.knowledge}` : ''}`;
/** A ratio reads as a percent and its delta in points; a count as a number. */
const isRatio = (key: string): boolean => key.includes('_wrt_');
const delta = (key: string, d: number | null): string => (d === null ? '–' : isRatio(key) ? signedPoints(d) : `${d > 0 ? '+' : d < 0 ? '−' : '±'}${Math.abs(d)}`);
type Paired = CompareResult['paired'][number];
/**
 * The paired test behind a metric's delta: the outcome whose statistic it is (`samples_correct` for
 * `samples_correct_wrt_total`, `urls_correct` for `urls_correct_wrt_executable`). An (e) metric's
 * test pairs the samples executable in both runs, a (t) metric's every shared sample.
 */
const pairedFor = (key: string, result: CompareResult, i: number): { name: string; test: Paired[keyof Paired]; over: string } | undefined => {
  const paired = result.paired[i];
  const name = (Object.keys(result.pairedStatistics) as (keyof Paired)[]).find((n) => result.pairedStatistics[n] === key);
  const test = name && paired?.[name];
  if (!name || !test) return undefined;
  return { name, test, over: key.endsWith('_wrt_executable') ? 'executable in both runs' : 'shared' };
};
type Candidate = NonNullable<CompareResult['candidates']>[number];
/** Lower is better for these metrics, so a rise is a regression. */
const lowerIsBetter = (key: string): boolean => /illegal|wrong|error|nonexecutable|missing|unnecessary/.test(key);

/** A baseline and one or more runs: metric deltas with their paired tests, samples aligned by identity, one sample's requests side by side. */
export function ComparePage(): React.JSX.Element {
  const [search, setSearch] = useSearchParams();
  const runs = useRuns((s) => s.runs);
  const loaded = useRuns((s) => s.loaded);
  const failed = useRuns((s) => s.failed);
  const baselineId = Number(search.get('baseline')) || undefined;
  const runsParam = search.get('runs') ?? '';
  // The ticked runs show a click at once: the URL follows (a history entry), and a URL changed from
  // outside (back, a pasted link) resets them. Controlled by the URL alone, a checkbox kept its old
  // state until the navigation committed, and a click in that moment was lost.
  const [ticked, setTicked] = useState(runsParam);
  useEffect(() => setTicked(runsParam), [runsParam]);
  const runIds = ticked.split(',').map(Number).filter((n) => n > 0 && n !== baselineId);
  const [candidates, setCandidates] = useState<{ baselineId: number; list: Candidate[] } | undefined>();
  // "Changed only" shows its click at once too, as the ticked runs do; the URL follows.
  const changedParam = search.get('changed') === '1';
  const [changedOnly, setChangedOnly] = useState(changedParam);
  useEffect(() => setChangedOnly(changedParam), [changedParam]);
  const [result, setResult] = useState<CompareResult | undefined>();
  const [loading, setLoading] = useState(false);
  // The open sample lives in the URL too (`&sample=12`, the baseline's index), so a reload or a
  // pasted link opens it again. Opening or closing one is a history entry (back closes what a
  // click opened); j/k replace it, so back does not replay every step through the list.
  const wanted = Number(search.get('sample') ?? NaN);
  const index = Number.isInteger(wanted) && wanted >= 0 ? wanted : undefined;
  const setIndex = (next: number | undefined, how: 'push' | 'replace' = 'push'): void => {
    if (next !== index) update({ sample: next === undefined ? undefined : String(next) }, how);
  };

  useEffect(() => void useRuns.getState().load(), []);
  const runCount = useRuns((s) => s.runs.filter((r) => r.done > 0).length);
  // How many samples each run shares with the baseline, so the picker offers those first and greys out the rest.
  useEffect(() => {
    if (!baselineId) return setCandidates(undefined);
    let live = true;
    void getClient()
      .compareRuns({ baselineId, runIds: [], candidates: true, limit: 1 })
      .then((r) => live && setCandidates({ baselineId, list: r.candidates ?? [] }))
      .catch(() => live && setCandidates(undefined));
    return () => {
      live = false;
    };
  }, [baselineId, runCount]);
  const key = `${baselineId}|${runIds.join(',')}|${changedOnly}`;
  useEffect(() => {
    if (!baselineId || runIds.length === 0) return setResult(undefined);
    setLoading(true);
    void attempt(() => getClient().compareRuns({ baselineId, runIds, changedOnly, limit: 100_000 })).then((r) => {
      setResult(r);
      setLoading(false);
    });
    // `key` summarises the inputs.
  }, [key]);

  // The page's choices live in the URL (the baseline, the runs, "changed only", the open sample).
  const update = (patch: Record<string, string | undefined>, how: 'push' | 'replace' = 'push'): void => {
    if ('runs' in patch) setTicked(patch['runs'] ?? '');
    setSearch(
      (current) => {
        const p = new URLSearchParams(current);
        for (const [k, v] of Object.entries(patch)) if (v === undefined || v === '') p.delete(k);
        else p.set(k, v);
        return p;
      },
      { replace: how === 'replace' },
    );
  };
  const rows = result?.rows ?? [];
  // Runs that differ by knowledge condition get the by-condition view (gain over none, failure classes) above the metrics.
  const byCondition = new Set(runs.filter((r) => r.id === baselineId || runIds.includes(r.id)).map((r) => r.knowledge ?? 'none')).size > 1;
  useEffect(() => {
    if (index !== undefined) document.querySelector(`[data-testid=compare-rows] tr[data-index="${index}"]`)?.scrollIntoView({ block: 'nearest' });
    // `result`: a sample opened from the URL is scrolled to once the rows have loaded.
  }, [index, result]);
  useShortcuts('Compare', [
    { keys: 'j', description: 'next sample', run: () => setIndex(step(rows.map((r) => r.index), index, 1), index === undefined ? 'push' : 'replace') },
    { keys: 'k', description: 'previous sample', run: () => setIndex(step(rows.map((r) => r.index), index, -1), index === undefined ? 'push' : 'replace') },
    {
      keys: 'c',
      description: 'changed only',
      run: () => {
        setChangedOnly(!changedOnly);
        update({ changed: changedOnly ? undefined : '1' });
      },
    },
    { keys: 'Escape', description: 'close the sample', run: () => setIndex(undefined) },
  ]);

  if (!loaded)
    return <main className="page scroll">{failed ? <Failed what="the runs" retry={() => void useRuns.getState().load()} /> : <Loading what="runs" />}</main>;
  const finished = runs.filter((r) => r.done > 0);
  if (finished.length < 2)
    return (
      <main className="page scroll">
        <Empty title="Comparing needs two runs with outputs.">
          Queue runs from <Link to="/runs/new">New run</Link> — the paper's grid gives four to compare.
        </Empty>
      </main>
    );
  return (
    <main className={`page compare${index !== undefined ? ' with-detail' : ''}`}>
      <section className="list">
        <div className="toolbar">
          <h2>Compare</h2>
          <label>
            Baseline
            <select aria-label="Baseline run" value={baselineId ?? ''} onChange={(e) => update({ baseline: e.target.value, runs: runIds.filter((id) => id !== Number(e.target.value)).join(','), sample: undefined })}>
              <option value="">choose…</option>
              {finished.map((r) => (
                <option key={r.id} value={r.id}>
                  {runLabel(r)}
                </option>
              ))}
            </select>
          </label>
          <div className="choices" role="group" aria-label="Runs to compare">
            {offered(finished, baselineId, candidates && candidates.baselineId === baselineId ? candidates.list : undefined).map(({ run: r, shared }) => {
              const none = shared === 0 && !runIds.includes(r.id);
              return (
                <label key={r.id} className={`check${none ? ' no-shared' : ''}`} title={shared === undefined ? undefined : shared === 0 ? `shares no sample with run ${baselineId}: nothing to pair` : `${shared} sample${shared === 1 ? '' : 's'} shared with run ${baselineId}`}>
                  <input type="checkbox" disabled={none} checked={runIds.includes(r.id)} onChange={(e) => update({ runs: (e.target.checked ? [...runIds, r.id] : runIds.filter((x) => x !== r.id)).join(',') })} />
                  {runLabel(r)}
                  {shared !== undefined && <span className="shared muted"> · {shared === 0 ? 'no shared samples' : `${shared} shared`}</span>}
                </label>
              );
            })}
          </div>
        </div>
        {!baselineId || runIds.length === 0 ? (
          <Empty title="Choose a baseline and at least one run to compare with it." />
        ) : !result ? (
          loading ? <Loading what="the comparison" /> : null
        ) : (
          <div className="scroll compare-body">
            {byCondition && <ConditionComparison runIds={[baselineId, ...runIds]} />}
            <AlignmentNote result={result} />
            <Metrics result={result} />
            <div className="filters">
              <label className="check">
                <input
                  type="checkbox"
                  aria-label="Changed only"
                  checked={changedOnly}
                  onChange={(e) => {
                    setChangedOnly(e.target.checked);
                    update({ changed: e.target.checked ? '1' : undefined });
                  }}
                /> changed only (c)
              </label>
              {result.runs.map((r, i) => (
                <span key={r.id} className="muted">
                  #{r.id}: <span className="fixed">{result.counts[i]?.fixed} fixed</span> · <span className="regressed">{result.counts[i]?.regressed} regressed</span> · {result.counts[i]?.changed} changed · {result.counts[i]?.same} same
                </span>
              ))}
              <span className="count" data-testid="compare-count">
                {result.total} sample{result.total === 1 ? '' : 's'}
              </span>
            </div>
            <AlignedSamples result={result} selected={index} onSelect={setIndex} />
          </div>
        )}
      </section>
      {index !== undefined && result && <RequestsSideBySide key={index} index={index} indexes={rows.find((r) => r.index === index)?.indexes} result={result} onClose={() => setIndex(undefined)} />}
    </main>
  );
}

function Metrics({ result }: { result: CompareResult }): React.JSX.Element {
  return (
    <table className="grid numbers metrics" data-testid="compare-metrics">
      <thead>
        <tr>
          <th>metric</th>
          <th>
            baseline #{result.baseline.id}
            <OverrideMark count={result.baseline.overridden} />
          </th>
          {result.runs.map((r) => (
            <th key={r.id} colSpan={2}>
              #{r.id} {setupLabel(r)}
              <OverrideMark count={r.overridden} />
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {result.metrics.map((m) => (
          <tr key={m.key}>
            <th title={m.key}>{m.label}</th>
            <td>{isRatio(m.key) ? <Rate value={m.baseline} of={m.of[0]} interval={m.intervals[0]} /> : (m.baseline ?? '–')}</td>
            {m.values.map((v, i) => {
              const d = m.deltas[i] ?? null;
              const better = d !== null && (lowerIsBetter(m.key) ? d < 0 : d > 0);
              const paired = pairedFor(m.key, result, i);
              const significant = paired !== undefined && paired.test.p_value < 0.05;
              const discordant = paired ? paired.test.a_only + paired.test.b_only : 0;
              const pairs = paired ? paired.test.both + paired.test.a_only + paired.test.b_only + paired.test.neither : 0;
              return [
                <td key={`v${i}`}>{isRatio(m.key) ? <Rate value={v} of={m.of[i + 1]} interval={m.intervals[i + 1]} /> : (v ?? '–')}</td>,
                <td
                  key={`d${i}`}
                  className={d === null || d === 0 ? 'muted' : better ? 'fixed' : 'regressed'}
                  data-significant={paired ? String(significant) : undefined}
                  title={
                    paired
                      ? `${paired.name}: exact McNemar p = ${paired.test.p_value.toPrecision(3)} on the ${pairs} samples ${paired.over}; ${discordant} discordant (${paired.test.a_only} only the baseline, ${paired.test.b_only} only #${result.runs[i]!.id})${significant ? '; significant at 0.05' : '; not significant at 0.05'}`
                      : undefined
                  }
                >
                  {delta(m.key, d)}
                  {significant && <span className="sig">*</span>}
                  {paired && (
                    <span className="discordant" data-testid="discordant">
                      {pairs === 0 ? `(no sample ${paired.over})` : `(${discordant} disc. of ${pairs}${paired.over === 'shared' ? '' : ' exec.'})`}
                    </span>
                  )}
                </td>,
              ];
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** How the runs' samples were paired, and what each lacks; the significance legend. */
function AlignmentNote({ result }: { result: CompareResult }): React.JSX.Element {
  return (
    <p className="muted alignment-note" data-testid="compare-alignment">
      Samples paired by {result.alignment.by}
      {result.runs.map((r, i) => {
        const a = result.alignment.runs[i]!;
        return (
          <span key={r.id}>
            {' '}
            · #{r.id}: {a.common} shared{a.runLacks > 0 && `, lacks ${a.runLacks} of the baseline's`}
            {a.baselineLacks > 0 && `, has ${a.baselineLacks} the baseline lacks`}
          </span>
        );
      })}
      . * : the paired difference is significant at 0.05 (exact McNemar; disc. of n = samples where the runs disagree, of the n shared, or for the (e) metrics of the n executable in both runs: exec.). [ ] : the 95% interval.
      {(result.baseline.overridden > 0 || result.runs.some((r) => r.overridden > 0)) && (
        <>
          {' '}
          <OverrideMark count={1} /> marks verdicts a reviewer overrode.
        </>
      )}
    </p>
  );
}

function AlignedSamples({ result, selected, onSelect }: { result: CompareResult; selected: number | undefined; onSelect: (i: number) => void }): React.JSX.Element {
  if (result.rows.length === 0) return <Empty title="No sample changed verdict." />;
  return (
    <table className="samples aligned" data-testid="compare-rows">
      <thead>
        <tr>
          <th style={{ width: 50 }}>#</th>
          <th style={{ width: 90 }}>API</th>
          <th>Task</th>
          <th style={{ width: 170 }}>baseline #{result.baseline.id}</th>
          {result.runs.map((r) => (
            <th key={r.id} style={{ width: 240 }}>
              #{r.id}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {result.rows.map((row: Row) => (
          <Fragment key={row.indexes.join('/')}>
            <tr className={`${row.changes.includes('regressed') ? 'regressed' : row.changes.includes('fixed') ? 'fixed' : ''}${row.index === selected ? ' selected' : ''}`} onClick={() => onSelect(row.index)} data-index={row.index}>
              <td>{row.index}</td>
              <td>{row.api}</td>
              <td title={row.task}>{row.task}</td>
              <td>
                <Verdict value={row.baseline} />
                {row.overridden[0] && <OverrideMark count={1} />}
              </td>
              {row.others.map((o, i) => (
                <td key={i} className={`change-${row.changes[i]}`}>
                  <Verdict value={o} />
                  {row.overridden[i + 1] && <OverrideMark count={1} />} {row.changes[i] !== 'same' && <span className="change">{row.changes[i]}</span>}
                </td>
              ))}
            </tr>
            {/* A multi-step sample: each step's verdict in every run, under the sample's. */}
            {row.steps?.map((s) => (
              <tr key={`step${s.step}`} className={`step-row${row.index === selected ? ' selected' : ''}`} onClick={() => onSelect(row.index)} data-index={row.index} data-step={s.step}>
                <td />
                <td />
                <td className="step-label" title={`step ${s.step}: ${s.endpoint}`}>
                  <span className="muted">step {s.step}</span> <code>{s.endpoint}</code>
                </td>
                <td>
                  <Verdict value={s.verdicts[0]} />
                </td>
                {s.verdicts.slice(1).map((v, i) => (
                  <td key={i} className={`change-${s.changes[i]}`}>
                    <Verdict value={v} /> {s.changes[i] !== 'same' && s.changes[i] !== 'absent' && <span className="change">{s.changes[i]}</span>}
                  </td>
                ))}
              </tr>
            ))}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

/** One sample's captured requests from every run, beside the expected one, argument by argument (a multi-step sample's step by step). */
function RequestsSideBySide({ index, indexes, result, onClose }: { index: number; indexes: readonly (number | null)[] | undefined; result: CompareResult; onClose: () => void }): React.JSX.Element {
  const all = useMemo(() => [result.baseline, ...result.runs], [result]);
  const [details, setDetails] = useState<(RunSampleDetail | undefined)[] | undefined>();
  const where = (indexes ?? all.map(() => index)).join(',');
  useEffect(() => {
    let live = true;
    // Each run holds the sample at its own index (runs of different datasets number samples differently); null: it lacks the sample.
    const at = where.split(',').map((x) => (x === '' ? null : Number(x)));
    void Promise.all(all.map((r, i) => (at[i] === null || at[i] === undefined ? Promise.resolve(undefined) : getClient().getRunSample({ runId: r.id, index: at[i] }).catch(() => undefined)))).then((d) => live && setDetails(d));
    return () => {
      live = false;
    };
  }, [all, where]);
  const first = details?.find((d) => d !== undefined);
  const keys = new Map<string, { location: string; key: string; expected: unknown }>();
  for (const d of details ?? []) for (const a of d?.arguments ?? []) if (!keys.has(`${a.location}.${a.key}`)) keys.set(`${a.location}.${a.key}`, { location: a.location, key: a.key, expected: a.expected });
  return (
    <aside className="detail" data-testid="compare-sample">
      <header>
        <h2>#{index}</h2>
        <button className="link" onClick={onClose} aria-label="Close sample">
          ✕
        </button>
      </header>
      {!details ? (
        <Loading what={`sample ${index}`} />
      ) : (
        <>
          <p className="task">{first?.task}</p>
          {details.some((d) => d?.timeline) ? (
            <StepsSideBySide runs={all} details={details} />
          ) : (
            <table className="grid side-by-side">
              <SideBySideHead runs={all} />
              <tbody>
                <VerdictRow details={details} />
                <tr>
                  <th>request</th>
                  <td>
                    <code>
                      {first?.expected.method.toUpperCase()} {first?.expected.url}
                    </code>
                  </td>
                  {details.map((d, i) => (
                    <td key={i} className={`part-${d?.endpoint_verdict ?? 'none'}`}>
                      {d?.request ? (
                        <code>
                          {d.request.method.toUpperCase()} {d.request.url}
                        </code>
                      ) : (
                        <span className="muted">none</span>
                      )}
                    </td>
                  ))}
                </tr>
                {[...keys.values()].map((k) => (
                  <tr key={`${k.location}.${k.key}`}>
                    <th>
                      <span className="muted">{LOCATION_LABELS[k.location] ?? k.location}</span> <code>{k.key}</code>
                    </th>
                    <td>
                      <code>{k.expected === null ? '' : json(k.expected)}</code>
                    </td>
                    {details.map((d, i) => (
                      <ArgumentCell key={i} argument={d?.arguments.find((x) => x.location === k.location && x.key === k.key)} />
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p className="muted">
            Open in a run: {all.map((r) => <Link key={r.id} to={`/runs/${r.id}`}>#{r.id} </Link>)}
          </p>
        </>
      )}
    </aside>
  );
}

/**
 * The runs the picker offers besides the baseline: those sharing samples with it first (most
 * first), then those sharing none (greyed out: comparing them is refused). Before the counts have
 * come, every run in the list's order, with no count.
 */
function offered(finished: readonly RunSummary[], baselineId: number | undefined, candidates: readonly Candidate[] | undefined): { run: RunSummary; shared: number | undefined }[] {
  const others = finished.filter((r) => r.id !== baselineId);
  if (!candidates) return others.map((run) => ({ run, shared: undefined }));
  const shared = new Map(candidates.map((c) => [c.runId, c.shared]));
  const rank = (r: RunSummary): number => (shared.has(r.id) ? candidates.findIndex((c) => c.runId === r.id) : candidates.length);
  return [...others].sort((a, b) => rank(a) - rank(b)).map((run) => ({ run, shared: shared.get(run.id) }));
}
