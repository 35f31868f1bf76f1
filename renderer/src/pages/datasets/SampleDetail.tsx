import { useEffect, useState } from 'react';
import { REVIEW_STATES } from '../../../../main/api/constants.js';
import type { ReviewState } from '../../../../main/api/schemas.js';
import { parseRequestText } from '../../components/requestText.js';
import { useDatasets } from './datasetsStore.js';
import { RealWorldFields } from './RealWorldFields.js';

export function SampleDetail(): React.JSX.Element | null {
  const detail = useDatasets((s) => s.selected);
  const review = useDatasets((s) => s.review);
  const editSample = useDatasets((s) => s.editSample);
  const undo = useDatasets((s) => s.undo);
  const close = useDatasets((s) => s.openSample);
  const stale = useDatasets((s) => s.stale);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [reason, setReason] = useState('');
  useEffect(() => {
    setEditing(false);
    setDraft(detail ? JSON.stringify(detail.sample.config, null, 2) : '');
  }, [detail]);
  if (!detail) return null;
  const { sample, endpoint, revisions, canUndo } = detail;
  const parsed = editing ? parseRequestText(draft) : {};
  return (
    <aside className="detail" data-testid="sample-detail">
      <header>
        <h2>
          #{sample.position} <span className="muted">{sample.api}</span>
        </h2>
        <button className="link" onClick={() => void close(undefined)} aria-label="Close">
          ✕
        </button>
      </header>
      {stale && (
        <div className="stale-notice" role="alert" data-testid="stale-notice">
          <p>{stale.message}</p>
          {stale.unsaved !== undefined && (
            <details>
              <summary>your version, not saved</summary>
              <pre className="config">{stale.unsaved}</pre>
            </details>
          )}
        </div>
      )}
      <p className="task">{sample.task}</p>
      <section>
        <h3>Endpoint</h3>
        {endpoint ? (
          <p>
            <code>
              {endpoint.method.toUpperCase()} {endpoint.path}
            </code>
            {endpoint.summary && <span className="muted"> — {endpoint.summary}</span>}
          </p>
        ) : (
          <p className="muted">The expected request resolves to no endpoint of the spec.</p>
        )}
      </section>
      <section>
        <h3>Check findings</h3>
        {sample.findings.length === 0 ? (
          <p className="ok" data-testid="no-findings">
            No findings: the request agrees with the spec.
          </p>
        ) : (
          <ul className="findings" data-testid="findings">
            {sample.findings.map((f, i) => (
              <li key={i} className={`finding ${f.rule}`}>
                <span className="rule">{f.rule}</span> {f.message}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h3>Expected request</h3>
        {editing ? (
          <>
            <textarea className="config-editor" aria-label="Expected request JSON" value={draft} onChange={(e) => setDraft(e.target.value)} rows={16} spellCheck={false} />
            {parsed.error && <p className="error-inline">{parsed.error}</p>}
            <input placeholder="Why this change? (recorded in the history)" aria-label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} />
            <div className="row">
              <button
                disabled={!parsed.config || reason.trim() === ''}
                onClick={() => {
                  if (parsed.config) void editSample({ config: parsed.config }, reason.trim()).then(() => setReason(''));
                }}
              >
                Save fix
              </button>
              <button className="secondary" onClick={() => setEditing(false)}>
                Cancel
              </button>
            </div>
          </>
        ) : (
          <>
            <pre className="config">{JSON.stringify(sample.config, null, 2)}</pre>
            <button className="secondary" onClick={() => setEditing(true)}>
              Edit request
            </button>
          </>
        )}
      </section>
      <RealWorldFields detail={detail} onEdit={(fields, why) => editSample({ fields }, why)} />
      <section>
        <h3>Review</h3>
        <div className="row" role="group" aria-label="Review state">
          {REVIEW_STATES.map((state: ReviewState) => (
            <button key={state} className={state === sample.reviewState ? 'active' : 'secondary'} onClick={() => void review(state, `marked ${state}`)}>
              {state}
            </button>
          ))}
          <button className="secondary" disabled={!canUndo} onClick={() => void undo()}>
            Undo last edit
          </button>
        </div>
      </section>
      <section>
        <h3>History</h3>
        <ol className="history">
          {[...revisions].reverse().map((r) => (
            <li key={r.id} className={r.undone ? 'undone' : undefined}>
              <span className="muted">{r.at.replace('T', ' ').slice(0, 19)}</span> {r.author}: {r.reason}
              {r.undone && ' (undone)'}
            </li>
          ))}
        </ol>
      </section>
    </aside>
  );
}
