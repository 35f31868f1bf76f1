import { useState } from 'react';
import type { FileInput, Output } from '../../../../main/api/contract.js';
import { useDatasets } from './datasetsStore.js';

const readFiles = (list: FileList | null): Promise<FileInput[]> =>
  Promise.all([...(list ?? [])].map(async (f) => ({ filename: f.name, content: await f.text() })));

/** What an import changed in its specs, one line each; empty when it stored them as given. */
function importNotes(summary: Output<'importDataset'>, server: string): string[] {
  return [
    ...(summary.brokenRefs ?? []).map((b) => `API ${b.api}: broken $ref "${b.ref}" (${b.uses} use${b.uses === 1 ? '' : 's'}) imported as any value`),
    ...(summary.serverFor ?? []).map((api) => `API ${api}: its spec declares no server; using ${server}`),
  ];
}

export function ImportDialog({ onClose }: { onClose: () => void }): React.JSX.Element {
  const importFiles = useDatasets((s) => s.importFiles);
  const progress = useDatasets((s) => s.progress);
  const loading = useDatasets((s) => s.loading);
  const [dataset, setDataset] = useState<FileInput | undefined>();
  const [specs, setSpecs] = useState<FileInput[]>([]);
  const [name, setName] = useState('');
  const [lenientRefs, setLenientRefs] = useState(false);
  const [server, setServer] = useState('');
  // Shown after an import that changed its specs (broken references, a given server), before the dialog closes.
  const [notes, setNotes] = useState<string[] | undefined>();
  if (notes) {
    return (
      <div className="dialog-backdrop" role="dialog" aria-label="Import dataset">
        <div className="dialog">
          <h2>Imported</h2>
          <ul aria-label="Import notes">
            {notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
          <div className="row">
            <button onClick={onClose}>Close</button>
          </div>
        </div>
      </div>
    );
  }
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
        <label>
          Server for a spec that declares none (optional)
          <input type="url" aria-label="Server URL" value={server} onChange={(e) => setServer(e.target.value)} placeholder="https://api.example.com/v1" />
        </label>
        <label className="checkbox">
          <input type="checkbox" aria-label="Lenient references" checked={lenientRefs} onChange={(e) => setLenientRefs(e.target.checked)} />
          Import a spec whose <code>$ref</code>s point at nothing, each as any value (default: refuse it)
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
              if (!dataset) return;
              const given = server.trim();
              const summary = await importFiles(dataset, specs, name.trim() || undefined, { ...(lenientRefs ? { lenientRefs: true } : {}), ...(given ? { server: given } : {}) });
              if (!summary) return;
              const lines = importNotes(summary, given);
              if (lines.length > 0) setNotes(lines);
              else onClose();
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
