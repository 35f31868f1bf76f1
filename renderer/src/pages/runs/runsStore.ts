import { create } from 'zustand';
import type { RunProgressEvent, RunSummary } from '../../api.js';
import { getClient } from '../../client.js';
import { attempt } from '../../notices.js';

/** The runs list with each active run's live progress, kept current by the service's events. */
export interface RunsState {
  runs: RunSummary[];
  loaded: boolean;
  /** The last load failed (the banner says why). */
  failed: boolean;
  progress: Record<number, RunProgressEvent>;
  /** Runs asked to cancel that have not stopped yet: a run finishes its outputs in flight first, which can take a while. */
  cancelling: Record<number, true>;
  /** Bumped on every run event, so an open run page knows to refetch. */
  version: number;
  load(): Promise<void>;
  cancel(runId: number): Promise<void>;
  resume(runId: number, retryErrors?: boolean): Promise<void>;
  remove(runId: number): Promise<void>;
}

export const useRuns = create<RunsState>()((set, get) => {
  const client = getClient();
  let reload: ReturnType<typeof setTimeout> | undefined;
  // Events come in bursts (a status and a list change together): one reload for the burst.
  const reloadSoon = (): void => {
    clearTimeout(reload);
    reload = setTimeout(() => void get().load(), 150);
  };
  client.onEvent((event) => {
    if (event.type === 'runProgress') {
      set((s) => ({ progress: { ...s.progress, [event.runId]: event }, version: s.version + 1 }));
      const run = get().runs.find((r) => r.id === event.runId);
      if (run && (run.status !== 'running' || event.done === event.total)) reloadSoon();
    } else if (event.type === 'runStatus' || event.type === 'runsChanged') {
      set((s) => ({ version: s.version + 1 }));
      reloadSoon();
    }
  });
  return {
    runs: [],
    loaded: false,
    failed: false,
    progress: {},
    cancelling: {},
    version: 0,
    async load() {
      const runs = await attempt(() => client.listRuns({}));
      // A run that stopped is no longer cancelling (a later resume must not read "cancelling…").
      set((s) => (runs ? { runs, loaded: true, failed: false, cancelling: Object.fromEntries(Object.keys(s.cancelling).filter((id) => runs.some((r) => r.id === Number(id) && isActive(r.status))).map((id) => [id, true as const])) } : { failed: true }));
    },
    async cancel(runId) {
      set((s) => ({ cancelling: { ...s.cancelling, [runId]: true } }));
      if (await attempt(() => client.cancelRun({ runId }))) await get().load();
      else set((s) => ({ cancelling: Object.fromEntries(Object.entries(s.cancelling).filter(([id]) => Number(id) !== runId)) }));
    },
    async resume(runId, retryErrors = false) {
      if (await attempt(() => client.resumeRun({ runId, retryErrors }))) await get().load();
    },
    async remove(runId) {
      if (await attempt(() => client.deleteRun({ runId }))) await get().load();
    },
  };
});

export const isActive = (status: RunSummary['status']): boolean => status === 'queued' || status === 'running';

/** `Full completion · constrained` */
export function setupLabel(run: Pick<RunSummary, 'setup' | 'setting'>): string {
  const setup = run.setup === 'full' ? 'Full completion' : run.setup === 'argument' ? 'Argument completion' : (run.setup ?? '–');
  return run.setting ? `${setup} · ${run.setting}` : setup;
}
