import type { EndpointExcerpt } from './reviewStore.js';

/** The endpoint's part of the spec beside the sample: arguments with types, required marks, enums, descriptions; the body schema. */
export function SpecExcerpt({ excerpt }: { excerpt: EndpointExcerpt | null | undefined }): React.JSX.Element {
  if (!excerpt) return <p className="muted">The expected request resolves to no endpoint of the spec: nothing to show beside it.</p>;
  return (
    <div className="spec-excerpt" data-testid="spec-excerpt">
      <p>
        <code>
          {excerpt.method} {excerpt.path}
        </code>
        {excerpt.summary && <span className="muted"> — {excerpt.summary}</span>}
      </p>
      {excerpt.description && <p className="muted small">{excerpt.description}</p>}
      {excerpt.auth.length > 0 && (
        <p className="small" data-testid="spec-auth">
          Auth (one of): {excerpt.auth.map((a, i) => (
            <span key={a}>
              {i > 0 && ', '}
              <code>{a}</code>
            </span>
          ))}
        </p>
      )}
      {excerpt.arguments.length === 0 ? (
        <p className="muted">No parameters.</p>
      ) : (
        <table className="grid spec-args">
          <thead>
            <tr>
              <th>name</th>
              <th>in</th>
              <th>type</th>
            </tr>
          </thead>
          <tbody>
            {excerpt.arguments.map((a) => (
              <tr key={`${a.in}:${a.name}`}>
                <td>
                  <code>{a.name}</code>
                  {a.required && (
                    <span className="required" title="required">
                      {' '}
                      *
                    </span>
                  )}
                  {a.readOnly && <span className="muted"> read-only</span>}
                  {a.description && <div className="muted small">{a.description}</div>}
                </td>
                <td>{a.in}</td>
                <td>
                  {a.type}
                  {a.enum && <div className="muted small">one of {a.enum.map((v) => JSON.stringify(v)).join(', ')}</div>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {excerpt.body && (
        <details open={excerpt.arguments.every((a) => a.in !== 'body')}>
          <summary>
            Body schema <span className="muted">({excerpt.body.mediaType}{excerpt.body.required ? ', required' : ''})</span>
          </summary>
          <pre className="config">{JSON.stringify(excerpt.body.schema, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
