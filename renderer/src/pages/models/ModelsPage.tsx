import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { Download, DownloadProgressEvent, Model } from '../../api.js';
import { getClient, modelFilePicker } from '../../client.js';
import { Empty, Failed, Loading } from '../../components/Empty.js';
import { bytes, when } from '../../format.js';
import { act as userAction, attempt } from '../../notices.js';

/** The model library: what each GGUF is and whether it fits; add by path, scan the models folder, download. */
export function ModelsPage(): React.JSX.Element {
  const client = getClient();
  const [models, setModels] = useState<Model[] | undefined>();
  const [downloads, setDownloads] = useState<Download[]>([]);
  const [path, setPath] = useState('');
  const [source, setSource] = useState('');
  const [busy, setBusy] = useState<string | undefined>();
  const [note, setNote] = useState<string | undefined>();
  const [failed, setFailed] = useState(false);
  const [folder, setFolder] = useState<{ folder: string; files: { path: string; name: string; sizeBytes: number; inLibrary: boolean }[] } | undefined>();
  const [picked, setPicked] = useState('');
  const pickFile = modelFilePicker();
  // A download that fails at once (a 404) sends its last event before downloadModel has answered
  // with its row; the row then applies the latest event it missed instead of reading "downloading" forever.
  // Each event is numbered, so a row only takes events that came after its request was sent.
  const latest = useRef({ count: 0, events: new Map<string, { n: number; event: DownloadProgressEvent }>() });

  const load = useCallback(async () => {
    const [m, d] = await Promise.all([attempt(() => client.listModels({})), attempt(() => client.listDownloads({}))]);
    if (m) setModels(m);
    setFailed(!m);
    if (d) setDownloads(d);
    // The models folder may not exist yet: then there is simply nothing to pick from.
    setFolder(await client.listModelFiles({}).catch(() => undefined));
  }, [client]);
  useEffect(() => {
    void load();
    return client.onEvent((e) => {
      if (e.type === 'modelsChanged') void load();
      if (e.type === 'downloadProgress') {
        latest.current.events.set(e.downloadId, { n: ++latest.current.count, event: e });
        setDownloads((list) => list.map((d) => (d.id === e.downloadId ? withProgress(d, e) : d)));
      }
    });
  }, [client, load]);

  // Adding and scanning go through userAction: a success clears an earlier failure's banner, which beside "Added m." read as this one's.
  const act = async (what: string, fn: () => Promise<void>): Promise<void> => {
    setBusy(what);
    setNote(undefined);
    await fn();
    setBusy(undefined);
  };
  const add = (): Promise<void> =>
    act('add', async () => {
      const m = await userAction(() => client.addModel({ path: path.trim() }));
      if (m) {
        setPath('');
        setNote(`Added ${m.name}.`);
        await load();
      }
    });
  const addPicked = (): Promise<void> =>
    act('pick', async () => {
      const m = await userAction(() => client.addModel({ path: picked }));
      if (m) {
        setPicked('');
        setNote(`Added ${m.name}.`);
        await load();
      }
    });
  const browse = async (): Promise<void> => {
    const chosen = await pickFile?.();
    if (chosen) setPath(chosen);
  };
  const scan = (): Promise<void> =>
    act('scan', async () => {
      const r = await userAction(() => client.scanModels({}));
      if (r) {
        setNote(`${r.folder}: ${r.added.length} added${r.skipped.length ? `, ${r.skipped.length} skipped (${r.skipped.map((s) => `${s.path.split('/').pop()}: ${s.reason}`).join('; ')})` : ''}.`);
        await load();
      }
    });
  const download = (): Promise<void> =>
    act('download', async () => {
      const sentAt = latest.current.count;
      const d = await attempt(() => client.downloadModel({ source: source.trim() }));
      if (d) {
        setSource('');
        const missed = latest.current.events.get(d.id);
        const row = missed && missed.n > sentAt ? withProgress(d, missed.event) : d;
        setDownloads((list) => [row, ...list.filter((x) => x.id !== row.id)]);
      }
    });

  return (
    <main className="page scroll">
      <div className="toolbar">
        <h2>Models</h2>
        <span className="spacer" />
        <button className="secondary" disabled={busy !== undefined} onClick={() => void scan()} title="add every GGUF file of the configured models folder">
          {busy === 'scan' ? 'Scanning…' : 'Scan models folder'}
        </button>
      </div>
      <div className="model-forms">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          <label>
            Add a GGUF file by path
            <input aria-label="Model path" placeholder="/path/to/model.gguf (on the machine running the workbench)" value={path} onChange={(e) => setPath(e.target.value)} />
          </label>
          {pickFile && (
            <button type="button" className="secondary" onClick={() => void browse()}>
              Browse…
            </button>
          )}
          <button type="submit" disabled={path.trim() === '' || busy !== undefined}>
            {busy === 'add' ? 'Reading…' : 'Add model'}
          </button>
        </form>
        {folder && folder.files.some((f) => !f.inLibrary) && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void addPicked();
            }}
          >
            <label>
              Pick from the models folder
              <select aria-label="Model in the models folder" value={picked} onChange={(e) => setPicked(e.target.value)} title={folder.folder}>
                <option value="">{folder.files.filter((f) => !f.inLibrary).length} not in the library…</option>
                {folder.files
                  .filter((f) => !f.inLibrary)
                  .map((f) => (
                    <option key={f.path} value={f.path}>
                      {f.name} ({bytes(f.sizeBytes)})
                    </option>
                  ))}
              </select>
            </label>
            <button type="submit" disabled={picked === '' || busy !== undefined}>
              {busy === 'pick' ? 'Reading…' : 'Add'}
            </button>
          </form>
        )}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void download();
          }}
        >
          <label>
            Download from a URL or Hugging Face
            <input aria-label="Download source" placeholder="https://…/model.gguf or hf:user/repo/file.gguf" value={source} onChange={(e) => setSource(e.target.value)} />
          </label>
          <button type="submit" disabled={source.trim() === '' || busy !== undefined}>
            Download
          </button>
        </form>
      </div>
      {note && <p className="note">{note}</p>}
      {downloads.length > 0 && <Downloads downloads={downloads} onChange={load} />}
      {!models ? (
        failed ? <Failed what="the models" retry={() => void load()} /> : <Loading what="models" />
      ) : models.length === 0 ? (
        <Empty title="The library is empty." testId="models-empty">
          Add a GGUF file by its path, pick one from the models folder, scan the folder, or download one above. For a quick test, <code>npx wapii make-test-model --vocab qwen2 --out /tmp/tiny.gguf</code> writes a tiny random-weight model.
        </Empty>
      ) : (
        <div className="table-scroll">
          <table className="samples models" data-testid="models-table">
            <thead>
              <tr>
                <th>Name</th>
                <th style={{ width: 118 }}>Architecture</th>
                <th style={{ width: 80 }}>Params</th>
                <th style={{ width: 118 }}>Quantisation</th>
                <th style={{ width: 80 }}>Size</th>
                <th style={{ width: 80 }}>Context</th>
                <th style={{ width: 86 }}>Chat</th>
                <th style={{ width: 260 }}>Fits</th>
                <th style={{ width: 120 }}>Added</th>
                <th style={{ width: 90 }} />
              </tr>
            </thead>
            <tbody>
              {models.map((m) => (
                <tr key={m.id} className={m.present ? undefined : 'missing'} title={m.path}>
                  <td>
                    {m.name}
                    {!m.present && <span className="error-inline"> (file missing)</span>}
                    <div className="muted small">{m.path}</div>
                  </td>
                  <td>{m.architecture}</td>
                  <td>{m.parametersLabel}</td>
                  <td>{m.quantisation}</td>
                  <td>{bytes(m.sizeBytes)}</td>
                  <td>{m.contextLength}</td>
                  <td>{m.chatTemplate ? 'template' : <span className="muted">none</span>}</td>
                  <td className={m.fit && !m.fit.fitsGpu && !m.fit.fitsRam ? 'error-inline' : undefined}>{m.fit?.summary ?? <span className="muted">unknown</span>}</td>
                  <td>{when(m.addedAt)}</td>
                  <td>
                    <button className="link small" aria-label={`remove ${m.name}`} onClick={() => void attempt(() => client.removeModel({ modelId: m.id })).then(load)} title="removes it from the library; the file stays">
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">
            Next: queue runs with a model from <Link to="/runs/new">New run</Link>.
          </p>
        </div>
      )}
    </main>
  );
}

function Downloads({ downloads, onChange }: { downloads: readonly Download[]; onChange: () => Promise<void> }): React.JSX.Element {
  const client = getClient();
  return (
    <ul className="downloads" data-testid="downloads">
      {downloads.map((d) => {
        const ratio = d.totalBytes > 0 ? d.downloadedBytes / d.totalBytes : 0;
        return (
          <li key={d.id}>
            <span className="name" title={d.source}>
              {d.file.split('/').pop()}
            </span>
            <div className="bar" role="progressbar" aria-valuenow={d.downloadedBytes} aria-valuemax={d.totalBytes}>
              <div style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
            </div>
            <span className="muted">
              {bytes(d.downloadedBytes)}
              {d.totalBytes > 0 && ` of ${bytes(d.totalBytes)}`} · {d.status}
              {d.error && <span className="error-inline"> · {d.error}</span>}
            </span>
            {d.status === 'downloading' && (
              <button className="secondary small" onClick={() => void attempt(() => client.cancelDownload({ downloadId: d.id })).then(onChange)}>
                Cancel
              </button>
            )}
            {(d.status === 'cancelled' || d.status === 'failed') && d.resumable !== false && (
              <button className="small" onClick={() => void attempt(() => client.downloadModel({ source: d.source })).then(onChange)} title={d.downloadedBytes > 0 ? 'continues where it stopped' : 'asks the server again'}>
                {d.downloadedBytes > 0 ? 'Resume' : 'Retry'}
              </button>
            )}
            {d.status !== 'downloading' && (
              <button className="link" aria-label={`Dismiss ${d.file.split('/').pop() ?? 'download'}`} title="Remove this row (a partial file stays, so downloading the source again resumes it)" onClick={() => void attempt(() => client.dismissDownload({ downloadId: d.id })).then(onChange)}>
                ✕
              </button>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** A download row with a progress event applied: its status, bytes, file and, when it failed, why. */
function withProgress(d: Download, e: DownloadProgressEvent): Download {
  return { ...d, status: e.status, downloadedBytes: e.downloadedBytes, totalBytes: e.totalBytes, ...(e.file ? { file: e.file } : {}), ...(e.resumable !== undefined ? { resumable: e.resumable } : {}), error: e.status === 'failed' ? (e.message ?? d.error) : e.status === 'downloading' ? null : d.error };
}
