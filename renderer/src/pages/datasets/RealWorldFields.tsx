import { useEffect, useState } from 'react';
import type { SampleDetail } from '../../../../main/api/contract.js';
import type { JsonValue, SampleFields } from '../../../../main/api/schemas.js';
import { CodeView } from '../../components/CodeView.js';

const text = (value: JsonValue | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** `refs/heads/main` -> `main`, `refs/tags/v1` -> `v1`: the name a repository page uses for a ref. */
const refName = (ref: string): string => ref.replace(/^refs\/(heads|tags)\//, '');

/**
 * Where a real-world sample's code came from, as one line that reads like a link: the repository,
 * the file at its ref, the licence and the copyright. The link goes to GitHub, where upstream
 * mined the samples from.
 */
function ProvenanceLine({ fields }: { fields: SampleFields }): React.JSX.Element | null {
  const repo = text(fields['repo_name']);
  const file = text(fields['path']);
  const ref = text(fields['ref']);
  const license = text(fields['license']);
  const copyright = text(fields['copyright']);
  if (!repo && !file) return null;
  const href = repo ? `https://github.com/${repo}${file ? `/blob/${ref ? refName(ref) : 'HEAD'}/${file}` : ''}` : undefined;
  const label = `${repo ?? ''}${file ? `/${file}` : ''}${ref ? ` @ ${refName(ref)}` : ''}`;
  return (
    <p className="provenance" data-testid="sample-provenance">
      {href ? (
        <a href={href} target="_blank" rel="noreferrer noopener">
          {label}
        </a>
      ) : (
        label
      )}
      {license && (
        <>
          {' · '}
          <span className="license">{license}</span>
        </>
      )}
      {copyright && <span className="muted"> · {copyright}</span>}
    </p>
  );
}

/**
 * A sample's own starter code (with the task in place, the comment line highlighted), its
 * definitions, its template URL and provenance, and any other field it came with; all of them
 * editable as one JSON object (kept and exported as the file had them).
 */
export function RealWorldFields({ detail, onEdit }: { detail: SampleDetail; onEdit: (fields: SampleFields, reason: string) => Promise<void> }): React.JSX.Element | null {
  const fields = detail.sample.fields;
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [reason, setReason] = useState('');
  useEffect(() => {
    setEditing(false);
    setDraft(fields ? JSON.stringify(fields, null, 2) : '');
  }, [fields]);
  if (!fields) return null;
  const starter = detail.starter ?? undefined;
  const taskAt = starter?.indexOf(detail.sample.task) ?? -1;
  const lineStart = starter && taskAt >= 0 ? starter.lastIndexOf('\n', taskAt) + 1 : -1;
  const highlight: [number, number] | null = starter && taskAt >= 0 ? [lineStart, taskAt + detail.sample.task.length] : null;
  const definitions = fields['definitions'];
  const templateUrl = text(fields['template_url']);
  const known = new Set(['starter_code', 'definitions', 'template_url', 'repo_name', 'path', 'ref', 'license', 'copyright']);
  const others = Object.entries(fields).filter(([k]) => !known.has(k));
  let parsed: { fields?: SampleFields; error?: string } = {};
  if (editing) {
    try {
      const value = JSON.parse(draft) as unknown;
      parsed = value !== null && typeof value === 'object' && !Array.isArray(value) ? { fields: value as SampleFields } : { error: 'the fields are a JSON object' };
    } catch (error) {
      parsed = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return (
    <section className="real-world" data-testid="real-world-fields">
      <h3>Starter code</h3>
      <ProvenanceLine fields={fields} />
      {starter !== undefined && <CodeView code={starter} highlight={highlight} label="Starter code with the task in place" />}
      {templateUrl !== undefined && (
        <p data-testid="template-url">
          <span className="muted">Template URL (argument completion): </span>
          <code>{templateUrl}</code>
        </p>
      )}
      {definitions !== undefined && (
        <>
          <h3>Definitions in scope</h3>
          <pre className="config" data-testid="definitions">
            {Object.entries(typeof definitions === 'object' && definitions !== null && !Array.isArray(definitions) ? definitions : {})
              .map(([name, value]) => `const ${name} = ${JSON.stringify(value, null, 2)};`)
              .join('\n')}
          </pre>
        </>
      )}
      {others.length > 0 && (
        <>
          <h3>Other fields</h3>
          <pre className="config">{JSON.stringify(Object.fromEntries(others), null, 2)}</pre>
        </>
      )}
      {editing ? (
        <>
          <textarea className="config-editor" aria-label="Sample fields JSON" value={draft} onChange={(e) => setDraft(e.target.value)} rows={16} spellCheck={false} />
          {parsed.error && <p className="error-inline">{parsed.error}</p>}
          <input placeholder="Why this change? (recorded in the history)" aria-label="Reason for the fields" value={reason} onChange={(e) => setReason(e.target.value)} />
          <div className="row">
            <button
              disabled={!parsed.fields || reason.trim() === ''}
              onClick={() => {
                if (parsed.fields) void onEdit(parsed.fields, reason.trim()).then(() => setReason(''));
              }}
            >
              Save fields
            </button>
            <button className="secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </>
      ) : (
        <button className="secondary" onClick={() => setEditing(true)}>
          Edit starter, definitions and fields
        </button>
      )}
    </section>
  );
}
