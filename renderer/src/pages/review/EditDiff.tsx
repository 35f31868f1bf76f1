import type { RequestConfig, SampleStep } from '../../../../main/api/schemas.js';
import { leafDiffs } from '../../components/jsonLeaves.js';

const show = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v));
/** A whole step added or removed reads as its request line, not its JSON. */
const isStep = (v: unknown): v is SampleStep => typeof v === 'object' && v !== null && 'config' in v && 'response' in v;
const shown = (path: string, v: unknown): string => (/^steps\[\d+\]$/.test(path) && isStep(v) ? `step: ${v.config.method.toUpperCase()} ${v.config.url}` : show(v));
const typeOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
/** `string → number` when only the type changed. */
const typeChange = (a: unknown, b: unknown): string | undefined => (a !== undefined && b !== undefined && typeOf(a) !== typeOf(b) ? `${typeOf(a)} → ${typeOf(b)}` : undefined);

type Side = { task: string; config: RequestConfig; steps?: SampleStep[] | undefined };

/** What an edit changes, leaf by leaf (a type-only change such as `"0"` → `0` is named); a multi-step sample's by its steps. */
export function EditDiff({ before, after }: { before: Side; after: Side }): React.JSX.Element {
  // Only what an edit can change: the sample record carries ids, findings and provenance too.
  // A multi-step sample's config is its last step's: its steps say it once.
  const leaves = before.steps
    ? leafDiffs({ task: before.task, steps: before.steps }, { task: after.task, steps: after.steps ?? before.steps })
    : leafDiffs({ task: before.task, config: before.config }, { task: after.task, config: after.config });
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
            <td className="removed">{shown(d.path, d.expected)}</td>
            <td className="added">
              {d.kind === 'removed' ? <span className="muted">(removed)</span> : shown(d.path, d.actual)}
              {typeChange(d.expected, d.actual) && <span className="muted small"> ({typeChange(d.expected, d.actual)})</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
