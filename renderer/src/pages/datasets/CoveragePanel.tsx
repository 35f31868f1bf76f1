import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import type { Input, Output } from '../../../../main/api/contract.js';
import { jobStatusText } from '../../../../main/api/constants.js';
import { getClient } from '../../client.js';
import { attempt } from '../../notices.js';
import { useReview } from '../review/reviewStore.js';
import { useDatasets } from './datasetsStore.js';
import './coverage.css';

type Coverage = Output<'getCoverage'>;
type Job = Output<'getSynthesisJob'>;
type KeyStatus = Output<'getApiKeyStatus'>[number];
/** A provider as the service's registry describes it (listProviders): synthesis offers those whose answers can be held to a JSON Schema. */
type ProviderInfo = Output<'listProviders'>[number];
const isUrl = (text: string): boolean => /^https?:\/\/\S+$/.test(text.trim());

/**
 * Coverage of the chosen dataset (every endpoint of each API's spec with its sample count, the
 * uncovered ones first in mind) and synthesis jobs that fill the gaps.
 */
export function CoveragePanel({ datasetId, onClose }: { datasetId: number; onClose: () => void }): React.JSX.Element {
  const client = getClient();
  const navigate = useNavigate();
  const setFilter = useDatasets((s) => s.setFilter);
  const [coverage, setCoverage] = useState<Coverage>();
  const [jobs, setJobs] = useState<Job[]>([]);
  const [keys, setKeys] = useState<KeyStatus[]>([]);
  const [providers, setProviders] = useState<ProviderInfo[]>([]);
  const [scope, setScope] = useState<'uncovered' | 'all' | 'chosen'>('uncovered');
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [api, setApi] = useState('');
  const [provider, setProvider] = useState('gemini');
  const info = providers.find((p) => p.name === provider);
  const isFile = info?.modelIs === 'file';
  const [model, setModel] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [modelFile, setModelFile] = useState('');
  const [concurrency, setConcurrency] = useState(4);
  const [key, setKey] = useState('');

  const reload = useCallback(async () => {
    const [c, j, k] = await Promise.all([attempt(() => client.getCoverage({ datasetId })), attempt(() => client.listSynthesisJobs({ datasetId })), attempt(() => client.getApiKeyStatus({}))]);
    if (c) setCoverage(c);
    if (j) setJobs(j);
    if (k) setKeys(k);
  }, [client, datasetId]);
  useEffect(() => void reload(), [reload]);
  useEffect(() => void attempt(() => client.listProviders({})).then((p) => setProviders((p ?? []).filter((x) => x.capabilities.jsonSchema))), [client]);
  useEffect(
    () =>
      client.onEvent((e) => {
        if (e.type !== 'datasetsChanged') return;
        void reload();
        // New samples: the table beside the panel shows them too.
        void useDatasets.getState().setFilter({});
      }),
    [client, reload],
  );
  // A running job is followed by polling it: its counts, tokens and failures change as it goes.
  const running = jobs.some((j) => j.status === 'running');
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => void reload(), 1000);
    return () => clearInterval(t);
  }, [running, reload]);

  // A provider with no API of its own (a server) must be told where the server is.
  const missingBaseUrl = info !== undefined && info.modelIs === 'name' && info.defaultBaseUrl === undefined && !isUrl(baseUrl);
  const start = async (): Promise<void> => {
    const endpoints = scope === 'chosen' ? [...chosen] : scope;
    if (Array.isArray(endpoints) && endpoints.length === 0) return;
    if (missingBaseUrl) return;
    const job = await attempt(() =>
      client.synthesize({
        datasetId,
        provider,
        endpoints: endpoints as Input<'synthesize'>['endpoints'],
        concurrency,
        ...(api ? { api } : {}),
        ...(model.trim() ? { model: model.trim() } : {}),
        ...(baseUrl.trim() ? { baseUrl: baseUrl.trim() } : {}),
        ...(isFile && modelFile.trim() ? { modelFile: modelFile.trim() } : {}),
      }),
    );
    if (job) await reload();
  };
  const keyStatus = keys.find((k) => k.provider === provider);

  return (
    <aside className="detail coverage-panel" data-testid="coverage-panel">
      <header>
        <h2>Endpoint coverage and synthesis</h2>
        <button className="link" onClick={onClose} aria-label="Close">
          ✕
        </button>
      </header>
      <p className="muted small">Which endpoints of each API's spec have at least one sample in this dataset; a language model can write samples for the others.</p>
      {coverage?.apis.map((a) => {
        const uncovered = a.endpoints.filter((e) => e.samples === 0);
        return (
          <section key={a.api} data-testid={`coverage-${a.api}`}>
            <h3>
              {a.api} <span className="muted">— {a.specTitle}</span>
            </h3>
            <p data-testid="coverage-summary">
              <strong>
                {a.covered} of {a.total}
              </strong>{' '}
              endpoints have a sample{a.unmatched > 0 && ` · ${a.unmatched} samples match no endpoint`}
            </p>
            {uncovered.length > 0 && (
              <p className="uncovered" data-testid="uncovered">
                Uncovered ({uncovered.length}):{' '}
                {uncovered.map((e, i) => (
                  <span key={e.key}>
                    {i > 0 && ', '}
                    <code>{e.key}</code>
                  </span>
                ))}
              </p>
            )}
          </section>
        );
      })}

      <section className="synthesize" data-testid="synthesize-form">
        <h3>Synthesize samples</h3>
        <div className="row" role="radiogroup" aria-label="Endpoints">
          {(['uncovered', 'all', 'chosen'] as const).map((s) => (
            <label key={s}>
              <input type="radio" name="scope" checked={scope === s} onChange={() => setScope(s)} /> {s === 'chosen' ? `chosen (${chosen.size})` : s}
            </label>
          ))}
        </div>
        <div className="form-grid">
          <label>
            API
            <select aria-label="Synthesis API" value={api} onChange={(e) => setApi(e.target.value)}>
              <option value="">every API</option>
              {coverage?.apis.map((a) => (
                <option key={a.api}>{a.api}</option>
              ))}
            </select>
          </label>
          <label>
            Provider
            <select aria-label="Provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
              {providers.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Model
            <input aria-label="Model" value={model} placeholder={info?.defaultModel ?? (isFile ? 'from the file' : "the provider's name for it")} onChange={(e) => setModel(e.target.value)} />
          </label>
          {isFile ? (
            <label>
              GGUF file
              <input aria-label="Model file" value={modelFile} placeholder="/path/to/model.gguf" onChange={(e) => setModelFile(e.target.value)} />
            </label>
          ) : (
            <label>
              Base URL
              <input
                aria-label="Base URL"
                aria-invalid={missingBaseUrl}
                value={baseUrl}
                placeholder={info?.defaultBaseUrl ?? 'http://localhost:8080/v1 (required)'}
                onChange={(e) => setBaseUrl(e.target.value)}
              />
            </label>
          )}
          <label>
            Concurrency
            <input aria-label="Concurrency" type="number" min={1} max={64} value={concurrency} onChange={(e) => setConcurrency(Math.max(1, Number(e.target.value) || 1))} />
          </label>
        </div>
        {info !== undefined && info.keyVariables.length > 0 && (
          <div className="api-key">
            <span data-testid="key-status">
              API key: {keyStatus?.set ? `set (${keyStatus.source === 'environment' ? 'from the environment' : 'saved, encrypted'})` : 'not set'}
            </span>
            <input type="password" aria-label="API key" autoComplete="off" value={key} placeholder="paste a key to save it (never shown again)" onChange={(e) => setKey(e.target.value)} />
            <button
              className="secondary"
              disabled={!key.trim()}
              onClick={async () => {
                const saved = await attempt(() => client.saveApiKey({ provider, key: key.trim() }));
                setKey('');
                if (saved) setKeys((k) => k.map((x) => (x.provider === saved.provider ? saved : x)));
              }}
            >
              Save key
            </button>
          </div>
        )}
        <div className="row">
          <button onClick={() => void start()} disabled={running || missingBaseUrl || (scope === 'chosen' && chosen.size === 0)}>
            Synthesize
          </button>
          {missingBaseUrl && (
            <span className="error-inline" data-testid="synthesize-hint">
              give the server&apos;s base URL (http:// or https://): {info?.label ?? 'this provider'} has no default
            </span>
          )}
        </div>
      </section>

      {jobs.length > 0 && (
        <section>
          <h3>Jobs</h3>
          {[...jobs].reverse().map((job) => (
            <JobCard key={job.id} job={job} onChange={() => void reload()} onReview={() => {
              useReview.setState({ datasetId, filter: { reviewState: 'unreviewed', synthesizedOnly: true, api: '', endpoint: '' } });
              void navigate('/review');
            }} />
          ))}
        </section>
      )}
      {coverage?.apis.map((a) => (
        <section key={a.api}>
          <h3>Samples per endpoint of {a.api}</h3>
          <table className="grid coverage" data-testid="coverage-table">
              {/* The bare count column read as nothing in particular: the header says what it counts. */}
              <thead>
                <tr>
                  <th aria-label="choose" />
                  <th>endpoint</th>
                  <th className="count" title="samples of this dataset whose expected request resolves to this endpoint">
                    samples
                  </th>
                </tr>
              </thead>
              <tbody>
                {a.endpoints.map((e) => (
                  <tr key={e.key} className={e.samples === 0 ? 'uncovered' : undefined}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`choose ${e.key}`}
                        checked={chosen.has(e.key)}
                        onChange={() =>
                          setChosen((c) => {
                            const next = new Set(c);
                            if (next.has(e.key)) next.delete(e.key);
                            else next.add(e.key);
                            if (next.size > 0) setScope('chosen');
                            return next;
                          })
                        }
                      />
                    </td>
                    <td>
                      <button className="link endpoint" title="show its samples" onClick={() => void setFilter({ api: a.api, endpoint: e.key })}>
                        <code>{e.key}</code>
                      </button>
                      {e.summary && <div className="muted small">{e.summary}</div>}
                    </td>
                    <td className="count">{e.samples}</td>
                  </tr>
                ))}
              </tbody>
            </table>
        </section>
      ))}
    </aside>
  );
}

function JobCard({ job, onChange, onReview }: { job: Job; onChange: () => void; onReview: () => void }): React.JSX.Element {
  const client = getClient();
  const failed = job.endpoints.filter((e) => e.status === 'failed');
  const { counts, usage } = job;
  const done = counts.done + counts.failed;
  return (
    <div className={`job ${job.status}`} data-testid="synthesis-job" data-status={job.status}>
      <div className="job-head">
        <strong>
          Job {job.id} · {job.provider} {job.model}
        </strong>
        <span className={`job-status ${job.status}`} data-testid="job-status">
          {jobStatusText(job)}
        </span>
      </div>
      <progress max={counts.endpoints} value={done} aria-label="endpoints done" />
      <p className="small" data-testid="job-counts">
        {done} of {counts.endpoints} endpoints · {counts.samples} samples stored · {counts.failed} failed · {usage.inputTokens.toLocaleString()} in / {usage.outputTokens.toLocaleString()} out tokens · {usage.requests} requests
        {usage.retries > 0 && ` (${usage.retries} retried)`} · ${job.costUsd.toFixed(4)} estimated
      </p>
      {job.lastRetry && (
        <p className="small error-inline" data-testid="job-retry">
          Retrying after: {job.lastRetry.message} ({new Date(job.lastRetry.at).toLocaleTimeString('en-GB')})
        </p>
      )}
      <div className="row">
        {job.status === 'running' && (
          <button className="secondary" onClick={async () => (await attempt(() => client.cancelSynthesis({ jobId: job.id }))) && onChange()}>
            Cancel
          </button>
        )}
        {(job.status === 'cancelled' || job.status === 'interrupted') && (
          <button className="secondary" onClick={async () => (await attempt(() => client.resumeSynthesis({ jobId: job.id }))) && onChange()}>
            Resume
          </button>
        )}
        {(job.status === 'finished' || job.status === 'failed') && counts.failed > 0 && (
          <button className="secondary" title="ask again for the endpoints that failed" onClick={async () => (await attempt(() => client.resumeSynthesis({ jobId: job.id }))) && onChange()}>
            Retry errors
          </button>
        )}
        {job.status !== 'running' && counts.samples > 0 && (
          <button className="secondary" onClick={onReview}>
            Review the new samples →
          </button>
        )}
      </div>
      {failed.length > 0 && (
        <ul className="job-failures" data-testid="job-failures">
          {failed.map((e) => (
            <li key={`${e.api} ${e.endpoint}`}>
              <code>{e.endpoint}</code> <span className="rule">{e.failure}</span> {e.message}
              {e.rawAnswer !== undefined && (
                <details>
                  <summary>raw answer</summary>
                  <pre className="config">{e.rawAnswer}</pre>
                </details>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
