import { useEffect, useState } from 'react';
import type { JsonValue, RequestConfig, SampleStep } from '../../../../main/api/schemas.js';
import { parseRequestText } from '../../components/requestText.js';
import type { Draft } from './reviewStore.js';

const LOCATIONS = [
  ['headers', 'Headers'],
  ['params', 'Query'],
  ['data', 'Body'],
] as const;
type Location = (typeof LOCATIONS)[number][0];

const isRecord = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A field's text read back: JSON when it parses (`0`, `true`, `"0"`), else the text as a string. */
function readLiteral(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * The sample as form fields (task, URL, method, one field per argument and location, values as
 * JSON literals so `"0"` and `0` stay apart) and as JSON; both edit the same draft. Fields commit
 * on blur or Enter, so the page's keys act on what the reviewer typed. A multi-step sample's
 * requests are its steps (StepsEditor): here only its task.
 */
export function SampleEditor({ base, draft, onDraft }: { base: { task: string; config: RequestConfig; steps?: SampleStep[] | undefined }; draft: Draft | undefined; onDraft: (d: Draft | undefined) => void }): React.JSX.Element {
  const { steps: baseSteps, ...single } = base;
  const current: Draft = draft ?? { ...single, notes: [] };
  const update = (patch: Partial<Omit<Draft, 'notes'>>, note = 'edited'): void => {
    const next = { ...current, ...patch };
    if (same(next.task, base.task) && same(next.config, base.config) && same(next.steps ?? baseSteps, baseSteps)) return onDraft(undefined);
    onDraft({ ...next, notes: current.notes.includes(note) ? current.notes : [...current.notes, note] });
  };
  const setArgument = (location: Location, key: string, value: JsonValue | undefined): void => {
    const args = isRecord(current.config[location]) ? { ...(current.config[location] as Record<string, JsonValue>) } : {};
    if (value === undefined) delete args[key];
    else args[key] = value;
    const config: RequestConfig = { ...current.config, [location]: args };
    if (Object.keys(args).length === 0) delete config[location];
    update({ config });
  };
  const json = JSON.stringify(current.config, null, 2);
  const [text, setText] = useState(json);
  // The JSON follows form edits and fixes, but not while what is typed already says the same.
  useEffect(() => setText((t) => (same(parseRequestText(t).config, current.config) ? t : json)), [json, current.config]);
  const parsed = parseRequestText(text);
  const commitOnEnter = (e: React.KeyboardEvent<HTMLInputElement>): void => {
    if (e.key === 'Enter') e.currentTarget.blur();
  };

  return (
    <div className="sample-editor">
      <label className="field">
        <span>Task</span>
        <textarea
          key={current.task}
          id="review-task"
          aria-label="Task"
          defaultValue={current.task}
          rows={2}
          onBlur={(e) => {
            if (e.target.value.trim() && e.target.value !== current.task) update({ task: e.target.value });
          }}
        />
      </label>
      {!baseSteps && (
        <>
          <div className="request-line">
            <input
              key={`m:${current.config.method}`}
              aria-label="Method"
              className="method"
              defaultValue={current.config.method.toUpperCase()}
              onKeyDown={commitOnEnter}
              onBlur={(e) => {
                const method = e.target.value.trim().toLowerCase();
                if (method && method !== current.config.method.toLowerCase()) update({ config: { ...current.config, method } });
              }}
            />
            <input
              key={`u:${current.config.url}`}
              aria-label="URL"
              className="url"
              defaultValue={current.config.url}
              onKeyDown={commitOnEnter}
              onBlur={(e) => {
                if (e.target.value.trim() && e.target.value !== current.config.url) update({ config: { ...current.config, url: e.target.value.trim() } });
              }}
            />
          </div>
          {LOCATIONS.map(([location, label]) => {
            const args = current.config[location];
            if (args === undefined) return null;
            if (!isRecord(args))
              return (
                <p key={location} className="muted">
                  {label}: {JSON.stringify(args)} (edit it as JSON below)
                </p>
              );
            return (
              <fieldset key={location} className="arguments">
                <legend>{label}</legend>
                {Object.entries(args).map(([key, value]) => (
                  <div key={key} className="argument">
                    <code>{key}</code>
                    <input
                      key={JSON.stringify(value)}
                      aria-label={`${location}.${key}`}
                      className={value === '' ? 'to-fill' : undefined}
                      placeholder="fill in"
                      defaultValue={value === '' ? '' : JSON.stringify(value)}
                      onKeyDown={commitOnEnter}
                      onBlur={(e) => {
                        const next = e.target.value === '' ? '' : readLiteral(e.target.value);
                        if (!same(next, value)) setArgument(location, key, next);
                      }}
                    />
                    <button className="link" title={`remove ${key}`} aria-label={`remove ${location}.${key}`} onClick={() => setArgument(location, key, undefined)}>
                      ✕
                    </button>
                  </div>
                ))}
              </fieldset>
            );
          })}
          <details>
            <summary>As JSON</summary>
            <textarea
              className="config-editor"
              aria-label="Expected request JSON"
              value={text}
              rows={12}
              spellCheck={false}
              onChange={(e) => {
                setText(e.target.value);
                const next = parseRequestText(e.target.value).config;
                if (next && !same(next, current.config)) update({ config: next });
              }}
            />
            {parsed.error && <p className="error-inline">{parsed.error}</p>}
          </details>
        </>
      )}
    </div>
  );
}
