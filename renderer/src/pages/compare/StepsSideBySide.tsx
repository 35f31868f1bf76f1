import { Fragment } from 'react';
import type { RunSampleDetail, RunSummary } from '../../api.js';
import { LOCATION_LABELS } from '../../api.js';
import { Verdict } from '../../components/Verdict.js';
import { ArgumentCell, SideBySideHead, VerdictRow } from './SideBySide.js';
import { json } from '../../format.js';
import { stepVerdict } from '../runs/StepTimeline.js';
import '../runs/timeline.css';

type Timeline = NonNullable<RunSampleDetail['timeline']>;

/**
 * One multi-step sample in every run, step by step (scoring.md §7): per step the expected request
 * and each run's step verdict with the request it took, then the step's arguments and carried
 * values run by run; last, each run's requests no step took.
 */
export function StepsSideBySide({ runs, details }: { runs: readonly RunSummary[]; details: readonly (RunSampleDetail | undefined)[] }): React.JSX.Element {
  const timelines = details.map((d) => d?.timeline ?? undefined);
  const reference = timelines.find((t): t is Timeline => t !== undefined)!;
  const stepsCount = Math.max(...timelines.map((t) => t?.steps.length ?? 0));
  return (
    <table className="grid side-by-side steps-side-by-side" data-testid="compare-steps">
      <SideBySideHead runs={runs} />
      <tbody>
        <VerdictRow details={details} />
        {Array.from({ length: stepsCount }, (_, s) => {
          const expected = reference.steps[s] ?? timelines.find((t) => t?.steps[s])?.steps[s];
          const keys = new Map<string, { location: string; key: string; expected: unknown }>();
          for (const t of timelines) for (const a of t?.steps[s]?.arguments ?? []) if (!keys.has(`${a.location}.${a.key}`)) keys.set(`${a.location}.${a.key}`, { location: a.location, key: a.key, expected: a.expected });
          const carried = expected?.carried.map((c) => c.where) ?? [];
          return (
            <Fragment key={s}>
              <tr className="step-head" data-step={s}>
                <th>step {s}</th>
                <td>
                  <code>{expected ? (expected.endpoint ?? `${expected.expected.method.toUpperCase()} ${expected.expected.url}`) : ''}</code>
                </td>
                {timelines.map((t, i) => {
                  const step = t?.steps[s];
                  return (
                    <td key={i} className={step?.request ? `part-${step.verdict.url_verdict ?? 'none'}` : undefined}>
                      {step ? <Verdict value={stepVerdict(step)} /> : <span className="muted">–</span>}
                      {step?.request && (
                        <div>
                          <code>
                            {step.request.method.toUpperCase()} {step.request.url}
                          </code>
                        </div>
                      )}
                    </td>
                  );
                })}
              </tr>
              {[...keys.values()].map((k) => (
                <tr key={`${k.location}.${k.key}`}>
                  <th>
                    <span className="muted">{LOCATION_LABELS[k.location] ?? k.location}</span> <code>{k.key}</code>
                    {carried.some((w) => w === `${k.location}.${k.key}` || w.startsWith(`${k.location}.${k.key}.`)) && <span className="carried-tag plain">carried</span>}
                  </th>
                  <td>
                    <code>{k.expected === null ? '' : json(k.expected)}</code>
                  </td>
                  {timelines.map((t, i) => {
                    return <ArgumentCell key={i} argument={t?.steps[s]?.arguments.find((x) => x.location === k.location && x.key === k.key)} />;
                  })}
                </tr>
              ))}
            </Fragment>
          );
        })}
        <tr>
          <th>extra requests</th>
          <td />
          {timelines.map((t, i) => {
            const mutating = t?.extra.filter((e) => e.mutating).length ?? 0;
            return (
              <td key={i} className={mutating > 0 ? 'part-illegal' : undefined}>
                {t ? (
                  t.extra.length === 0 ? (
                    <span className="muted">none</span>
                  ) : (
                    <>
                      {t.extra.length}
                      {mutating > 0 && <span className="regressed"> ({mutating} mutating)</span>}
                      {t.extra.map((e) => (
                        <div key={e.requestIndex}>
                          <code>
                            {e.request.method.toUpperCase()} {e.request.url}
                          </code>
                        </div>
                      ))}
                    </>
                  )
                ) : (
                  <span className="muted">–</span>
                )}
              </td>
            );
          })}
        </tr>
      </tbody>
    </table>
  );
}
