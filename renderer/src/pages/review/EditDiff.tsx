import type { RequestConfig } from '../../../../main/api/schemas.js';
import { leafDiffs } from '../../components/jsonLeaves.js';

const show = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v));
const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** `string → number` when only the type changed. */
const typeChange = (a: unknown, b: unknown): string | undefined => (a !== undefined && b !== undefined && typeOf(a) !== typeOf(b) ? `${typeOf(a)} → ${typeOf(b)}` : undefined);

/** What an edit changes, leaf by leaf (a type-only change such as `"0"` → `0` is named). */
export function EditDiff({ before, after }: { before: { task: string; config: RequestConfig }; after: { task: string; config: RequestConfig } }): React.JSX.Element {
  // Only what an edit can change: the sample record carries ids, findings and provenance too.
  const leaves = leafDiffs({ task: before.task, config: before.config }, { task: after.task, config: after.config });
  if (leaves.length === 0) return <p className="muted">No change.</p>;
  return (
    <table className="grid edit-diff" data-testid="edit-diff">
      <thead>
        <tr>
          <th>where</th>
          <th>before</th>
          <th>after</th>
        </tr>
      </thead>
      <tbody>
        {leaves.map((d) => (
          <tr key={d.path} className={`diff-${d.kind}`}>
            <td>
              <code>{d.path}</code>
            </td>
            <td className="removed">{show(d.expected)}</td>
            <td className="added">
              {d.kind === 'removed' ? <span className="muted">(removed)</span> : show(d.actual)}
              {typeChange(d.expected, d.actual) && <span className="muted small"> ({typeChange(d.expected, d.actual)})</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
