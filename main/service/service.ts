import os from 'node:os';
import { contract, type FileInput, type Method, type Output, type Parsed, type SampleDetail, type WorkbenchApi, type WorkbenchEvent, type WorkbenchHandlers } from '../api/contract.js';
import { fail, ok, unwrap, WapiiError, type Result } from '../api/result.js';
import type { DatasetSummary, Finding, Sample } from '../api/schemas.js';
import { checkSample, exportFlat, exportPerApi, filterSamples } from '../dataset/index.js';
import { loadSpec, resolveEndpoint, type ApiSpec } from '../openapi/index.js';
import type { SampleState, Store } from '../store/index.js';
import { environmentKeys, keyStatus, type ApiKeyStore } from './apiKeys.js';
import { apiCoverage, sampleEndpointKey } from './coverage.js';
import { DEFAULT_SYNTHESIS_RETRY, SynthesisJobs } from './synthesis.js';
import type { RetryPolicy } from '../synthesis/index.js';
import { prepareDataset } from './prepare.js';

export interface ServiceOptions {
  readonly store: Store;
  /** Recorded on every revision. */
  readonly author?: string;
  /** Provider keys (default: the environment's GEMINI_API_KEY / GOOGLE_API_KEY / OPENAI_API_KEY). */
  readonly apiKeys?: ApiKeyStore;
  /** Backoff of synthesis requests (tests shorten it). */
  readonly synthesisRetry?: RetryPolicy;
  /** Where unexpected errors of background jobs are logged (never shown raw). */
  readonly log?: (message: string) => void;
}

type Listener = (event: WorkbenchEvent) => void;

/** Implements the service contract on top of the store and the engine stages. */
export class WorkbenchService implements WorkbenchHandlers {
  private readonly store: Store;
  private readonly author: string;
  private readonly specs = new Map<string, Promise<Result<ApiSpec>>>();
  private readonly listeners = new Set<Listener>();
  private readonly apiKeys: ApiKeyStore;
  private readonly synthesis: SynthesisJobs;

  constructor(options: ServiceOptions) {
    this.store = options.store;
    this.author = options.author ?? safeUsername();
    this.apiKeys = options.apiKeys ?? environmentKeys();
    this.synthesis = new SynthesisJobs({
      store: this.store,
      author: this.author,
      keys: this.apiKeys,
      retry: options.synthesisRetry ?? DEFAULT_SYNTHESIS_RETRY,
      spec: (hash) => this.spec(hash),
      emit: (event) => this.emit(event),
      log: options.log ?? ((m) => console.error(m)),
    });
  }

  /** Resolves once no synthesis job of this service is running. */
  settle(): Promise<void> {
    return this.synthesis.settle();
  }

  /** Samples with the provenance of those a synthesis job made. */
  private withProvenance(datasetId: number, samples: Sample[]): Sample[] {
    const provenance = this.store.synthesis.provenanceOf(datasetId);
    if (provenance.size === 0) return samples;
    return samples.map((s) => {
      const p = provenance.get(s.id);
      return p ? { ...s, provenance: p } : s;
    });
  }

  /** Subscribes to events (progress, data changes); returns the unsubscribe function. */
  onEvent(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: WorkbenchEvent): void {
    for (const l of this.listeners) l(event);
  }

  /** A stored spec, parsed once per content hash. */
  private async spec(hash: string): Promise<ApiSpec> {
    let pending = this.specs.get(hash);
    if (!pending) {
      const stored = this.store.getSpec(hash);
      if (!stored) throw new WapiiError('internal', `bug: spec ${hash} is referenced but not stored`);
      pending = loadSpec(stored.content, stored.filename);
      this.specs.set(hash, pending);
    }
    return unwrap(await pending);
  }

  private async specFor(datasetId: number, api: string): Promise<ApiSpec | undefined> {
    const hash = this.store.datasetApis(datasetId).get(api);
    return hash ? this.spec(hash) : undefined;
  }

  private dataset(datasetId: number): DatasetSummary {
    const found = this.store.findDataset(datasetId);
    if (!found) throw new WapiiError('not_found', `dataset ${datasetId} does not exist`);
    return found;
  }

  private sample(datasetId: number, sampleId: string): Sample {
    this.dataset(datasetId);
    const found = this.store.getSample(datasetId, sampleId);
    if (!found) throw new WapiiError('not_found', `sample ${sampleId} does not exist in dataset ${datasetId}`);
    return this.withProvenance(datasetId, [found])[0] ?? found;
  }

  private async detail(sample: Sample): Promise<SampleDetail> {
    const spec = await this.specFor(sample.datasetId, sample.api);
    const endpoint = spec ? resolveEndpoint(spec, sample.config.url, sample.config.method).endpoint : undefined;
    return {
      sample: this.withProvenance(sample.datasetId, [sample])[0] ?? sample,
      revisions: this.store.listRevisions(sample.datasetId, sample.id),
      endpoint: endpoint
        ? {
            method: endpoint.method,
            path: endpoint.path,
            ...(endpoint.summary ? { summary: endpoint.summary } : {}),
            ...(endpoint.operationId ? { operationId: endpoint.operationId } : {}),
          }
        : null,
      canUndo: this.store.lastUndoable(sample.datasetId, sample.id) !== undefined,
    };
  }

  private async findingsOf(datasetId: number, sample: Pick<Sample, 'api' | 'config' | 'source'>): Promise<Finding[]> {
    return checkSample(await this.specFor(datasetId, sample.api), sample);
  }

  async listDatasets(): Promise<Output<'listDatasets'>> {
    return this.store.listDatasets();
  }

  async importDataset(input: Parsed<'importDataset'>): Promise<Output<'importDataset'>> {
    const task = `import ${input.dataset.filename}`;
    const prepared = unwrap(
      await prepareDataset(input.dataset, input.specs, (done, total, message) => this.emit({ type: 'progress', task, done, total, message })),
    );
    const name = this.store.freeDatasetName(input.name ?? input.dataset.filename.replace(/\.json$/i, ''));
    const datasetId = this.store.createDataset({
      name,
      source: input.dataset.filename,
      author: this.author,
      apis: [...prepared.specs.values()].map(({ api, file, spec }) => ({ api, spec: { filename: file.filename, title: spec.title, content: file.content } })),
      samples: prepared.samples,
    });
    this.emit({ type: 'datasetsChanged' });
    return this.dataset(datasetId);
  }

  async exportDataset(input: Parsed<'exportDataset'>): Promise<Output<'exportDataset'>> {
    const dataset = this.dataset(input.datasetId);
    const states = input.reviewStates;
    const samples = this.store.listSamples(dataset.id).filter((s) => !states || states.includes(s.reviewState));
    const files = input.format === 'flat' ? { [`${dataset.name}.json`]: exportFlat(samples) } : exportPerApi(samples);
    return { files };
  }

  async recheckDataset(input: Parsed<'recheckDataset'>): Promise<Output<'recheckDataset'>> {
    const dataset = this.dataset(input.datasetId);
    const findings = new Map<string, Finding[]>();
    for (const sample of this.store.listSamples(dataset.id)) findings.set(sample.id, await this.findingsOf(dataset.id, sample));
    this.store.setFindings(dataset.id, findings);
    this.emit({ type: 'datasetsChanged' });
    return this.dataset(dataset.id);
  }

  async listSamples(input: Parsed<'listSamples'>): Promise<Output<'listSamples'>> {
    const dataset = this.dataset(input.datasetId);
    const samples = this.withProvenance(dataset.id, filterSamples(this.store.listSamples(dataset.id), input.filter));
    const endpoint = input.filter.endpoint?.trim().replace(/\s+/, ' ');
    if (!endpoint) return samples;
    const wanted = endpoint.replace(/^\S+/, (m) => m.toUpperCase());
    const matching: Sample[] = [];
    for (const sample of samples) if (sampleEndpointKey(await this.specFor(dataset.id, sample.api), sample) === wanted) matching.push(sample);
    return matching;
  }

  async getCoverage(input: Parsed<'getCoverage'>): Promise<Output<'getCoverage'>> {
    const dataset = this.dataset(input.datasetId);
    if (input.api !== undefined && !dataset.apis.some((a) => a.api === input.api)) {
      throw new WapiiError('not_found', `dataset ${dataset.id} has no API "${input.api}" (have: ${dataset.apis.map((a) => a.api).join(', ')})`);
    }
    const samples = this.store.listSamples(dataset.id);
    const apis = [];
    for (const { api, specHash } of dataset.apis) {
      if (input.api !== undefined && api !== input.api) continue;
      apis.push(apiCoverage(api, await this.spec(specHash), samples));
    }
    return { datasetId: dataset.id, apis };
  }

  async synthesize(input: Parsed<'synthesize'>): Promise<Output<'synthesize'>> {
    this.dataset(input.datasetId);
    return this.synthesis.start(input);
  }

  async resumeSynthesis(input: Parsed<'resumeSynthesis'>): Promise<Output<'resumeSynthesis'>> {
    return this.synthesis.resume(input);
  }

  async cancelSynthesis(input: Parsed<'cancelSynthesis'>): Promise<Output<'cancelSynthesis'>> {
    return this.synthesis.cancel(input.jobId);
  }

  async getSynthesisJob(input: Parsed<'getSynthesisJob'>): Promise<Output<'getSynthesisJob'>> {
    return this.synthesis.job(input.jobId);
  }

  async listSynthesisJobs(input: Parsed<'listSynthesisJobs'>): Promise<Output<'listSynthesisJobs'>> {
    if (input.datasetId !== undefined) this.dataset(input.datasetId);
    return this.synthesis.list(input.datasetId);
  }

  async getApiKeyStatus(): Promise<Output<'getApiKeyStatus'>> {
    return [keyStatus(this.apiKeys, 'gemini'), keyStatus(this.apiKeys, 'openai')];
  }

  async saveApiKey(input: Parsed<'saveApiKey'>): Promise<Output<'saveApiKey'>> {
    if (!this.apiKeys.save) throw new WapiiError('bad_input', `keys are read from the environment here: set ${input.provider === 'gemini' ? 'GEMINI_API_KEY' : 'OPENAI_API_KEY'} before starting wapii`);
    this.apiKeys.save(input.provider, input.key);
    return keyStatus(this.apiKeys, input.provider);
  }

  async reviewSamples(input: Parsed<'reviewSamples'>): Promise<Output<'reviewSamples'>> {
    this.dataset(input.datasetId);
    const samples = input.sampleIds.map((id) => this.sample(input.datasetId, id));
    this.store.transaction(() => {
      for (const s of samples) {
        unwrap(this.store.editSample(input.datasetId, s.id, { task: s.task, config: s.config, reviewState: input.reviewState }, s.findings, { author: this.author, reason: input.reason }));
      }
    });
    this.emit({ type: 'datasetsChanged' });
    return { updated: samples.length };
  }

  async getSample(input: Parsed<'getSample'>): Promise<Output<'getSample'>> {
    return this.detail(this.sample(input.datasetId, input.sampleId));
  }

  async editSample(input: Parsed<'editSample'>): Promise<Output<'editSample'>> {
    const current = this.sample(input.datasetId, input.sampleId);
    const after: SampleState = {
      task: input.task ?? current.task,
      config: input.config ?? current.config,
      reviewState: input.reviewState ?? (input.config || input.task ? 'fixed' : current.reviewState),
    };
    const findings = await this.findingsOf(input.datasetId, { ...current, config: after.config });
    const edited = unwrap(this.store.editSample(input.datasetId, input.sampleId, after, findings, { author: this.author, reason: input.reason }));
    this.emit({ type: 'datasetsChanged' });
    return this.detail(edited);
  }

  async undoEdit(input: Parsed<'undoEdit'>): Promise<Output<'undoEdit'>> {
    const current = this.sample(input.datasetId, input.sampleId);
    const revision = this.store.lastUndoable(current.datasetId, current.id);
    if (!revision?.before) throw new WapiiError('conflict', `sample ${current.id} has no edit to undo`);
    const findings = await this.findingsOf(current.datasetId, { ...current, config: revision.before.config });
    const restored = this.store.undoRevision(current.datasetId, revision, findings);
    this.emit({ type: 'datasetsChanged' });
    return this.detail(restored);
  }

  /** Imports the embedded demo dataset when the database holds no dataset yet. */
  async seedIfEmpty(demo: { dataset: FileInput; specs: FileInput[] }): Promise<Result<DatasetSummary | undefined>> {
    if (this.store.listDatasets().length > 0) return ok(undefined);
    try {
      return ok(await this.importDataset({ name: 'demo', ...demo }));
    } catch (error) {
      return fail('internal', `the embedded demo dataset does not import: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function safeUsername(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * Validates an input against the contract and calls the method: the one entry point every
 * transport (IPC, HTTP, in-process) goes through.
 */
export async function callMethod<M extends Method>(handlers: WorkbenchHandlers, method: M, input: unknown): Promise<Output<M>> {
  const parsed = contract[method].input.safeParse(input ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WapiiError('bad_input', `${method}: ${issue ? `${issue.path.join('.') || 'input'}: ${issue.message}` : 'invalid input'}`);
  }
  const fn = handlers[method] as (input: Parsed<M>) => Promise<Output<M>>;
  return fn.call(handlers, parsed.data as Parsed<M>);
}

/** A client that calls the service in the same process (the CLI, tests). */
export function localClient(handlers: WorkbenchHandlers): WorkbenchApi {
  const client = {} as Record<Method, (input: unknown) => Promise<unknown>>;
  for (const method of Object.keys(contract) as Method[]) client[method] = (input) => callMethod(handlers, method, input);
  return client as WorkbenchApi;
}
