import { defaultDatasetId } from '../../../../main/api/constants.js';
import { create } from 'zustand';
import type { FileInput, Input, Output, ProgressEvent, SampleDetail } from '../../../../main/api/contract.js';
import type { DatasetSummary, RequestConfig, ReviewState, Sample, SampleFields, SampleFilter } from '../../../../main/api/schemas.js';
import { getClient, type Client } from '../../client.js';
import { isConflict, staleMessage, useNotices } from '../../notices.js';

/** The Datasets page: the datasets, the chosen one's filtered samples, the open sample. */
export interface DatasetsState {
  readonly client: Client;
  datasets: DatasetSummary[];
  datasetId: number | undefined;
  filter: SampleFilter;
  samples: Sample[];
  selected: SampleDetail | undefined;
  progress: ProgressEvent | undefined;
  loading: boolean;
  /** A save refused because the open sample changed meanwhile: why, and the text that was not saved. */
  stale: { message: string; unsaved?: string } | undefined;

  loadDatasets(): Promise<void>;
  selectDataset(id: number): Promise<void>;
  setFilter(patch: Partial<SampleFilter>): Promise<void>;
  openSample(sampleId: string | undefined): Promise<void>;
  /** The stored dataset's summary (broken references and given servers included), or undefined where the import failed (the banner says why). */
  importFiles(dataset: FileInput, specs: FileInput[], name?: string, options?: Pick<Input<'importDataset'>, 'lenientRefs' | 'server'>): Promise<Output<'importDataset'> | undefined>;
  review(state: ReviewState, reason: string): Promise<void>;
  editSample(change: { task?: string; config?: RequestConfig; fields?: SampleFields }, reason: string): Promise<void>;
  undo(): Promise<void>;
}

export const useDatasets = create<DatasetsState>()((set, get) => {
  const client = getClient();
  /** Runs an action, turning a failure into the one-line error banner. */
  const attempt = async <T>(fn: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await fn();
    } catch (error) {
      useNotices.getState().showError(error);
      return undefined;
    } finally {
      set({ loading: false });
    }
  };
  const refreshSamples = async (): Promise<void> => {
    const { datasetId, filter } = get();
    if (datasetId === undefined) return set({ samples: [] });
    set({ loading: true });
    const samples = await attempt(() => client.listSamples({ datasetId, filter }));
    if (samples) set({ samples });
  };
  /**
   * The edited sample in place; under a filter, the list asked again, since an edit can take a
   * sample out of it (a fix clears its check findings: "flagged" no longer holds it, and the count
   * agrees with the header's). The open sample stays open.
   */
  const afterEdit = async (detail: SampleDetail): Promise<void> => {
    set((s) => ({ selected: detail, samples: s.samples.map((x) => (x.id === detail.sample.id ? detail.sample : x)) }));
    if (Object.keys(get().filter).length > 0) await refreshSamples();
  };
  /**
   * Every edit sends the revision the page opened (baseRevision): when another tab or process
   * changed the sample since, the service refuses it, and the page shows the newer version with
   * why, keeping the text that was not saved.
   */
  const edit = async (selected: SampleDetail, change: { task?: string; config?: RequestConfig; reviewState?: ReviewState; fields?: SampleFields }, reason: string): Promise<void> => {
    const { datasetId, id } = selected.sample;
    const baseRevision = selected.revisions.filter((r) => !r.undone).at(-1)?.id;
    try {
      await afterEdit(await client.editSample({ datasetId, sampleId: id, ...change, reason, ...(baseRevision !== undefined ? { baseRevision } : {}) }));
      set({ stale: undefined });
      useNotices.getState().dismissError();
    } catch (error) {
      if (!isConflict(error)) return useNotices.getState().showError(error);
      const newer = await attempt(() => client.getSample({ datasetId, sampleId: id }));
      if (newer) await afterEdit(newer);
      set({ stale: { message: staleMessage(error), ...(change.config ? { unsaved: JSON.stringify(change.config, null, 2) } : {}) } });
    }
  };

  client.onEvent((event) => {
    if (event.type === 'progress') set({ progress: event.done >= event.total ? undefined : event });
    if (event.type === 'datasetsChanged') void get().loadDatasets();
  });

  return {
    client,
    datasets: [],
    datasetId: undefined,
    filter: {},
    samples: [],
    selected: undefined,
    progress: undefined,
    loading: false,
    stale: undefined,

    async loadDatasets() {
      const datasets = await attempt(() => client.listDatasets({}));
      if (!datasets) return;
      set({ datasets });
      const current = get().datasetId;
      if ((current === undefined || !datasets.some((d) => d.id === current)) && datasets.length > 0) {
        await get().selectDataset(defaultDatasetId(datasets)!);
      }
    },
    async selectDataset(id) {
      set({ datasetId: id, filter: {}, selected: undefined });
      await refreshSamples();
    },
    async setFilter(patch) {
      const filter: SampleFilter = { ...get().filter, ...patch };
      for (const key of Object.keys(filter) as (keyof SampleFilter)[]) if (!filter[key]) delete filter[key];
      set({ filter });
      await refreshSamples();
    },
    async openSample(sampleId) {
      const { datasetId } = get();
      set({ stale: undefined });
      if (!sampleId || datasetId === undefined) return set({ selected: undefined });
      const detail = await attempt(() => client.getSample({ datasetId, sampleId }));
      if (detail) set({ selected: detail });
    },
    async importFiles(dataset, specs, name, options = {}) {
      set({ loading: true });
      useNotices.getState().dismissError();
      const summary = await attempt(() => client.importDataset({ dataset, specs, ...(name ? { name } : {}), ...options }));
      set({ progress: undefined });
      if (!summary) return undefined;
      await get().loadDatasets();
      await get().selectDataset(summary.id);
      return summary;
    },
    async review(reviewState, reason) {
      const { selected } = get();
      if (selected) await edit(selected, { reviewState }, reason);
    },
    async editSample(change, reason) {
      const { selected } = get();
      if (selected) await edit(selected, change, reason);
    },
    async undo() {
      const { selected } = get();
      if (!selected) return;
      const detail = await attempt(() => client.undoEdit({ datasetId: selected.sample.datasetId, sampleId: selected.sample.id }));
      if (detail) await afterEdit(detail);
    },
  };
});
