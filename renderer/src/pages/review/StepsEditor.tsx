import { useEffect, useState } from 'react';
import { addStep, carriedSource, dropCarried, moveStep, removeStep, setStepRequest, setStepResponse, valueAtPointer, type StepEdit } from '../../../../main/api/stepEdits.js';
import type { Finding, JsonValue, SampleStep } from '../../../../main/api/schemas.js';
import { parseRequestText } from '../../components/requestText.js';
import type { QuickFix } from './reviewStore.js';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const pretty = (value: unknown): string => JSON.stringify(value, null, 2) ?? '';
const rowsOf = (text: string): number => Math.min(14, Math.max(4, text.split('\n').length));

/** A request edited as JSON text, read back (the shape only; the service checks it against the spec). */
function readRequest(text: string): { value?: SampleStep['config'] | undefined; error?: string } {
  const { config, error } = parseRequestText(text);
  return error !== undefined ? { error } : { value: config };
}

/** A response body edited as JSON text: the value, or a one-line reason it is not JSON (empty: no body). */
function parseBody(text: string): { value?: JsonValue | undefined; error?: string } {
  if (text.trim() === '') return { value: undefined };
  try {
    return { value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { error: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * A JSON text field over a value: what is typed is kept while it says the same as the value (or
 * does not parse yet); a change from elsewhere (a fix, a move) replaces it. Each keystroke that
 * parses to a different value is an edit.
 */
function JsonField<T>({ label, value, read, onValue, testId }: { label: string; value: T; read: (text: string) => { value?: T | undefined; error?: string }; onValue: (value: T | undefined) => void; testId?: string }): React.JSX.Element {
  const json = value === undefined ? '' : pretty(value);
  const [text, setText] = useState(json);
  useEffect(() => setText((t) => (!read(t).error && same(read(t).value, value) ? t : json)), [json]);
  const error = read(text).error;
  return (
    <>
      <textarea
        className="config-editor step-json"
        aria-label={label}
        data-testid={testId}
        value={text}
        rows={rowsOf(text)}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          const next = read(e.target.value);
          if (!next.error && !same(next.value, value)) onValue(next.value);
        }}
      />
      {error && <p className="error-inline">{error}</p>}
    </>
  );
}

export interface StepsEditorProps {
  /** The steps as edited (the draft's, else the stored ones), and the stored index each came from (null: added). */
  steps: SampleStep[];
  origins: (number | null)[];
  /** The steps as stored. */
  saved: readonly SampleStep[];
  /** The stored sample's findings and fixes: shown on the step they are about, wherever it moved. */
  findings: readonly Finding[];
  fixes: readonly QuickFix[];
  /** The fix `x` applies. */
  firstFix: QuickFix | undefined;
  /** The last edit's refusal, one line. */
  refusal: string | undefined;
  onEdit: (edit: (steps: SampleStep[], origins: (number | null)[]) => StepEdit) => void;
  onFix: (fix: QuickFix) => void;
}

/**
 * A multi-step sample's steps (scoring.md §7), in order: each step's request and its stubbed
 * response as JSON, its carried values, its findings with their one-click fixes; buttons add a
 * step (a copy of the last), remove one, or move one up or down. Every edit goes to the draft,
 * saved as one revision with the page's `f`; what cannot be done says why in one line.
 */
export function StepsEditor({ steps, origins, saved, findings, fixes, firstFix, refusal, onEdit, onFix }: StepsEditorProps): React.JSX.Element {
  const last = steps.length - 1;
  return (
    <section className="steps-editor" aria-label="Steps">
      <h3>
        Steps <span className="muted small">({steps.length} requests, in order; the last is the sample's config)</span>
      </h3>
      <ol className="steps" data-testid="review-steps">
        {steps.map((step, i) => {
          const origin = origins[i] ?? null;
          const own = origin === null ? [] : findings.map((f, index) => ({ f, index })).filter(({ f }) => f.step === origin);
          // Findings are the saved sample's: a step changed in the draft is checked again when saved.
          const changed = origin === null || !same(saved[origin], step);
          const stored = origin === null ? '(added)' : origin !== i ? `(was step ${origin})` : '';
          return (
            <li key={i} className="step" data-testid={`step-${i}`} aria-label={`Step ${i}`}>
              <header className="step-head">
                <span className="step-index">step {i}</span>
                <code className="step-method">{step.config.method.toUpperCase()}</code>
                <code className="step-url" title={step.config.url}>
                  {step.config.url}
                </code>
                {stored && <span className="muted small">{stored}</span>}
                <span className="spacer" />
                <button className="secondary small-button" aria-label={`Move step ${i} up`} title="move this step up" disabled={i === 0} onClick={() => onEdit((s) => moveStep(s, i, -1))}>
                  ↑
                </button>
                <button className="secondary small-button" aria-label={`Move step ${i} down`} title="move this step down" disabled={i === last} onClick={() => onEdit((s) => moveStep(s, i, 1))}>
                  ↓
                </button>
                <button className="secondary small-button" aria-label={`Remove step ${i}`} title="remove this step" onClick={() => onEdit((s) => removeStep(s, i))}>
                  ✕ Remove
                </button>
              </header>
              {own.length > 0 && (
                <ul className="findings step-findings" data-testid={`step-${i}-findings`}>
                  {own.map(({ f, index }) => (
                    <li key={index} className={`finding ${f.rule}`}>
                      <span className="rule">{f.rule}</span> {f.message.replace(/^step \d+: /, '')}
                      {fixes
                        .filter((x) => x.finding === index)
                        .map((fix) => (
                          <button key={fix.label} className="fix" onClick={() => onFix(fix)} title={fix === firstFix ? 'x' : undefined}>
                            {fix === firstFix && <kbd>x</kbd>} {fix.label.replace(/^step \d+: /, '')}
                          </button>
                        ))}
                    </li>
                  ))}
                  {changed && <li className="muted small">found on the saved step; your changes to it are checked when saved</li>}
                </ul>
              )}
              <div className="step-body">
                <div className="step-part">
                  <span className="step-label">Request</span>
                  <JsonField label={`Step ${i} request JSON`} value={step.config} read={readRequest} onValue={(config) => config && onEdit((s) => setStepRequest(s, i, config))} />
                </div>
                <div className="step-part">
                  <span className="step-label">
                    Response
                    <label className="step-status">
                      status
                      <input
                        key={step.response.status}
                        aria-label={`Step ${i} response status`}
                        type="number"
                        min={100}
                        max={599}
                        defaultValue={step.response.status}
                        onKeyDown={(e) => e.key === 'Enter' && e.currentTarget.blur()}
                        onBlur={(e) => {
                          const status = Number(e.target.value);
                          if (Number.isInteger(status) && status >= 100 && status <= 599 && status !== step.response.status) onEdit((s) => setStepResponse(s, i, { ...step.response, status }));
                          else e.target.value = String(step.response.status);
                        }}
                      />
                    </label>
                  </span>
                  <JsonField
                    label={`Step ${i} response body JSON`}
                    value={step.response.data}
                    read={parseBody}
                    onValue={(data) => {
                      const { data: _old, ...rest } = step.response;
                      onEdit((s) => setStepResponse(s, i, data === undefined ? rest : { ...rest, data }));
                    }}
                  />
                </div>
              </div>
              {step.carried && Object.keys(step.carried).length > 0 && (
                <div className="step-carried" data-testid={`step-${i}-carried`}>
                  <span className="step-label">Carried</span>
                  <ul>
                    {Object.entries(step.carried).map(([where, pointer]) => {
                      const { step: from, pointer: at } = carriedSource(pointer);
                      const held = from < i ? valueAtPointer(steps[from]?.response as unknown as JsonValue, at) : undefined;
                      return (
                        <li key={where}>
                          <code>{where}</code> ← step {from} <code>{at}</code>
                          <span className="muted"> = {held === undefined ? 'nothing there' : JSON.stringify(held)}</span>
                          <button className="link" aria-label={`drop step ${i}'s carried ${where}`} title="drop this carried value (the request keeps its value as a literal)" onClick={() => onEdit((s) => dropCarried(s, i, where))}>
                            ✕
                          </button>
                        </li>
                      );
                    })}
                  </ul>
                </div>
              )}
            </li>
          );
        })}
      </ol>
      <div className="row steps-actions">
        <button className="secondary" onClick={() => onEdit((s) => addStep(s))}>
          + Add a step <span className="muted small">(a copy of step {last})</span>
        </button>
        {refusal && (
          <span className="error-inline" role="alert" data-testid="steps-refusal">
            {refusal}
          </span>
        )}
      </div>
    </section>
  );
}
