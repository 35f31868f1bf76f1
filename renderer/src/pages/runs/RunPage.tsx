import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import type { RunDetail, RunSampleRow, RunSummary } from '../../api.js';
import { getClient } from '../../client.js';
import { addressShows } from '../../components/addressBar.js';
import { Empty, Loading } from '../../components/Empty.js';
import { ExportButtons } from '../../components/ExportButtons.js';
import { useShortcuts } from '../../components/shortcuts.js';
import { when } from '../../format.js';
import { FailureChart, FailureTable, GridChart, PerApiChart, VerdictChart, type GridCell } from './RunCharts.js';
import { RunProgress } from './RunProgress.js';
import { HeadlineTable, LocationTable } from './RunResults.js';
import { RunSamples } from './RunSamples.js';
import { RunActions } from './RunsPage.js';
import { useRunPage } from './runPageStore.js';
import { setupLabel, useRuns } from './runsStore.js';
import { SampleInspector } from './SampleInspector.js';
import { hasSteps, StepResults } from './StepResults.js';
import { runStatusText } from '../../../../main/api/constants.js';
import { pageWording } from './errorWording.js';

/** One run: its results (the paper's tables and charts) and its samples with the inspector. */
export function RunPage(): React.JSX.Element {
  const runId = Number(useParams()['runId']);
  const [search, setSearch] = useSearchParams();
  const tab = search.get('tab') === 'results' ? 'results' : 'samples';
  const navigate = useNavigate();
  const run = useRunPage((s) => (s.runId === runId ? s.run : undefined));
  const show = useRunPage((s) => s.show);
  const hasInspector = useRunPage((s) => s.open !== undefined);
  const version = useRuns((s) => s.version);
  const runs = useRuns((s) => s.runs);
  const [missing, setMissing] = useState(false);

  useEffect(() => {
    setMissing(false);
    void show(runId).then(() => setMissing(useRunPage.getState().run === undefined));
    if (useRuns.getState().runs.length === 0) void useRuns.getState().load();
  }, [runId, show]);
  // Follow a live run: refetch on its events, at most about once a second.
  const last = useRef(0);
  useEffect(() => {
    if (version === 0) return;
    const wait = Math.max(0, 1000 - (Date.now() - last.current));
    const t = setTimeout(() => {
      last.current = Date.now();
      void useRunPage.getState().refresh();
    }, wait);
    return () => clearTimeout(t);
  }, [version]);

  // The open sample lives in the URL (`?sample=12`, `12.1` for a second output), so a link or a reload keeps it.
  const open = useRunPage((s) => s.open);
  const wanted = search.get('sample');
  const loadedId = run?.id;
  useEffect(() => {
    if (loadedId === undefined || !wanted) return;
    const [index, attempt = 0] = wanted.split('.').map(Number);
    const current = useRunPage.getState().open;
    if (index !== undefined && Number.isInteger(index) && (!current || current.index !== index || current.attempt !== attempt)) void useRunPage.getState().openSample({ index, attempt });
  }, [loadedId, wanted]);
  useEffect(() => {
    if (loadedId === undefined) return;
    const now = useRunPage.getState().open;
    const text = now ? `${now.index}${now.attempt ? `.${now.attempt}` : ''}` : null;
    if (addressShows(`/runs/${runId}`) && text !== new URLSearchParams(window.location.hash.split('?')[1] ?? '').get('sample'))
      setSearch(
        (p) => {
          if (text === null) p.delete('sample');
          else p.set('sample', text);
          return p;
        },
        { replace: true },
      );
  }, [open, loadedId, runId, setSearch]);

  const setTab = (t: 'samples' | 'results'): void => setSearch((p) => (p.set('tab', t), p), { replace: true });
  useShortcuts('Run', [
    { keys: 'j', description: 'next sample', run: () => void useRunPage.getState().move(1) },
    { keys: 'k', description: 'previous sample', run: () => void useRunPage.getState().move(-1) },
    { keys: 'ArrowDown', description: 'next sample', run: () => void useRunPage.getState().move(1) },
    { keys: 'ArrowUp', description: 'previous sample', run: () => void useRunPage.getState().move(-1) },
    { keys: 'Escape', description: 'close the sample', run: () => void useRunPage.getState().openSample(undefined) },
    { keys: '/', description: 'search the samples', run: () => document.querySelector<HTMLInputElement>('.run-samples .search')?.focus() },
    { keys: 'r', description: 'results / samples', run: () => setTab(tab === 'results' ? 'samples' : 'results') },
  ]);

  if (missing && !run)
    return (
      <main className="page scroll">
        <Empty title={`There is no run ${runId}.`}>
          It may have been deleted; see the <Link to="/runs">runs</Link>.
        </Empty>
      </main>
    );
  if (!run)
    return (
      <main className="page scroll">
        <Loading what={`run ${runId}`} />
      </main>
    );
  const summary = runs.find((r) => r.id === runId) ?? run;
  const decoding = decodingOf(run.manifest);
  return (
    <main className={`page run-page${hasInspector && tab === 'samples' ? ' with-detail' : ''}`}>
      <section className="list">
        <div className="toolbar run-header">
          <h2 data-testid="run-title">
            Run {run.id} · {run.model ?? run.kind} · {setupLabel(run)}
            {run.knowledge && run.knowledge !== 'none' && <span data-testid="run-knowledge"> · knowledge: {run.knowledge}</span>}
          </h2>
          <span className={`status s-${summary.status}`} data-testid="run-status">
            {runStatusText(summary)}
          </span>
          <RunProgress run={summary} />
          <span className="spacer" />
          <RunActions run={summary} />
        </div>
        <div className="toolbar sub">
          <span className="muted">
            {run.dataset}
            {run.subset && Object.keys(run.subset).length > 0 && ` (subset: ${describeSubset(run.subset)})`} · {run.prompt ?? ''} prompt · {when(run.createdAt)}
            {decoding && (
              <span data-testid="run-decoding" title={decoding.line}>
                {' '}
                · {decoding.text}
              </span>
            )}
            {run.error && <span className={summary.status === 'cancelled' ? undefined : 'error-inline'}> · {pageWording(run.error)}</span>}
          </span>
          <span className="spacer" />
          <button className="secondary small" onClick={() => void navigate(`/compare?baseline=${run.id}`)}>
            Compare…
          </button>
          <ExportButtons runId={run.id} />
        </div>
        {run.datasetChanged && <DatasetChanged run={run} />}
        <div className="tabs" role="tablist">
          <button role="tab" aria-selected={tab === 'samples'} className={tab === 'samples' ? 'tab active' : 'tab'} onClick={() => setTab('samples')}>
            Samples
          </button>
          <button role="tab" aria-selected={tab === 'results'} className={tab === 'results' ? 'tab active' : 'tab'} onClick={() => setTab('results')} title="r">
            Results
          </button>
        </div>
        {tab === 'samples' ? (
          <RunSamples />
        ) : (
          <Results
            run={run}
            runs={runs}
            onFailure={(failure) => {
              void useRunPage.getState().setFilter({ failures: [failure] });
              setTab('samples');
            }}
          />
        )}
      </section>
      {tab === 'samples' && <SampleInspector />}
    </main>
  );
}

function describeSubset(subset: NonNullable<RunDetail['subset']>): string {
  const parts: string[] = [];
  if (subset.apis?.length) parts.push(subset.apis.join(', '));
  if (subset.reviewStates?.length) parts.push(subset.reviewStates.join(' + '));
  if (subset.sampleIds?.length) parts.push(`${subset.sampleIds.length} chosen samples`);
  if (subset.sample) parts.push(`random ${subset.sample.size} (seed ${subset.sample.seed}${subset.sample.stratify === 'api' ? ', per API' : ''})`);
  if (subset.limit) parts.push(`first ${subset.limit}`);
  return parts.join('; ');
}

function DatasetChanged({ run }: { run: RunDetail }): React.JSX.Element {
  const changes = run.datasetChanges;
  return (
    <div className="notice" role="status" data-testid="dataset-changed">
      The dataset has changed since this run took its samples: {changes.length} sample{changes.length === 1 ? '' : 's'} (
      {changes
        .slice(0, 8)
        .map((c) => `#${c.index} ${c.change}`)
        .join(', ')}
      {changes.length > 8 && ', …'}). The results here are for the samples as the run took them; queue a new run to measure the current ones.
    </div>
  );
}

function Results({ run, runs, onFailure }: { run: RunDetail; runs: readonly RunSummary[]; onFailure: (failure: RunSampleRow['failures'][number]) => void }): React.JSX.Element {
  const grid = useGrid(run, runs);
  if (!run.statistics)
    return <Empty title="No output stored yet.">The tables and charts appear as soon as the run stores its first scored output.</Empty>;
  return (
    <div className="results scroll">
      <div className="results-grid">
        <section className="wide" data-testid="results-headline">
          <h3>The paper's headline table</h3>
          <HeadlineTable run={run} />
        </section>
        {hasSteps(run.statistics) && (
          <section className="wide" data-testid="results-steps">
            <h3>Multi-step samples: task rate, step rate and where they first failed</h3>
            <StepResults run={run} />
          </section>
        )}
        <section data-testid="results-locations">
          <h3>Arguments per location</h3>
          <LocationTable statistics={run.statistics} />
        </section>
        <PerApiChart run={run} />
        <VerdictChart run={run} />
        <section data-testid="results-failures">
          <FailureChart run={run} onPick={onFailure} />
          <FailureTable run={run} />
        </section>
        {grid && <GridChart cells={grid} />}
      </div>
    </div>
  );
}

/**
 * The grid this run belongs to: runs of the same model, dataset and prompt in the other cells
 * (the latest of each); undefined unless one setup has an unconstrained run and a constrained or repair one.
 */
function useGrid(run: RunDetail, runs: readonly RunSummary[]): GridCell[] | undefined {
  const [cells, setCells] = useState<GridCell[] | undefined>();
  const siblings = runs.filter((r) => r.kind === run.kind && r.model === run.model && r.datasetId === run.datasetId && r.prompt === run.prompt && r.knowledge === run.knowledge && r.setup && r.setting && r.done > 0);
  const pick = (setup: string, setting: string): RunSummary | undefined => siblings.filter((r) => r.setup === setup && r.setting === setting).sort((a, b) => b.id - a.id)[0];
  const chosen = (['full', 'argument'] as const).map((setup) => ({ setup, u: pick(setup, 'unconstrained'), c: pick(setup, 'constrained'), r: pick(setup, 'repair') }));
  const key = chosen.map((c) => `${c.u?.id}/${c.u?.done}/${c.c?.id}/${c.c?.done}/${c.r?.id}/${c.r?.done}`).join(',');
  useEffect(() => {
    const pairs = chosen.filter((c) => c.u && (c.c || c.r));
    if (pairs.length === 0) return setCells(undefined);
    let live = true;
    const get = (r: RunSummary | undefined): Promise<RunDetail | undefined> => (r ? getClient().getRun({ runId: r.id }).catch(() => undefined) : Promise.resolve(undefined));
    // The gain of constrained decoding is tested on the samples both runs have (exact McNemar), as Compare does.
    const paired = (u: RunSummary, other: RunSummary | undefined): Promise<GridCell['paired']> =>
      other
        ? getClient()
            .compareRuns({ baselineId: u.id, runIds: [other.id], limit: 1 })
            .then((r) => r.paired[0])
            .catch(() => undefined)
        : Promise.resolve(undefined);
    void Promise.all(
      pairs.map(async (p) => ({ setup: p.setup, unconstrained: await get(p.u), constrained: await get(p.c), repair: await get(p.r), paired: await paired(p.u!, p.c), pairedRepair: await paired(p.u!, p.r) })),
    ).then((c) => live && setCells(c));
    return () => {
      live = false;
    };
    // `chosen` is summarised by `key`.
  }, [key]);
  return cells;
}

/**
 * Where a local model's run decoded and how many sequences at a time, from its manifest; the
 * full decoding line (with why) is the tooltip. Absent for imported codes and remote servers.
 */
function decodingOf(manifest: Record<string, unknown> | null): { text: string; line: string } | undefined {
  const line = manifest?.['decoding'];
  const parallel = manifest?.['parallel'];
  const backend = manifest?.['backend'];
  if (typeof line !== 'string' || typeof parallel !== 'number') return undefined;
  return { text: `${typeof backend === 'string' ? `${backend}, ` : ''}${parallel} sequence${parallel === 1 ? '' : 's'} at a time`, line };
}
