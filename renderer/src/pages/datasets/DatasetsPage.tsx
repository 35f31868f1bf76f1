import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { ReviewState, SampleFilter } from '../../../../main/api/schemas.js';
import { addressShows } from '../../components/addressBar.js';
import { step, useShortcuts } from '../../components/shortcuts.js';
import { counted } from '../../format.js';
import { useDatasets } from './datasetsStore.js';
import { CoveragePanel } from './CoveragePanel.js';
import { Filters } from './Filters.js';
import { ImportDialog } from './ImportDialog.js';
import { SampleDetail } from './SampleDetail.js';
import { SamplesTable } from './SamplesTable.js';

/** Curate a dataset: pick one, filter its samples, open one to read its check findings, fix and review it. */
export function DatasetsPage(): React.JSX.Element {
  const datasets = useDatasets((s) => s.datasets);
  const datasetId = useDatasets((s) => s.datasetId);
  const selectDataset = useDatasets((s) => s.selectDataset);
  const loadDatasets = useDatasets((s) => s.loadDatasets);
  const hasDetail = useDatasets((s) => s.selected !== undefined);
  const [importing, setImporting] = useState(false);
  const [coverage, setCoverage] = useState(false);
  useDatasetsUrl(loadDatasets);
  useShortcuts('Datasets', [
    { keys: 'j', description: 'next sample', run: () => move(1) },
    { keys: 'k', description: 'previous sample', run: () => move(-1) },
    { keys: 'ArrowDown', description: 'next sample', run: () => move(1) },
    { keys: 'ArrowUp', description: 'previous sample', run: () => move(-1) },
    { keys: 'Escape', description: 'close the sample', run: () => void useDatasets.getState().openSample(undefined) },
    { keys: '/', description: 'search', run: () => document.querySelector<HTMLInputElement>('.filters .search')?.focus() },
    { keys: 'i', description: 'import a dataset', run: () => setImporting(true) },
    { keys: 's', description: 'show or hide coverage and synthesis', run: () => setCoverage((c) => !c) },
    // Review's decisions on the open sample, then on to the next (as on the Review page).
    { keys: 'a', description: 'accept the open sample and go to the next', run: () => void decide('accepted') },
    { keys: 'r', description: 'reject the open sample and go to the next', run: () => void decide('rejected') },
    { keys: 'u', description: 'undo the open sample\'s last edit', run: () => void useDatasets.getState().undo() },
  ]);
  const current = datasets.find((d) => d.id === datasetId);
  return (
    <main className={hasDetail || coverage ? 'page with-detail' : 'page'}>
      <section className="list">
        <div className="toolbar">
          <select aria-label="Dataset" value={datasetId ?? ''} onChange={(e) => void selectDataset(Number(e.target.value))}>
            {datasets.length === 0 && <option value="">no dataset</option>}
            {datasets.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name} — {d.sampleCount} samples
              </option>
            ))}
          </select>
          {current && (
            <span className="muted" data-testid="dataset-summary">
              {counted(current.apis.length, 'API')} · {current.flaggedCount} flagged by checks
            </span>
          )}
          <span className="spacer" />
          <button className="secondary" onClick={() => setCoverage((c) => !c)} title="s" aria-pressed={coverage}>
            Coverage and synthesis
          </button>
          <button onClick={() => setImporting(true)} title="i">
            Import dataset…
          </button>
        </div>
        <Filters />
        <SamplesTable />
      </section>
      {coverage && datasetId !== undefined ? <CoveragePanel datasetId={datasetId} onClose={() => setCoverage(false)} /> : <SampleDetail />}
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
    </main>
  );
}

function move(by: 1 | -1): void {
  const { samples, selected, openSample } = useDatasets.getState();
  const next = step(
    samples.map((s) => s.id),
    selected?.sample.id,
    by,
  );
  if (next) void openSample(next);
  requestAnimationFrame(() => document.querySelector('tr.selected')?.scrollIntoView({ block: 'nearest' }));
}

async function decide(state: ReviewState): Promise<void> {
  const { selected, review, samples } = useDatasets.getState();
  if (!selected) return;
  // The next sample as the list stands now: under a filter the decision may take this one out of it.
  const next = step(
    samples.map((x) => x.id),
    selected.sample.id,
    1,
  );
  await review(state, `marked ${state}`);
  // Refused (changed meanwhile): stay on the sample, which now shows the newer version.
  if (useDatasets.getState().stale !== undefined) return;
  if (next && next !== selected.sample.id) void useDatasets.getState().openSample(next);
  requestAnimationFrame(() => document.querySelector('tr.selected')?.scrollIntoView({ block: 'nearest' }));
}

const FILTER_KEYS = ['api', 'method', 'reviewState', 'checkStatus', 'text', 'endpoint', 'requests'] as const satisfies readonly (keyof SampleFilter)[];

/**
 * The dataset, its filters and the open sample live in the URL (`#/datasets?dataset=2&api=slack&sample=…`):
 * a reload, a shared link or a link followed in the same tab (only the hash changes, so the page
 * stays mounted) opens the same view. The URL is applied when it changes from outside, and written
 * (replacing the history entry) as the store changes once the URL in the bar has been applied.
 */
function useDatasetsUrl(loadDatasets: () => Promise<void>): void {
  const [params, setParams] = useSearchParams();
  const key = params.toString();
  /** The URL text the store now shows: the last one applied or written. Undefined until the first is applied. */
  const [inStore, setInStore] = useState<string | undefined>();
  useEffect(() => {
    if (inStore === key) return; // the store's own write, or applied already
    let current = true;
    void (async () => {
      const dataset = Number(params.get('dataset'));
      const filter: SampleFilter = {};
      for (const name of FILTER_KEYS) {
        const value = params.get(name);
        if (value) (filter as Record<string, string>)[name] = value;
      }
      if (Number.isInteger(dataset) && dataset > 0) useDatasets.setState({ datasetId: dataset, filter });
      await loadDatasets();
      const state = useDatasets.getState();
      // The dataset asked for exists: its samples with the URL's filters (else loadDatasets chose the newest).
      if (state.datasetId === dataset) await state.setFilter({});
      const sample = params.get('sample');
      if (sample && useDatasets.getState().datasetId === dataset) await useDatasets.getState().openSample(sample);
      // A link to a dataset without a sample closes the open one; the bare page (a nav link) keeps it.
      else if (params.has('dataset')) await useDatasets.getState().openSample(undefined);
      if (current) setInStore(key);
    })();
    return () => {
      current = false;
    };
    // Only a change of the URL applies it; the store's changes flow into the URL below.
  }, [key]);
  const datasetId = useDatasets((s) => s.datasetId);
  const filter = useDatasets((s) => s.filter);
  const sampleId = useDatasets((s) => s.selected?.sample.id);
  useEffect(() => {
    if (inStore === undefined || inStore !== key) return; // a URL from outside is being applied
    const next = new URLSearchParams();
    if (datasetId !== undefined) next.set('dataset', String(datasetId));
    for (const name of FILTER_KEYS) if (filter[name]) next.set(name, String(filter[name]));
    if (sampleId) next.set('sample', sampleId);
    if (next.toString() === key || !addressShows('/datasets')) return;
    setInStore(next.toString());
    setParams(next, { replace: true });
  }, [inStore, key, datasetId, filter, sampleId, setParams]);
}
