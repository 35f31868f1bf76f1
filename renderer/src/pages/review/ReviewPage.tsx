import { useEffect, useState } from 'react';

import { CHECKLIST_ITEMS, parseChecklist, REVIEW_STATES } from '../../../../main/api/constants.js';
import { setStepRequest, setStepResponse } from '../../../../main/api/stepEdits.js';
import type { QuickFix } from './reviewStore.js';
import type { ReviewState } from '../../../../main/api/schemas.js';
import { Empty, Loading } from '../../components/Empty.js';
import { OneOf, verbatim } from '../../components/OneOf.js';
import { useShortcuts } from '../../components/shortcuts.js';
import { attempt, useNotices } from '../../notices.js';
import { getClient } from '../../client.js';
import { saveFile } from '../../components/download.js';
import { EditDiff } from './EditDiff.js';
import { selection, stepsInEdit, stepsOfSample, useReview } from './reviewStore.js';
import { SampleEditor } from './SampleEditor.js';
import { SpecExcerpt } from './SpecExcerpt.js';
import { StepsEditor } from './StepsEditor.js';
import './review.css';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
/** How many steps a revision's side holds (a multi-step sample's edit records them). */
const stepCount = (state: { fields?: Record<string, unknown> | undefined } | null): number | undefined => {
  const steps = state?.fields?.['steps'];
  return Array.isArray(steps) ? steps.length : undefined;
};

/**
 * A fix of one step of a multi-step sample, into the draft: on the step wherever the draft moved
 * it, refused in one line where the draft removed it or already changed what the fix replaces
 * (the fix was computed on the saved step).
 */
function applyStepFix(fix: QuickFix & { step: number }): void {
  const { detail, editSteps } = useReview.getState();
  const saved = stepsOfSample(detail?.sample)?.[fix.step];
  if (!saved) return;
  editSteps((steps, origins) => {
    const at = origins.indexOf(fix.step);
    const step = steps[at];
    if (!step) return { ok: false, reason: `step ${fix.step} is removed in your changes: its fix no longer applies` };
    const edited = !same(step.config, saved.config) ? 'request' : fix.response && !same(step.response, saved.response) ? 'response' : undefined;
    if (edited) return { ok: false, reason: `step ${at}'s ${edited} is edited in your changes, and the fix was made for the saved one: save them (f) or discard them (Esc) first` };
    const request = setStepRequest(steps, at, fix.config);
    const done = request.ok && fix.response ? setStepResponse(request.steps, at, fix.response) : request;
    return done.ok ? { ...done, note: fix.label.replace(/^step \d+: /, `step ${at}: `) } : done;
  });
}

const blurField = (): boolean => {
  const active = document.activeElement;
  if (active instanceof HTMLElement && active !== document.body && active.matches('input, textarea, select')) {
    active.blur();
    return true;
  }
  return false;
};

/**
 * The review queue: one sample at a time, keyboard first (Argilla's focus view is the bar).
 * A decision is stored with the paper's checklist and moves on to the next sample.
 */
export function ReviewPage(): React.JSX.Element {
  const s = useReview();
  useEffect(() => void useReview.getState().load(), []);
  // What the last export wrote, with the checks run again on it (issue 26 item 3).
  const [exported, setExported] = useState<string | undefined>();
  const applyFix = (fix: QuickFix | undefined): void => {
    const { detail, draft } = useReview.getState();
    if (!fix || !detail) return;
    if (fix.step !== undefined) return applyStepFix({ ...fix, step: fix.step });
    // A fix is computed on the stored sample; it replaces the draft rather than merging into it.
    if (draft) useReview.getState().setDraft(undefined);
    useReview.getState().setDraft({ task: detail.sample.task, config: fix.config, notes: [fix.label] });
  };
  const store = (): ReturnType<typeof useReview.getState> => useReview.getState();
  useShortcuts('Review', [
    { keys: 'a', description: 'accept and go to the next sample', run: () => void store().decide('accepted') },
    { keys: 'f', description: 'mark fixed: show the edit diff, then f or Enter saves it', run: () => onFixed() },
    { keys: 'r', description: 'reject and go to the next sample', run: () => void store().decide('rejected') },
    { keys: 'e', description: 'edit the task (Tab on to the request fields)', run: () => document.getElementById('review-task')?.focus() },
    { keys: 'x', description: 'apply the first one-click fix', run: () => applyFix(store().aid?.fixes[0]) },
    { keys: 'u', description: 'undo the last decision and go back to it', run: () => void store().undo() },
    { keys: 'j', description: 'next sample', run: () => void store().move(1) },
    { keys: 'k', description: 'previous sample', run: () => void store().move(-1) },
    { keys: '1', description: 'checklist: task unambiguous and solvable', run: () => store().toggleChecklist('unambiguous') },
    { keys: '2', description: 'checklist: config solves it', run: () => store().toggleChecklist('solves') },
    { keys: '3', description: 'checklist: arguments reflected both ways', run: () => store().toggleChecklist('reflected') },
    { keys: 'A', description: 'accept every sample of the queue still undecided (asks first)', run: () => store().setConfirm({ kind: 'bulk', state: 'accepted' }) },
    { keys: 'R', description: 'reject every sample of the queue still undecided (asks first)', run: () => store().setConfirm({ kind: 'bulk', state: 'rejected' }) },
    {
      keys: 'Escape',
      description: 'leave a field; else discard the draft',
      run: () => {
        if (!blurField()) store().setDraft(undefined);
      },
    },
  ]);

  const counts = Object.fromEntries(REVIEW_STATES.map((state) => [state, s.all.filter((x) => x.reviewState === state).length])) as Record<ReviewState, number>;
  const reviewed = s.all.length - counts.unreviewed;
  const apiCoverage = s.coverage?.apis.filter((a) => !s.filter.api || a.api === s.filter.api) ?? [];
  const sample = s.detail?.sample;
  const bulkCount = selection(s.queue, s.filter).length;
  const history = s.detail ? [...s.detail.revisions].reverse() : [];
  // A multi-step sample: its steps as edited; its findings about a step are shown on that step.
  const storedSteps = stepsOfSample(sample);
  const editing = stepsInEdit(s.detail, s.draft);
  const findings = (sample?.findings ?? []).map((f, i) => ({ f, i })).filter(({ f }) => !storedSteps || f.step === undefined);
  const onSteps = (sample?.findings.length ?? 0) - findings.length;

  return (
    <main className="page scroll review-page">
      <div className="toolbar review-toolbar">
        <select aria-label="Dataset" value={s.datasetId ?? ''} onChange={(e) => void s.selectDataset(Number(e.target.value))}>
          {s.datasets.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
        <OneOf label="Review" aria="Queue review state" any="all" options={REVIEW_STATES} text={verbatim} value={s.filter.reviewState === 'all' ? undefined : s.filter.reviewState} onChange={(state) => void s.setFilter({ reviewState: state ?? 'all' })} />
        <OneOf label="API" aria="Queue API" any="all" options={s.coverage?.apis.map((a) => a.api) ?? []} text={verbatim} value={s.filter.api || undefined} onChange={(api) => void s.setFilter({ api: api ?? '' })} />
        <label>
          Endpoint
          <select aria-label="Queue endpoint" value={s.filter.endpoint} onChange={(e) => void s.setFilter({ endpoint: e.target.value })}>
            <option value="">all</option>
            {apiCoverage.flatMap((a) =>
              a.endpoints
                .filter((ep) => ep.samples > 0)
                .map((ep) => (
                  <option key={`${a.api} ${ep.key}`} value={ep.key}>
                    {ep.key} ({ep.samples})
                  </option>
                )),
            )}
          </select>
        </label>
        <label>
          <input type="checkbox" aria-label="Synthesized only" checked={s.filter.synthesizedOnly} onChange={(e) => void s.setFilter({ synthesizedOnly: e.target.checked })} /> synthesized only
        </label>
        <span className="spacer" />
        <button className="secondary" disabled={counts.accepted + counts.fixed === 0} onClick={() => void exportReviewed().then(setExported)} title="The dataset's accepted and fixed samples, in WAPIIBench's flat format, each with its index; the checks run again on what is written">
          Export accepted + fixed
        </button>
        {exported && (
          <span className="muted" data-testid="export-checks">
            {exported}
          </span>
        )}
        <button className="secondary" disabled={bulkCount === 0} onClick={() => s.setConfirm({ kind: 'bulk', state: 'accepted' })} title="A (shift+a): every sample of the queue still in its review state">
          Accept all {bulkCount}…
        </button>
        <button className="secondary" disabled={bulkCount === 0} onClick={() => s.setConfirm({ kind: 'bulk', state: 'rejected' })} title="R (shift+r): every sample of the queue still in its review state">
          Reject all {bulkCount}…
        </button>
      </div>
      <div className="review-progress" data-testid="review-progress">
        <div className="bar" aria-hidden>
          {(['accepted', 'fixed', 'rejected'] as const).map((state) => (
            <span key={state} className={`seg ${state}`} style={{ width: `${s.all.length ? (100 * counts[state]) / s.all.length : 0}%` }} />
          ))}
        </div>
        {s.loaded && (
          <span>
            <strong>
              {reviewed} of {s.all.length}
            </strong>{' '}
            reviewed · {counts.accepted} accepted · {counts.fixed} fixed · {counts.rejected} rejected · {counts.unreviewed} unreviewed
          </span>
        )}
        {s.loaded && s.queue.length > 0 && (
          <span className="muted" data-testid="queue-position">
            sample {s.index + 1} of {s.queue.length} in the queue
          </span>
        )}
      </div>

      {!s.loaded ? (
        <Loading what="the review queue" />
      ) : s.queue.length === 0 && !s.busy ? (
        <Empty title="Nothing to review" testId="review-empty">
          No sample matches this queue. Choose another review state above, or synthesize samples for uncovered endpoints on the Datasets page.
        </Empty>
      ) : (
        sample && (
          <div className="review-focus" data-testid="review-focus" data-sample-id={sample.id}>
            <section className="review-main">
              <header className="review-head">
                <h2>
                  #{sample.position} <span className="muted">{sample.api}</span> <span className={`state ${sample.reviewState}`}>{sample.reviewState}</span>
                </h2>
                {sample.provenance && (
                  <span className="muted small" title={`prompt ${sample.provenance.promptHash}`}>
                    synthesized by {sample.provenance.provider} {sample.provenance.model} (job {sample.provenance.jobId}) · ground truth {sample.provenance.groundTruth.verdict}
                  </span>
                )}
              </header>
              {s.aid && s.aid.nearDuplicates.length > 0 && (
                <div className="notice" data-testid="near-duplicate">
                  Near duplicate: {s.aid.nearDuplicates.map((d) => `#${d.position} (${Math.round(d.similarity * 100)}% of words shared)`).join(', ')} asks the same endpoint with nearly the same task: “{s.aid.nearDuplicates[0]!.task}”
                </div>
              )}
              <SampleEditor key={sample.id} base={{ task: sample.task, config: sample.config, steps: storedSteps }} draft={s.draft} onDraft={s.setDraft} />
              {editing && (
                <StepsEditor
                  steps={editing.steps}
                  origins={editing.origins}
                  saved={storedSteps ?? []}
                  findings={sample.findings}
                  fixes={s.aid?.fixes ?? []}
                  firstFix={s.aid?.fixes[0]}
                  refusal={s.stepRefusal}
                  onEdit={(edit) => void s.editSteps(edit)}
                  onFix={applyFix}
                />
              )}
              <h3>Check findings</h3>
              {sample.findings.length === 0 ? (
                <p className="ok">No findings: {storedSteps ? 'every step agrees with the spec, and every carried value with the response it comes from' : 'the request agrees with the spec'}.</p>
              ) : findings.length === 0 ? (
                <p className="muted" data-testid="review-findings-on-steps">
                  {onSteps} finding{onSteps === 1 ? '' : 's'}, each shown on its step above.
                </p>
              ) : (
                <ul className="findings" data-testid="review-findings">
                  {findings.map(({ f, i }) => {
                    const fixes = s.aid?.fixes.filter((x) => x.finding === i) ?? [];
                    return (
                      <li key={i} className={`finding ${f.rule}`}>
                        <span className="rule">{f.rule}</span> {f.message}
                        {fixes.map((fix) => (
                          <button key={fix.label} className="fix" onClick={() => applyFix(fix)} title={fix === s.aid?.fixes[0] ? 'x' : undefined}>
                            {fix === s.aid?.fixes[0] && <kbd>x</kbd>} {fix.label}
                          </button>
                        ))}
                      </li>
                    );
                  })}
                </ul>
              )}
              {s.draft && (
                <>
                  <h3>Your changes</h3>
                  <EditDiff before={{ ...sample, steps: storedSteps }} after={s.draft} />
                </>
              )}
              <h3>Checklist</h3>
              <div className="checklist" role="group" aria-label="Checklist">
                {CHECKLIST_ITEMS.map(([key, label], i) => (
                  <label key={key}>
                    <input type="checkbox" checked={s.checklist[key]} onChange={() => s.toggleChecklist(key)} /> <kbd>{i + 1}</kbd> {label}
                  </label>
                ))}
              </div>
              <div className="row decision">
                <button onClick={() => void s.decide('accepted')} disabled={!!s.draft}>
                  <kbd>a</kbd> Accept
                </button>
                <button onClick={onFixed} disabled={!s.draft}>
                  <kbd>f</kbd> Fixed
                </button>
                <button className="danger" onClick={() => void s.decide('rejected')} disabled={!!s.draft}>
                  <kbd>r</kbd> Reject
                </button>
                <button className="secondary" onClick={() => void s.undo()}>
                  <kbd>u</kbd> Undo
                </button>
                <span className="muted small">
                  <kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>?</kbd> all keys
                </span>
              </div>
              {history.length > 0 && (
                <>
                  <h3>History</h3>
                  <ol className="history" data-testid="review-history">
                    {history.map((r) => {
                      const checklist = parseChecklist(r.reason);
                      return (
                        <li key={r.id} className={r.undone ? 'undone' : undefined}>
                          <span className="muted">{r.at.replace('T', ' ').slice(0, 19)}</span> {r.author}: {r.reason.replace(/\s*\[checklist: [^\]]*\]/, '')} → {r.after.reviewState}
                          {stepCount(r.before) !== undefined && stepCount(r.before) !== stepCount(r.after) && (
                            <span className="muted">
                              {' '}
                              · steps {stepCount(r.before)} → {stepCount(r.after)}
                            </span>
                          )}
                          {checklist && <span className="muted"> · checklist {CHECKLIST_ITEMS.map(([k]) => (checklist[k] ? '✓' : '✗')).join('')}</span>}
                          {r.undone && ' (undone)'}
                        </li>
                      );
                    })}
                  </ol>
                </>
              )}
            </section>
            <aside className="review-spec">
              {s.aid?.stepExcerpts ? (
                s.aid.stepExcerpts.map((excerpt, i) => (
                  <div key={i} className="step-spec" data-testid={`step-${i}-spec`}>
                    <h3>Spec · step {i}</h3>
                    <SpecExcerpt excerpt={excerpt} />
                  </div>
                ))
              ) : (
                <>
                  <h3>Spec</h3>
                  <SpecExcerpt excerpt={s.aid?.excerpt} />
                </>
              )}
            </aside>
          </div>
        )
      )}
      {s.confirm && <ConfirmDialog />}
    </main>
  );
}

/** Saves the accepted and fixed samples; says how many it wrote and how many of them the spec checks flag. */
async function exportReviewed(): Promise<string | undefined> {
  const { datasetId } = useReview.getState();
  if (datasetId === undefined) return undefined;
  const out = await attempt(() => getClient().exportDataset({ datasetId, format: 'flat', reviewStates: ['accepted', 'fixed'] }));
  if (!out) return undefined;
  for (const [file, content] of Object.entries(out.files)) saveFile(file.replace(/\.json$/, '-accepted-fixed.json'), content, 'application/json');
  const { samples, flagged, recomputed } = out.checks;
  return `exported ${samples} sample${samples === 1 ? '' : 's'}: ${flagged} flagged by the spec checks${recomputed > 0 ? `, ${recomputed} with their checks recomputed` : ''}`;
}

function onFixed(): void {
  const { draft, confirm, setConfirm, saveFixed } = useReview.getState();
  if (!draft) {
    useNotices.getState().showError('nothing changed yet: edit the sample (e) or apply a one-click fix (x), then press f');
    return;
  }
  if (confirm?.kind === 'fixed') void saveFixed();
  else setConfirm({ kind: 'fixed' });
}

function onConfirm(): void {
  const { confirm, saveFixed, bulk } = useReview.getState();
  if (!confirm) return;
  if (confirm.kind === 'fixed') void saveFixed();
  else void bulk(confirm.state);
}

function ConfirmDialog(): React.JSX.Element | null {
  const { confirm, detail, draft, queue, filter, setConfirm } = useReview();
  const count = selection(queue, filter).length;
  const close = (): void => setConfirm(undefined);
  useShortcuts('Question', [
    { keys: 'Enter', description: 'confirm', run: onConfirm },
    { keys: 'Escape', description: 'cancel', run: close },
  ]);
  return (
    <div className="dialog-backdrop" role="dialog" aria-label={confirm?.kind === 'fixed' ? 'Confirm the fix' : 'Confirm the bulk decision'} onClick={close}>
      <div className="dialog wide" onClick={(e) => e.stopPropagation()}>
        {!confirm ? null : confirm.kind === 'fixed' && detail && draft ? (
          <>
            <h2>Mark #{detail.sample.position} fixed with these changes?</h2>
            <EditDiff before={{ ...detail.sample, steps: stepsOfSample(detail.sample) }} after={draft} />
            <p className="muted small">Reason recorded: fixed: {draft.notes.join('; ') || 'edited'}</p>
          </>
        ) : (
          confirm.kind === 'bulk' && (
            <>
              <h2>
                {confirm.state === 'accepted' ? 'Accept' : 'Reject'} all {count} samples of the queue?
              </h2>
              <p>
                The queue: review state {filter.reviewState}
                {filter.api && `, API ${filter.api}`}
                {filter.endpoint && `, endpoint ${filter.endpoint}`}
                {filter.synthesizedOnly && ', synthesized only'}
                {filter.reviewState !== 'all' && `; the ${queue.length - count} decided since are left as they are`}. Each sample gets a revision; <kbd>u</kbd> does not undo a bulk decision, the Datasets page undoes one sample at a time.
              </p>
            </>
          )
        )}
        <div className="row">
          <button onClick={onConfirm} disabled={!confirm}>
            <kbd>↵</kbd> {confirm?.kind === 'fixed' ? 'Save as fixed' : confirm?.state === 'accepted' ? 'Accept all' : 'Reject all'}
          </button>
          <button className="secondary" onClick={close}>
            <kbd>Esc</kbd> Cancel
          </button>
        </div>
      </div>
    </div>
  );
}
