import { useEffect, useState } from 'react';
import { step, useShortcuts } from '../../components/shortcuts.js';
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
  useEffect(() => void loadDatasets(), [loadDatasets]);
  useShortcuts('Datasets', [
    { keys: 'j', description: 'next sample', run: () => move(1) },
    { keys: 'k', description: 'previous sample', run: () => move(-1) },
    { keys: 'ArrowDown', description: 'next sample', run: () => move(1) },
    { keys: 'ArrowUp', description: 'previous sample', run: () => move(-1) },
    { keys: 'Escape', description: 'close the sample', run: () => void useDatasets.getState().openSample(undefined) },
    { keys: '/', description: 'search', run: () => document.querySelector<HTMLInputElement>('.filters .search')?.focus() },
    { keys: 'i', description: 'import a dataset', run: () => setImporting(true) },
    { keys: 's', description: 'show or hide coverage and synthesis', run: () => setCoverage((c) => !c) },
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
              {current.apis.length} APIs · {current.flaggedCount} flagged by checks
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
