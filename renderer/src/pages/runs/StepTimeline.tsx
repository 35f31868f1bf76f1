import type { RunSampleDetail } from '../../api.js';
import { ArgumentsTable } from '../../components/RequestDiff.js';
import { Verdict } from '../../components/Verdict.js';
import { counted, json } from '../../format.js';
import './timeline.css';

type Timeline = NonNullable<RunSampleDetail['timeline']>;
type TimelineStep = Timeline['steps'][number];
type Extra = Timeline['extra'][number];
type Item = { kind: 'step'; step: TimelineStep; at: number } | { kind: 'extra'; extra: Extra };

/** A step's verdict as a badge reads it: `missing` when no captured request took it. */
export const stepVerdict = (s: Pick<TimelineStep, 'requestIndex' | 'verdict'>): string =>
  s.requestIndex === null ? 'missing' : s.verdict.sample_verdict === 'nonexecutable' && s.verdict.error_verdict ? `nonexecutable (${s.verdict.error_verdict})` : s.verdict.sample_verdict;

/** A value cut to one line for a summary. */
const short = (v: unknown, max = 90): string => {
  const text = json(v);
  return text.length > max ? `${text.slice(0, max)}…` : text;
};

/**
 * The steps in the order the program sent its requests: each step where its request came, a
 * request no step took where it came between them; a missing step stays in the steps' order.
 */
function ordered(timeline: Timeline): Item[] {
  const extras = [...timeline.extra].sort((a, b) => a.requestIndex - b.requestIndex);
  const items: Item[] = [];
  let next = 0;
  timeline.steps.forEach((step, at) => {
    if (step.requestIndex !== null) while (next < extras.length && extras[next]!.requestIndex < step.requestIndex) items.push({ kind: 'extra', extra: extras[next++]! });
    items.push({ kind: 'step', step, at });
  });
  while (next < extras.length) items.push({ kind: 'extra', extra: extras[next++]! });
  return items;
}

/**
 * A multi-step output (scoring.md §7) as a timeline: per step the expected request beside the
 * captured one it took, argument by argument, the stubbed response the step answers with, and
 * its carried values (what the earlier response held, what the program sent); a step no request
 * took is marked missing; requests no step took are marked extra, a mutating one standing out.
 */
export function StepTimeline({ timeline }: { timeline: Timeline }): React.JSX.Element {
  const c = timeline.counts;
  const mutating = timeline.extra.filter((e) => e.mutating).length;
  return (
    <div className="step-timeline" data-testid="step-timeline">
      <p className="timeline-summary" data-testid="timeline-summary">
        <strong>
          {c.steps_correct} of {c.steps_total} steps correct
        </strong>
        {c.steps_missing > 0 && <> · {c.steps_missing} missing</>}
        {c.extra_requests > 0 && (
          <>
            {' '}
            · {counted(c.extra_requests, 'extra request')}
            {mutating > 0 && <span className="mutating-count"> ({mutating} mutating)</span>}
          </>
        )}
        {c.carried_total > 0 && (
          <>
            {' '}
            · carried values {c.carried_correct}/{c.carried_total} sent as the response held them
          </>
        )}
        {' '}· first failed step: {c.first_failed_step ?? 'none'}
      </p>
      <ol className="timeline">
        {ordered(timeline).map((item) =>
          item.kind === 'step' ? (
            <StepCard key={`s${item.at}`} step={item.step} at={item.at} firstFailed={c.first_failed_step === item.at} />
          ) : (
            <ExtraCard key={`x${item.extra.requestIndex}`} extra={item.extra} />
          ),
        )}
      </ol>
    </div>
  );
}

function StepCard({ step, at, firstFailed }: { step: TimelineStep; at: number; firstFailed: boolean }): React.JSX.Element {
  const verdict = stepVerdict(step);
  const kind = verdict.startsWith('nonexecutable') ? 'nonexecutable' : verdict;
  const { expected, request } = step;
  // An argument a carried value fills is marked in the table too (`data.channel`; a nested path marks its top key).
  const marks = Object.fromEntries(
    step.carried.map((c) => {
      const [location, key] = c.where.split('.');
      return [`${location}.${key}`, <CarriedTag key={c.where} ok={c.correct} />];
    }),
  );
  return (
    <li className={`timeline-card step-card step-${kind}`} data-testid="timeline-step" data-step={at} data-verdict={kind}>
      <header>
        <span className="step-no">step {at}</span>
        <code className="step-endpoint">{step.endpoint ?? `${expected.method.toUpperCase()} ${expected.url}`}</code>
        <Verdict value={verdict} />
        {firstFailed && <span className="badge first-failed">first failed</span>}
        <span className="spacer" />
        <span className="muted request-no">{request ? `request #${step.requestIndex}` : 'no request took it'}</span>
      </header>
      <table className="grid step-request">
        <thead>
          <tr>
            <th />
            <th>expected</th>
            <th>captured</th>
          </tr>
        </thead>
        <tbody>
          <tr className={`part-${step.verdict.url_verdict ?? 'none'}`}>
            <th>URL</th>
            <td>
              <code>{expected.url}</code>
            </td>
            <td>{request ? <code>{request.url}</code> : <span className="muted">missing: the program sent no request for this step</span>}</td>
          </tr>
          <tr className={`part-${step.verdict.method_verdict ?? 'none'}`}>
            <th>method</th>
            <td>
              <code>{expected.method.toUpperCase()}</code>
            </td>
            <td>{request ? <code>{request.method.toUpperCase()}</code> : <span className="muted">–</span>}</td>
          </tr>
        </tbody>
      </table>
      {step.carried.length > 0 && (
        <ul className="carried-values">
          {step.carried.map((c) => (
            <li key={c.where} className={c.correct ? 'carried-ok' : 'carried-not'} data-testid="carried-value" data-correct={String(c.correct)}>
              <CarriedTag ok={c.correct} /> <code>{c.where}</code> ← step {c.source.split(':')[0]}’s response at <code>{c.source.slice(c.source.indexOf(':') + 1)}</code>: held <code className="held">{short(c.held)}</code>,{' '}
              {request ? (
                <>
                  sent <code className="sent">{c.sent === null ? 'nothing' : short(c.sent)}</code>
                </>
              ) : (
                'nothing sent (the step is missing)'
              )}
            </li>
          ))}
        </ul>
      )}
      <ArgumentsTable args={step.arguments} marks={marks} />
      <details className="stub">
        <summary>
          stubbed response <span className={`status-code s${String(step.response.status)[0]}xx`}>{step.response.status}</span>
          {!request && <span className="muted"> never sent: no request took the step</span>}
          {step.response.data !== undefined && <code className="stub-preview">{short(step.response.data, 70)}</code>}
        </summary>
        <pre className="config">{JSON.stringify(step.response.data ?? null, null, 2)}</pre>
        {step.response.headers && <pre className="config">{JSON.stringify(step.response.headers, null, 2)}</pre>}
      </details>
    </li>
  );
}

function CarriedTag({ ok }: { ok: boolean }): React.JSX.Element {
  return (
    <span className={`carried-tag ${ok ? 'ok' : 'not'}`} title={ok ? 'carried: sent as the earlier response held it' : 'carried: not sent as the earlier response held it'}>
      {ok ? '✓ carried' : '✗ carried'}
    </span>
  );
}

function ExtraCard({ extra }: { extra: Extra }): React.JSX.Element {
  const { request } = extra;
  const sent = request.data !== undefined ? request.data : Object.keys(request.params).length > 0 ? request.params : undefined;
  return (
    <li className={`timeline-card extra-card${extra.mutating ? ' mutating' : ''}`} data-testid="timeline-extra" data-mutating={String(extra.mutating)}>
      <header>
        <span className="step-no">extra</span>
        <code className="step-endpoint">
          {request.method.toUpperCase()} {request.url}
        </code>
        <span className={`badge ${extra.mutating ? 'extra-mutating' : 'extra-read'}`} title={extra.mutating ? 'a request no step took that changes state (not GET or HEAD): the sample cannot be correct' : 'a read no step took: allowed, it does not make the sample wrong'}>
          {extra.mutating ? 'extra · mutating' : 'extra · read'}
        </span>
        <span className="spacer" />
        <span className="muted request-no">request #{extra.requestIndex}</span>
      </header>
      {sent !== undefined && (
        <p className="extra-sent">
          <span className="muted">{request.data !== undefined ? 'body' : 'query'}</span> <code className="json-value">{short(sent, 200)}</code>
        </p>
      )}
    </li>
  );
}
