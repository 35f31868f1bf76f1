import { defaultDatasetId } from '../../../../main/api/constants.js';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import type { Output } from '../../../../main/api/contract.js';
import type { DatasetSummary } from '../../../../main/api/schemas.js';
import { getClient } from '../../client.js';
import { Empty, Loading } from '../../components/Empty.js';
import { attempt } from '../../notices.js';
import './specVersions.css';

type Diff = Output<'diffSpecVersion'>;

/**
 * A second version of an API's spec against the one a stored dataset was imported with: endpoints
 * added, removed and changed (parameter by parameter), the samples that break and why, and the
 * samples on added or changed endpoints (`wapii spec-derive` writes those as a dataset).
 */
export function SpecVersionsPage(): React.JSX.Element {
  const client = getClient();
  const [datasets, setDatasets] = useState<DatasetSummary[] | undefined>();
  const [datasetId, setDatasetId] = useState<number | undefined>();
  const [api, setApi] = useState<string | undefined>();
  const [file, setFile] = useState<{ filename: string; content: string } | undefined>();
  const [diff, setDiff] = useState<Diff | undefined>();
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    void attempt(() => client.listDatasets({})).then((d) => {
      setDatasets(d ?? []);
      if (d && d.length > 0) setDatasetId((id) => id ?? defaultDatasetId(d));
    });
  }, [client]);
  const dataset = datasets?.find((d) => d.id === datasetId);
  useEffect(() => setApi((a) => (dataset?.apis.some((x) => x.api === a) ? a : dataset?.apis[0]?.api)), [dataset]);

  const compare = async (): Promise<void> => {
    if (datasetId === undefined || !api || !file) return;
    setBusy(true);
    setDiff(await attempt(() => client.diffSpecVersion({ datasetId, api, spec: file })));
    setBusy(false);
  };

  if (!datasets) return <main className="page scroll"><Loading what="datasets" /></main>;
  if (datasets.length === 0)
    return (
      <main className="page scroll">
        <Empty title="No dataset yet.">
          Import one on the <Link to="/datasets">Datasets</Link> page; its specs are the versions a new one is compared with.
        </Empty>
      </main>
    );
  return (
    <main className="page scroll spec-versions">
      <form
        className="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          void compare();
        }}
      >
        <h2>Spec versions</h2>
        <label>
          Dataset
          <select aria-label="Spec dataset" value={datasetId ?? ''} onChange={(e) => (setDatasetId(Number(e.target.value)), setDiff(undefined))}>
            {datasets.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          API
          <select aria-label="Spec API" value={api ?? ''} onChange={(e) => (setApi(e.target.value), setDiff(undefined))}>
            {dataset?.apis.map((a) => (
              <option key={a.api} value={a.api}>
                {a.api}
              </option>
            ))}
          </select>
        </label>
        <label>
          New version
          <input type="file" accept=".yaml,.yml,.json" aria-label="New spec version" onChange={async (e) => (setDiff(undefined), setFile(await readFile(e.target.files)))} />
        </label>
        <button type="submit" disabled={!file || !api || busy}>
          {busy ? 'Comparing…' : 'Compare with the stored version'}
        </button>
      </form>
      {!diff ? (
        <Empty title="Choose the new version of the API's spec.">It is compared with the version the dataset was imported with; nothing is stored.</Empty>
      ) : (
        <DiffView diff={diff} />
      )}
    </main>
  );
}

async function readFile(list: FileList | null): Promise<{ filename: string; content: string } | undefined> {
  const f = list?.[0];
  return f ? { filename: f.name, content: await f.text() } : undefined;
}

function DiffView({ diff }: { diff: Diff }): React.JSX.Element {
  return (
    <div className="spec-diff" data-testid="spec-diff">
      <p className="summary" data-testid="spec-diff-summary">
        {diff.api}: {diff.before.title} {diff.before.version} → {diff.after.title} {diff.after.version} — {diff.added.length} endpoint{diff.added.length === 1 ? '' : 's'} added, {diff.removed.length} removed, {diff.changed.length} changed;{' '}
        {diff.breaks.length} of {diff.samples} samples break, {diff.fixes} fixed; {diff.novel.length} on added or changed endpoints
      </p>
      <div className="columns">
        <section>
          <h3>Endpoints</h3>
          <ul className="endpoints" data-testid="spec-endpoints">
            {diff.added.map((e) => (
              <li key={`+${e}`} className="added">
                <span className="mark">+</span> {e}
              </li>
            ))}
            {diff.removed.map((e) => (
              <li key={`-${e}`} className="removed">
                <span className="mark">−</span> {e}
              </li>
            ))}
            {diff.changed.map((c) => (
              <li key={`~${c.endpoint}`} className="changed">
                <span className="mark">~</span> {c.endpoint}
                <ul>
                  {c.changes.map((x) => (
                    <li key={x.text} className={`change ${x.kind}`}>
                      {x.text}
                    </li>
                  ))}
                </ul>
              </li>
            ))}
            {diff.added.length + diff.removed.length + diff.changed.length === 0 && <li className="muted">No difference in endpoints, parameters or body properties.</li>}
          </ul>
        </section>
        <section>
          <h3>Samples that break</h3>
          {diff.breaks.length === 0 ? (
            <p className="muted">None: every sample checks as before.</p>
          ) : (
            <table className="compact" data-testid="spec-breaks">
              <thead>
                <tr>
                  <th>#</th>
                  <th>endpoint (new)</th>
                  <th>why</th>
                </tr>
              </thead>
              <tbody>
                {diff.breaks.map((b) => (
                  <tr key={b.index}>
                    <td>{b.index}</td>
                    <td>{b.endpoint ?? '–'}</td>
                    <td>{b.findings.join('; ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>Samples on novel endpoints</h3>
          {diff.novel.length === 0 ? (
            <p className="muted">None.</p>
          ) : (
            <ul className="novel" data-testid="spec-novel">
              {diff.novel.map((n) => (
                <li key={n.index}>
                  #{n.index} {n.task}
                </li>
              ))}
            </ul>
          )}
          <p className="muted">
            <code>wapii spec-derive --dataset … --spec &lt;new&gt; --out novel.json</code> writes these as a dataset with its provenance.
          </p>
        </section>
      </div>
    </div>
  );
}
