import { useState } from 'react';
import type { FileInput } from '../../../../main/api/contract.js';
import { useDatasets } from './datasetsStore.js';

const readFiles = (list: FileList | null): Promise<FileInput[]> =>
  Promise.all([...(list ?? [])].map(async (f) => ({ filename: f.name, content: await f.text() })));

export function ImportDialog({ onClose }: { onClose: () => void }): React.JSX.Element {
  const importFiles = useDatasets((s) => s.importFiles);
  const progress = useDatasets((s) => s.progress);
  const loading = useDatasets((s) => s.loading);
  const [dataset, setDataset] = useState<FileInput | undefined>();
  const [specs, setSpecs] = useState<FileInput[]>([]);
  const [name, setName] = useState('');
  return (
    <div className="dialog-backdrop" role="dialog" aria-label="Import dataset">
      <div className="dialog">
        <h2>Import a dataset</h2>
        <p className="muted">A WAPIIBench dataset (the flat list, or a per-API file named after its API) and the OpenAPI specs its samples use, named <code>&lt;api&gt;.yaml</code> or <code>&lt;api&gt;.json</code>.</p>
        <label>
          Dataset (JSON)
          <input type="file" accept=".json,application/json" aria-label="Dataset file" onChange={async (e) => setDataset((await readFiles(e.target.files))[0])} />
        </label>
        <label>
          Specs (YAML or JSON, several)
          <input type="file" multiple accept=".yaml,.yml,.json" aria-label="Spec files" onChange={async (e) => setSpecs(await readFiles(e.target.files))} />
        </label>
        <label>
          Name (optional)
          <input type="text" aria-label="Dataset name" value={name} onChange={(e) => setName(e.target.value)} placeholder={dataset?.filename.replace(/\.json$/, '')} />
        </label>
        {progress && (
          <p className="progress">
            {progress.message} ({progress.done}/{progress.total})
          </p>
        )}
        <div className="row">
          <button
            disabled={!dataset || specs.length === 0 || loading}
            onClick={async () => {
              if (dataset && (await importFiles(dataset, specs, name.trim() || undefined))) onClose();
            }}
          >
            {loading ? 'Importing…' : 'Import'}
          </button>
          <button className="secondary" onClick={onClose}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
