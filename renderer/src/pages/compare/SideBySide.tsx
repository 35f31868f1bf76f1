import type { RunSampleDetail, RunSummary } from '../../api.js';
import { Verdict } from '../../components/Verdict.js';
import { json } from '../../format.js';

/**
 * The parts Compare's side-by-side tables share, a single request's and a multi-step sample's
 * (StepsSideBySide): the header of runs, the verdict row, and an argument's cell.
 */

/** A sample verdict as Compare names it: a nonexecutable one with its error. */
export const verdictOf = (d: RunSampleDetail): string | null => (d.sample_verdict === 'nonexecutable' && d.error_verdict ? `nonexecutable (${d.error_verdict})` : d.sample_verdict);

export function SideBySideHead({ runs }: { runs: readonly RunSummary[] }): React.JSX.Element {
  return (
    <thead>
      <tr>
        <th />
        <th>expected</th>
        {runs.map((r, i) => (
          <th key={r.id}>
            #{r.id}
            {i === 0 && ' (baseline)'}
          </th>
        ))}
      </tr>
    </thead>
  );
}

export function VerdictRow({ details }: { details: readonly (RunSampleDetail | undefined)[] }): React.JSX.Element {
  return (
    <tr>
      <th>verdict</th>
      <td />
      {details.map((d, i) => (
        <td key={i}>{d ? <Verdict value={verdictOf(d)} /> : <span className="muted">no output</span>}</td>
      ))}
    </tr>
  );
}

/** One run's value of an argument, coloured by its verdict; `–` where the run has none. */
export function ArgumentCell({ argument }: { argument: { verdict: string; actual: unknown } | undefined }): React.JSX.Element {
  const a = argument;
  return (
    <td className={a ? `arg-${a.verdict}` : undefined} title={a?.verdict.replace(/_/g, ' ')}>
      {a && a.verdict !== 'missing' ? <code>{json(a.actual)}</code> : <span className="muted">{a ? 'missing' : '–'}</span>}
    </td>
  );
}
