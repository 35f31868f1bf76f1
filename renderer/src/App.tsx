import { useEffect, useState } from 'react';
import { Filters } from './components/Filters.js';
import { ImportDialog } from './components/ImportDialog.js';
import { SampleDetail } from './components/SampleDetail.js';
import { SamplesTable } from './components/SamplesTable.js';
import { useWorkbench } from './store.js';

export function App(): React.JSX.Element {
  const datasets = useWorkbench((s) => s.datasets);
  const datasetId = useWorkbench((s) => s.datasetId);
  const selectDataset = useWorkbench((s) => s.selectDataset);
  const loadDatasets = useWorkbench((s) => s.loadDatasets);
  const error = useWorkbench((s) => s.error);
  const dismissError = useWorkbench((s) => s.dismissError);
  const hasDetail = useWorkbench((s) => s.selected !== undefined);
  const [importing, setImporting] = useState(false);
  useEffect(() => void loadDatasets(), [loadDatasets]);
  const current = datasets.find((d) => d.id === datasetId);
  return (
    <div className="app">
      <header className="topbar">
        <h1>WAPII Workbench</h1>
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
        <button onClick={() => setImporting(true)}>Import dataset…</button>
      </header>
      {error && (
        <div className="error" role="alert">
          {error}
          <button className="link" onClick={dismissError} aria-label="Dismiss">
            ✕
          </button>
        </div>
      )}
      <main className={hasDetail ? 'with-detail' : undefined}>
        <section className="list">
          <Filters />
          <SamplesTable />
        </section>
        <SampleDetail />
      </main>
      {importing && <ImportDialog onClose={() => setImporting(false)} />}
    </div>
  );
}
