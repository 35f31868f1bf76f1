import type { RunSampleDetail } from '../api.js';
import { LOCATION_LABELS } from '../api.js';
import { json } from '../format.js';
import { leafDiffs, typeNote } from './jsonLeaves.js';
import { Verdict } from './Verdict.js';

type Argument = RunSampleDetail['arguments'][number];

/**
 * The expected request beside the captured one: URL (template and path parameters), method,
 * then every argument per location coloured by its verdict; nested values are diffed down to
 * the differing leaf, and a type-only difference (`50` vs `"50"`) is named.
 */
export function RequestDiff({ detail }: { detail: RunSampleDetail }): React.JSX.Element {
  const { expected, request, expectedEndpoint, capturedEndpoint } = detail;
  const expectedQuery = expected.url.includes('?') ? ` ?${expected.url.split('?')[1]}` : '';
  return (
    <div className="request-diff" data-testid="request-diff">
      <table className="grid">
        <thead>
          <tr>
            <th />
            <th>expected</th>
            <th>captured</th>
            <th>verdict</th>
          </tr>
        </thead>
        <tbody>
          <tr className={`part-${detail.url_verdict ?? 'none'}`}>
            <th>URL</th>
            <td>
              <code>{expected.url.split('?')[0]}</code>
              {expectedQuery && <span className="muted">{expectedQuery}</span>}
              {expectedEndpoint && <div className="muted">template {expectedEndpoint.path}</div>}
            </td>
            <td>
              {request ? <code>{request.url}</code> : <span className="muted">no request</span>}
              {capturedEndpoint && (
                <div className="muted">
                  matched {capturedEndpoint.path}
                  {Object.keys(capturedEndpoint.pathParams).length > 0 && ` · ${Object.entries(capturedEndpoint.pathParams).map(([k, v]) => `${k} = ${v}`).join(', ')}`}
                </div>
              )}
              {request && !capturedEndpoint && <div className="muted">matches no endpoint of the spec</div>}
            </td>
            <td>
              <Verdict value={detail.url_verdict} />
            </td>
          </tr>
          <tr className={`part-${detail.method_verdict ?? 'none'}`}>
            <th>method</th>
            <td>
              <code>{expected.method.toUpperCase()}</code>
            </td>
            <td>{request ? <code>{request.method.toUpperCase()}</code> : <span className="muted">–</span>}</td>
            <td>
              <Verdict value={detail.method_verdict} />
            </td>
          </tr>
          <tr className={`part-${detail.endpoint_verdict ?? 'none'}`}>
            <th>endpoint</th>
            <td>{expectedEndpoint ? <code>{`${expectedEndpoint.method.toUpperCase()} ${expectedEndpoint.path}`}</code> : <span className="muted">unresolved</span>}</td>
            <td>{capturedEndpoint ? <code>{`${capturedEndpoint.method.toUpperCase()} ${capturedEndpoint.path}`}</code> : <span className="muted">–</span>}</td>
            <td>
              <Verdict value={detail.endpoint_verdict} />
            </td>
          </tr>
        </tbody>
      </table>
      <ArgumentsTable args={detail.arguments} />
    </div>
  );
}

/** `marks`: something to show beside an argument's name, by `<location>.<key>` (a multi-step sample's carried values). */
export function ArgumentsTable({ args, marks }: { args: readonly Argument[]; marks?: Readonly<Record<string, React.ReactNode>> }): React.JSX.Element {
  if (args.length === 0) return <p className="muted">No arguments expected or given.</p>;
  return (
    <table className="grid arguments" data-testid="argument-verdicts">
      <thead>
        <tr>
          <th>location</th>
          <th>argument</th>
          <th>expected</th>
          <th>captured</th>
          <th>verdict</th>
        </tr>
      </thead>
      <tbody>
        {args.map((a) => (
          <tr key={`${a.location}.${a.key}`} className={`arg arg-${a.verdict}`} data-verdict={a.verdict}>
            <td className="muted">{LOCATION_LABELS[a.location] ?? a.location}</td>
            <td>
              <code>{a.key}</code>
              {marks?.[`${a.location}.${a.key}`]}
            </td>
            <td>
              <Value value={a.expected} absent={a.verdict === 'unnecessary' || a.verdict === 'illegal'} />
            </td>
            <td>
              <Value value={a.actual} absent={a.verdict === 'missing'} />
              {a.verdict === 'incorrect_value' && <ValueDiff expected={a.expected} actual={a.actual} />}
            </td>
            <td>
              <Verdict value={a.verdict} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Value({ value, absent }: { value: unknown; absent: boolean }): React.JSX.Element {
  if (absent) return <span className="muted">absent</span>;
  const text = json(value);
  return <code className="json-value">{text.length > 160 ? `${text.slice(0, 160)}…` : text}</code>;
}

/** Where two values differ: the type when only the type does, else each differing leaf. */
function ValueDiff({ expected, actual }: { expected: unknown; actual: unknown }): React.JSX.Element | null {
  const note = typeNote(expected, actual);
  if (note) return <div className="type-note">{note}</div>;
  const leaves = typeof expected === 'object' && expected !== null ? leafDiffs(expected, actual) : [];
  if (leaves.length === 0) return null;
  return (
    <ul className="leaf-diffs">
      {leaves.slice(0, 12).map((d) => (
        <li key={d.path}>
          <code>{d.path}</code>{' '}
          {d.kind === 'added' && (
            <>
              unexpected <code className="actual">{json(d.actual)}</code>
            </>
          )}
          {d.kind === 'removed' && (
            <>
              missing <code className="expected">{json(d.expected)}</code>
            </>
          )}
          {d.kind === 'changed' && (
            <>
              <code className="expected">{json(d.expected)}</code> → <code className="actual">{json(d.actual)}</code>
              {typeNote(d.expected, d.actual) && <span className="type-note"> ({typeNote(d.expected, d.actual)})</span>}
            </>
          )}
        </li>
      ))}
      {leaves.length > 12 && <li className="muted">… {leaves.length - 12} more</li>}
    </ul>
  );
}
