import { create } from 'zustand';
import type { RunDetail, RunSampleDetail, RunSampleFilter, RunSampleRow, RunSampleSort, SampleVerdict } from '../../api.js';
import { getClient } from '../../client.js';
import { attempt } from '../../notices.js';

export interface SampleKey {
  readonly index: number;
  readonly attempt: number;
}
export const keyOf = (r: SampleKey): string => `${r.index}:${r.attempt}`;

/** One run's page: the run, its filtered and sorted samples, and the sample open in the inspector. */
export interface RunPageState {
  runId: number | undefined;
  run: RunDetail | undefined;
  filter: RunSampleFilter;
  sort: RunSampleSort;
  rows: RunSampleRow[];
  total: number;
  loadingRows: boolean;
  open: SampleKey | undefined;
  detail: RunSampleDetail | undefined;
  loadingDetail: boolean;

  show(runId: number): Promise<void>;
  refresh(): Promise<void>;
  setFilter(patch: Partial<RunSampleFilter>): Promise<void>;
  setSort(sort: RunSampleSort): Promise<void>;
  openSample(key: SampleKey | undefined): Promise<void>;
  move(by: 1 | -1): Promise<void>;
  override(verdict: SampleVerdict | null, reason: string): Promise<boolean>;
}

const clean = (filter: RunSampleFilter): RunSampleFilter => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(filter)) if (v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0)) out[k] = v;
  return out as RunSampleFilter;
};

export const useRunPage = create<RunPageState>()((set, get) => {
  const client = getClient();
  const loadRows = async (): Promise<void> => {
    const { runId, filter, sort } = get();
    if (runId === undefined) return;
    set({ loadingRows: true });
    const page = await attempt(() => client.listRunSamples({ runId, filter, sort, limit: 100_000 }));
    if (page && get().runId === runId) set({ rows: page.rows, total: page.total });
    set({ loadingRows: false });
  };
  return {
    runId: undefined,
    run: undefined,
    filter: {},
    sort: { by: 'index', dir: 'asc' },
    rows: [],
    total: 0,
    loadingRows: false,
    open: undefined,
    detail: undefined,
    loadingDetail: false,

    async show(runId) {
      if (get().runId !== runId) set({ runId, run: undefined, rows: [], total: 0, open: undefined, detail: undefined, filter: {}, sort: { by: 'index', dir: 'asc' } });
      await get().refresh();
    },
    async refresh() {
      const { runId } = get();
      if (runId === undefined) return;
      const run = await attempt(() => client.getRun({ runId }));
      if (run && get().runId === runId) set({ run });
      await loadRows();
    },
    async setFilter(patch) {
      set({ filter: clean({ ...get().filter, ...patch }) });
      await loadRows();
    },
    async setSort(sort) {
      set({ sort });
      await loadRows();
    },
    async openSample(key) {
      const { runId } = get();
      if (!key || runId === undefined) return set({ open: undefined, detail: undefined });
      set({ open: key, loadingDetail: true });
      const detail = await attempt(() => client.getRunSample({ runId, index: key.index, attempt: key.attempt }));
      // A later j/k may have moved on while this one loaded.
      if (detail && get().open && keyOf(get().open!) === keyOf(key)) set({ detail });
      set({ loadingDetail: false });
    },
    async move(by) {
      const { rows, open } = get();
      if (rows.length === 0) return;
      const at = open ? rows.findIndex((r) => keyOf(r) === keyOf(open)) : -1;
      const next = at < 0 ? rows[by === 1 ? 0 : rows.length - 1] : rows[Math.min(rows.length - 1, Math.max(0, at + by))];
      if (next && (!open || keyOf(next) !== keyOf(open))) await get().openSample({ index: next.index, attempt: next.attempt });
    },
    async override(verdict, reason) {
      const { runId, open } = get();
      if (runId === undefined || !open) return false;
      const detail = await attempt(() => client.overrideVerdict({ runId, index: open.index, attempt: open.attempt, verdict, reason }));
      if (!detail) return false;
      set({ detail });
      await get().refresh();
      return true;
    },
  };
});
