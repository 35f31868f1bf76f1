import { create } from 'zustand';
import { defaultDatasetId, parseChecklist, type Checklist } from '../../../../main/api/constants.js';
import { sameSteps, type StepEdit } from '../../../../main/api/stepEdits.js';
import type { Output, SampleDetail } from '../../../../main/api/contract.js';

import type { DatasetSummary, RequestConfig, ReviewState, Sample, SampleStep } from '../../../../main/api/schemas.js';
import { getClient } from '../../client.js';
import { act, attempt, isConflict, staleMessage, useNotices } from '../../notices.js';
import { useDatasets } from '../datasets/datasetsStore.js';

export type Coverage = Output<'getCoverage'>;
export type ReviewAid = Output<'getReviewAid'>;
export type QuickFix = ReviewAid['fixes'][number];
export type EndpointExcerpt = NonNullable<ReviewAid['excerpt']>;

/** Which samples the queue holds: by default the unreviewed ones. */
export interface QueueFilter {
  reviewState: ReviewState | 'all';
  synthesizedOnly: boolean;
  api: string;
  endpoint: string;
}

export interface Draft {
  task: string;
  /** A multi-step sample's: the last step's request. */
  config: RequestConfig;
  /** What changed, for the revision's reason (the one-click fixes applied, or "edited"). */
  notes: string[];
  /** A multi-step sample's steps as edited, with where each came from (its stored index; null for an added one). */
  steps?: SampleStep[];
  origins?: (number | null)[];
}

/** A multi-step sample's stored steps (its fields hold them; the service checked their shape). */
export function stepsOfSample(sample: Pick<Sample, 'fields'> | undefined): SampleStep[] | undefined {
  const steps = sample?.fields?.['steps'];
  return Array.isArray(steps) && steps.length > 0 && steps.every((s) => typeof s === 'object' && s !== null && 'config' in s && 'response' in s) ? (steps as unknown as SampleStep[]) : undefined;
}

/** What the steps editor works on: the draft's steps, else the stored ones, each with where it came from. */
export function stepsInEdit(detail: SampleDetail | undefined, draft: Draft | undefined): { steps: SampleStep[]; origins: (number | null)[] } | undefined {
  const stored = stepsOfSample(detail?.sample);
  if (!stored) return undefined;
  return draft?.steps ? { steps: draft.steps, origins: draft.origins ?? draft.steps.map((_, i) => i) } : { steps: stored, origins: stored.map((_, i) => i) };
}

export type Confirm = { kind: 'fixed' } | { kind: 'bulk'; state: 'accepted' | 'rejected' };

const NO_CHECKLIST: Checklist = { unambiguous: false, solves: false, reflected: false };

export interface ReviewPageState {
  datasets: DatasetSummary[];
  datasetId: number | undefined;
  coverage: Coverage | undefined;
  filter: QueueFilter;
  /** The queue as filtered when it was loaded: a decided sample stays in it, so `k` goes back to it. */
  queue: Sample[];
  index: number;
  /** Every sample of the dataset, for the progress counts. */
  all: Sample[];
  detail: SampleDetail | undefined;
  aid: ReviewAid | undefined;
  draft: Draft | undefined;
  checklist: Checklist;
  confirm: Confirm | undefined;
  /** Samples decided here, newest last: `u` undoes the newest and goes back to it. */
  decided: string[];
  busy: boolean;
  /** Whether the queue and the counts on screen are the chosen dataset's (false until its first answers come). */
  loaded: boolean;

  load(): Promise<void>;
  selectDataset(id: number): Promise<void>;
  setFilter(patch: Partial<QueueFilter>): Promise<void>;
  open(index: number): Promise<void>;
  move(by: 1 | -1): Promise<void>;
  setDraft(draft: Draft | undefined): void;
  /**
   * Edits a multi-step sample's steps in the draft (`edit` gets them as the draft has them, and
   * where each came from); a refusal is kept in `stepRefusal`, one line, beside the steps.
   */
  editSteps(edit: (steps: SampleStep[], origins: (number | null)[]) => StepEdit): boolean;
  /** Why the last edit of the steps was refused; cleared by the next edit or sample. */
  stepRefusal: string | undefined;
  toggleChecklist(key: keyof Checklist): void;
  decide(state: 'accepted' | 'rejected'): Promise<void>;
  saveFixed(): Promise<void>;
  undo(): Promise<void>;
  bulk(state: 'accepted' | 'rejected'): Promise<void>;
  setConfirm(confirm: Confirm | undefined): void;
}

/** The queue position being opened (the last asked for), ahead of the one shown. */
let wanted: number | undefined;
/** The dataset chosen on Datasets when Review last followed it: a later choice there is followed again, Review's own choice otherwise kept. */
let followed: number | undefined;
/** The dataset whose loading is the latest asked for: an earlier one's answers are dropped. */
let loading: number | undefined;

/** The queue's samples that still match its review-state filter: a bulk decision leaves those decided since alone. */
export const selection = (queue: readonly Sample[], filter: QueueFilter): Sample[] => queue.filter((s) => filter.reviewState === 'all' || s.reviewState === filter.reviewState);

const newestRevision = (detail: SampleDetail): number | undefined => detail.revisions.filter((r) => !r.undone).at(-1)?.id;

export const useReview = create<ReviewPageState>()((set, get) => {
  const client = getClient();

  const refreshAll = async (): Promise<void> => {
    const { datasetId } = get();
    if (datasetId === undefined) return;
    const all = await attempt(() => client.listSamples({ datasetId, filter: {} }));
    if (all) set({ all });
  };
  const loadQueue = async (): Promise<void> => {
    const { datasetId, filter } = get();
    if (datasetId === undefined) return set({ queue: [], detail: undefined, aid: undefined });
    set({ busy: true });
    const samples = await attempt(() =>
      client.listSamples({
        datasetId,
        filter: { ...(filter.reviewState !== 'all' ? { reviewState: filter.reviewState } : {}), ...(filter.api ? { api: filter.api } : {}), ...(filter.endpoint ? { endpoint: filter.endpoint } : {}) },
      }),
    );
    set({ busy: false });
    const queue = (samples ?? []).filter((s) => !filter.synthesizedOnly || s.provenance);
    wanted = undefined;
    set({ queue, index: 0, detail: undefined, aid: undefined, draft: undefined });
    await Promise.all([refreshAll(), queue.length > 0 ? get().open(0) : Promise.resolve()]);
  };
  /** After a decision: the new state in the queue, the counts, and on to the next sample. */
  const decided = async (detail: SampleDetail, advance: boolean): Promise<void> => {
    set((s) => ({
      queue: s.queue.map((x) => (x.id === detail.sample.id ? detail.sample : x)),
      decided: [...s.decided, detail.sample.id],
      detail,
      draft: undefined,
    }));
    await refreshAll();
    const { index, queue } = get();
    if (advance && index + 1 < queue.length) await get().open(index + 1);
  };

  /**
   * Saves an edit that carries the revision the page opened; when the sample changed since
   * (another tab), shows the newer version and says why, and gives `undefined`.
   */
  const saveOrReload = async (save: () => Promise<SampleDetail>): Promise<SampleDetail | undefined> => {
    try {
      const done = await save();
      useNotices.getState().dismissError();
      return done;
    } catch (error) {
      if (!isConflict(error)) {
        useNotices.getState().showError(error);
        return undefined;
      }
      const { index, detail } = get();
      await get().open(index);
      if (detail) set((s) => ({ queue: s.queue.map((x) => (x.id === detail.sample.id && s.detail ? s.detail.sample : x)) }));
      useNotices.getState().showError(staleMessage(error));
      return undefined;
    }
  };

  return {
    datasets: [],
    datasetId: undefined,
    coverage: undefined,
    filter: { reviewState: 'unreviewed', synthesizedOnly: false, api: '', endpoint: '' },
    queue: [],
    index: 0,
    all: [],
    detail: undefined,
    aid: undefined,
    draft: undefined,
    stepRefusal: undefined,
    checklist: NO_CHECKLIST,
    confirm: undefined,
    decided: [],
    busy: false,
    loaded: false,

    async load() {
      const datasets = await attempt(() => client.listDatasets({}));
      if (!datasets) return set({ loaded: true });
      set({ datasets });
      // The dataset chosen on Datasets since Review last looked, else the one Review showed, else the newest.
      const chosen = useDatasets.getState().datasetId;
      const current = chosen !== undefined && chosen !== followed && datasets.some((d) => d.id === chosen) ? chosen : get().datasetId;
      followed = chosen;
      const id = current !== undefined && datasets.some((d) => d.id === current) ? current : defaultDatasetId(datasets);
      if (id !== undefined) await get().selectDataset(id);
      else set({ loaded: true, queue: [], all: [] });
    },
    async selectDataset(id) {
      loading = id;
      // A filter that names what the new dataset lacks (an API, an endpoint of it) would show
      // "Nothing to review" over its unreviewed samples: it goes back to the dataset's whole queue.
      const apis = new Set(get().datasets.find((d) => d.id === id)?.apis.map((a) => a.api) ?? []);
      set((s) => ({
        datasetId: id,
        decided: [],
        coverage: undefined,
        // Another dataset: nothing of the last one stays on screen for a key or a bulk button to act on.
        ...(s.datasetId === id ? {} : { loaded: false, queue: [], all: [], index: 0, detail: undefined, aid: undefined, draft: undefined }),
        filter: s.filter.api && !apis.has(s.filter.api) ? { ...s.filter, api: '', endpoint: '' } : s.filter,
      }));
      const coverage = await attempt(() => client.getCoverage({ datasetId: id }));
      if (loading !== id) return;
      if (coverage) set({ coverage });
      await loadQueue();
      // "Synthesized only" on a dataset with no synthesized sample, likewise.
      await refreshAll();
      const { filter, all } = get();
      if (filter.synthesizedOnly && !all.some((x) => x.provenance)) {
        set({ filter: { ...filter, synthesizedOnly: false } });
        await loadQueue();
      }
      if (loading === id) set({ loaded: true });
    },
    async setFilter(patch) {
      set((s) => ({ filter: { ...s.filter, ...patch, ...(patch.api !== undefined && patch.api !== s.filter.api ? { endpoint: '' } : {}) } }));
      await loadQueue();
    },
    async open(index) {
      const { queue, datasetId } = get();
      const sample = queue[index];
      if (!sample || datasetId === undefined) return;
      wanted = index;
      const [detail, aid] = await Promise.all([attempt(() => client.getSample({ datasetId, sampleId: sample.id })), attempt(() => client.getReviewAid({ datasetId, sampleId: sample.id }))]);
      // Shown only once loaded, all at once: the keys act on the sample on screen, never on one
      // whose position is shown beside another's content. A later `open` may have overtaken this one.
      if (wanted !== index || !detail) return;
      // A sample decided before shows the checklist given with its last decision.
      const last = detail.revisions.filter((r) => !r.undone).at(-1);
      set({ index, detail, aid, draft: undefined, stepRefusal: undefined, checklist: (last && parseChecklist(last.reason)) || NO_CHECKLIST, confirm: undefined });
    },
    async move(by) {
      const { queue } = get();
      const from = wanted ?? get().index;
      const next = Math.min(queue.length - 1, Math.max(0, from + by));
      if (next !== from) await get().open(next);
    },
    setDraft(draft) {
      set({ draft, stepRefusal: undefined });
    },
    editSteps(edit) {
      const { detail, draft } = get();
      const current = stepsInEdit(detail, draft);
      if (!detail || !current) return false;
      const done = edit(current.steps, current.origins);
      if (!done.ok) {
        set({ stepRefusal: done.reason });
        return false;
      }
      const task = draft?.task ?? detail.sample.task;
      // Back to the stored steps and task: no draft.
      if (sameSteps(done.steps, stepsOfSample(detail.sample)) && task === detail.sample.task) {
        set({ draft: undefined, stepRefusal: undefined });
        return true;
      }
      const notes = draft?.notes ?? [];
      // Typing in a step's JSON edits it at each keystroke that parses: said once.
      const repeated = done.note.startsWith('edited ') && notes.includes(done.note);
      set({
        draft: { task, config: done.steps.at(-1)!.config, steps: done.steps, origins: done.order.map((o) => (o === null ? null : (current.origins[o] ?? null))), notes: repeated ? notes : [...notes, done.note] },
        stepRefusal: undefined,
      });
      return true;
    },
    toggleChecklist(key) {
      set((s) => ({ checklist: { ...s.checklist, [key]: !s.checklist[key] } }));
    },
    async decide(state) {
      const { detail, draft, checklist } = get();
      if (!detail) return;
      if (draft) {
        useNotices.getState().showError('this sample has unsaved changes: press f to save them as fixed, or Esc to discard them');
        return;
      }
      const done = await saveOrReload(() =>
        client.editSample({ datasetId: detail.sample.datasetId, sampleId: detail.sample.id, reviewState: state, reason: `marked ${state}`, checklist, baseRevision: newestRevision(detail) }),
      );
      if (done) await decided(done, true);
    },
    async saveFixed() {
      const { detail, draft, checklist } = get();
      if (!detail || !draft) return;
      set({ confirm: undefined });
      const reason = `fixed: ${draft.notes.length > 0 ? draft.notes.join('; ') : 'edited'}`;
      const taskChanged = draft.task !== detail.sample.task;
      const done = await saveOrReload(() =>
        client.editSample({
          datasetId: detail.sample.datasetId,
          sampleId: detail.sample.id,
          ...(taskChanged ? { task: draft.task } : {}),
          // A multi-step sample's requests are its steps: they are sent whole, its config follows the last.
          ...(draft.steps ? { steps: draft.steps } : stepsOfSample(detail.sample) ? {} : { config: draft.config }),
          reviewState: 'fixed',
          reason,
          checklist,
          baseRevision: newestRevision(detail),
        }),
      );
      if (done) await decided(done, true);
    },
    async undo() {
      const { decided: stack, detail, datasetId } = get();
      const sampleId = stack.at(-1) ?? (detail?.canUndo ? detail.sample.id : undefined);
      if (!sampleId || datasetId === undefined) return;
      const restored = await act(() => client.undoEdit({ datasetId, sampleId }));
      if (!restored) return;
      set((s) => ({ decided: s.decided.slice(0, -1), queue: s.queue.map((x) => (x.id === sampleId ? restored.sample : x)) }));
      await refreshAll();
      const index = get().queue.findIndex((x) => x.id === sampleId);
      if (index >= 0) await get().open(index);
    },
    async bulk(state) {
      const { queue, datasetId, filter } = get();
      set({ confirm: undefined });
      const chosen = selection(queue, filter);
      if (datasetId === undefined || chosen.length === 0) return;
      const what = [filter.reviewState !== 'all' ? filter.reviewState : 'all states', filter.synthesizedOnly ? 'synthesized' : '', filter.api, filter.endpoint].filter(Boolean).join(', ');
      // Each sample's updatedAt as listed: a sample another tab changed since refuses the whole decision.
      const seen = Object.fromEntries(chosen.map((s) => [s.id, s.updatedAt]));
      try {
        await client.reviewSamples({ datasetId, sampleIds: chosen.map((s) => s.id), reviewState: state, reason: `bulk ${state === 'accepted' ? 'accept' : 'reject'} of the queue (${what})`, seen });
        useNotices.getState().dismissError();
        await loadQueue();
      } catch (error) {
        if (!isConflict(error)) return useNotices.getState().showError(error);
        await loadQueue();
        useNotices.getState().showError(`Not saved: ${(error as Error).message.replace(/: reload and decide again$/, '')}. The list is reloaded with the newer states; decide again.`);
      }
    },
    setConfirm(confirm) {
      set({ confirm });
    },
  };
});
