import { useEffect, useState } from 'react';
import { SAMPLE_VERDICTS, type SampleVerdict } from '../../api.js';
import { CodeView } from '../../components/CodeView.js';
import { Loading } from '../../components/Empty.js';
import { RequestDiff } from '../../components/RequestDiff.js';
import { TokenTrace } from '../../components/TokenTrace.js';
import { Verdict } from '../../components/Verdict.js';
import { when } from '../../format.js';
import { RepairRounds } from './RepairRounds.js';
import { StepTimeline } from './StepTimeline.js';
import { useRunPage } from './runPageStore.js';
import { pageWording } from './errorWording.js';

/**
 * One sample of a run: the task, the generated code with the extracted call, the expected vs
 * captured request field by field (a multi-step sample's steps as a timeline), the token trace of a constrained run, console and runtime
 * error, the prompt, and the verdict override.
 */
export function SampleInspector(): React.JSX.Element | null {
  const open = useRunPage((s) => s.open);
  const detail = useRunPage((s) => s.detail);
  const loading = useRunPage((s) => s.loadingDetail);
  const openSample = useRunPage((s) => s.openSample);
  const position = useRunPage((s) => (s.open ? s.rows.findIndex((r) => r.index === s.open!.index && r.attempt === s.open!.attempt) : -1));
  const count = useRunPage((s) => s.rows.length);
  const setting = useRunPage((s) => s.run?.setting);
  if (!open) return null;
  if (!detail || detail.index !== open.index || detail.attempt !== open.attempt)
    return <aside className="detail inspector">{loading ? <Loading what={`sample ${open.index}`} /> : null}</aside>;
  const d = detail;
  const shownVerdict = d.sample_verdict === 'nonexecutable' && d.error_verdict ? `nonexecutable (${d.error_verdict})` : d.sample_verdict;
  return (
    <aside className="detail inspector" data-testid="sample-inspector">
      <header>
        <h2>
          #{d.index}
          {d.attempt > 0 && `.${d.attempt}`} <span className="muted">{d.api}</span> <Verdict value={d.error ? 'failed' : shownVerdict} />
          {d.overridden && <span className="badge flagged">overridden</span>}
        </h2>
        <span className="muted">{position >= 0 && `${position + 1} of ${count} · j/k`}</span>
        <button className="link" onClick={() => void openSample(undefined)} aria-label="Close sample">
          ✕
        </button>
      </header>
      <p className="task">{d.task}</p>
      {d.failures.length > 0 && (
        <p className="failure-list" data-testid="sample-failures">
          <span className="muted">Failure classes: </span>
          {d.failures.map((f) => (
            <span key={f} className="failure-chip">
              {f.replace(/_/g, ' ')}
            </span>
          ))}
        </p>
      )}
      {d.error && <p className="error-inline">Generation failed: {pageWording(d.error)}</p>}

      {d.timeline ? (
        <section>
          <h3>Steps: expected vs captured</h3>
          <StepTimeline timeline={d.timeline} />
        </section>
      ) : (
        <section>
          <h3>Request: expected vs captured</h3>
          <RequestDiff detail={d} />
        </section>
      )}

      <section>
        <h3>Generated code</h3>
        <p className="muted" data-testid="extraction">
          {'rule' in d.extraction && d.extraction.rule === 'whole program' ? (
            <>the whole program ran (a multi-step sample: nothing is cut); every request it sent was captured, in order</>
          ) : 'rule' in d.extraction ? (
            <>
              extracted call (highlighted) cut by the rule <code>{d.extraction.rule}</code>
              {d.extraction.runs && (
                <>
                  , run <code data-testid="extraction-runs">{d.extraction.runs}</code>
                  {d.extraction.runs === 'call-alone' ? ' (the call alone after the import: the code around it did not parse as a program)' : d.extraction.runs === 'own-starter' ? " (after the sample's imports and definitions, as upstream's real-world pipeline runs it)" : ''}
                </>
              )}
            </>
          ) : (
            <>no call extracted: {d.extraction.error}</>
          )}
        </p>
        <CodeView code={d.code} highlight={d.callRange} label="generated code" />
      </section>

      {d.generation?.repair && d.generation.repair.length > 0 && (
        <section>
          <h3>Repair rounds ({d.generation.repair.length})</h3>
          <RepairRounds rounds={d.generation.repair} />
        </section>
      )}

      {d.generation && (setting === 'constrained' || d.generation.interventions.length > 0) && (
        <section>
          <h3>Token trace</h3>
          <TokenTrace generation={d.generation} />
        </section>
      )}
      {d.generation && setting !== 'constrained' && d.generation.interventions.length === 0 && (
        <p className="muted">
          {d.generation.tokens} tokens · stop: {d.generation.stop} · {Math.round(d.generation.generateMs)} ms (unconstrained: nothing overruled)
        </p>
      )}

      {(d.console.length > 0 || d.runtimeError) && (
        <section>
          <h3>Console and runtime error</h3>
          {d.console.length > 0 && <pre className="console">{d.console.join('\n')}</pre>}
          {d.runtimeError && <p className="error-inline" data-testid="runtime-error">{d.runtimeError}</p>}
        </section>
      )}

      <section>
        <h3>Verdict override</h3>
        <OverrideForm key={`${d.index}:${d.attempt}`} current={d.sample_verdict} overridden={d.overridden} />
        {d.overrides.length > 0 && (
          <ol className="history" data-testid="override-history">
            {[...d.overrides].reverse().map((o, i) => (
              <li key={i}>
                <span className="muted">{when(o.at)}</span> {o.author}: {o.from} → {o.to ?? 'scorer’s verdict restored'} — {o.reason}
              </li>
            ))}
          </ol>
        )}
      </section>

      {d.prompt && (
        <details>
          <summary>Prompt</summary>
          <pre className="config">{d.prompt}</pre>
        </details>
      )}
      {d.rawOutput !== null && d.rawOutput !== d.code && (
        <details>
          <summary>Raw model output</summary>
          <pre className="config">{d.rawOutput}</pre>
        </details>
      )}
    </aside>
  );
}

function OverrideForm({ current, overridden }: { current: SampleVerdict | null; overridden: boolean }): React.JSX.Element {
  const override = useRunPage((s) => s.override);
  const [verdict, setVerdict] = useState<SampleVerdict | ''>('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => setVerdict(''), [current]);
  const submit = async (to: SampleVerdict | null): Promise<void> => {
    setBusy(true);
    if (await override(to, reason.trim())) setReason('');
    setBusy(false);
  };
  return (
    <div className="override">
      <div className="row">
        <select aria-label="Override verdict" value={verdict} onChange={(e) => setVerdict(e.target.value as SampleVerdict | '')}>
          <option value="">set the verdict to…</option>
          {SAMPLE_VERDICTS.filter((v) => v !== current).map((v) => (
            <option key={v} value={v}>
              {v}
            </option>
          ))}
        </select>
        <input aria-label="Override reason" placeholder="Why? (kept in the history, required)" value={reason} onChange={(e) => setReason(e.target.value)} />
      </div>
      <div className="row">
        <button disabled={!verdict || reason.trim() === '' || busy} onClick={() => verdict && void submit(verdict)}>
          Override
        </button>
        {overridden && (
          <button className="secondary" disabled={reason.trim() === '' || busy} onClick={() => void submit(null)} title="give a reason, then restore">
            Restore the scorer’s verdict
          </button>
        )}
      </div>
    </div>
  );
}
