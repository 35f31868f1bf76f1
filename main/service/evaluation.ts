import type { Output, Parsed, WorkbenchEvent } from '../api/contract.js';
import { WapiiError } from '../api/result.js';
import type { DatasetSummary, Sample } from '../api/schemas.js';
import type { ProviderModel } from '../api/evaluation.js';
import type { GpuChoice, MemoryState, ChatWrapperName } from '../generation/index.js';
import type { ApiSpec } from '../openapi/index.js';
import type { KnowledgeCondition } from '../prompt/index.js';
import type { RunProgress } from '../runner/index.js';
import type { Store } from '../store/index.js';
import { ModelRepository } from '../store/models.js';
import { RunRepository, type RunRow } from '../store/runs.js';
import { RunJobs } from './jobs.js';
import { ModelLibrary } from './models.js';
import { assertRunnable, multiStepRules, runShapeOf, conditionsOf, contentHash, contextFit, longestPrompt, emptySubsetMessage, estimateLine, inputManifest, measuredRate, selectSubset, settingsOf, snapshotWithKnowledge, TYPICAL_TOKENS_PER_SECOND, type Rate, type StartRunInput } from './runPlan.js';
import { DEFAULT_PARALLEL } from '../api/constants.js';
import { RunResults } from './runResults.js';
import { compareConditions } from './runConditions.js';
import { isAlive } from './liveness.js';
import { environmentKeys, type ApiKeyStore } from './apiKeys.js';
import { checkProvider, checkProviderSettings, entryOf, priceTable, providerFor, providerPrice, type ProviderContext, type StoredProvider } from './providers.js';
import { openAiCompatible } from '../providers/openaiCompatible.js';
import { estimateRunCost, type PriceTable } from '../providers/prices.js';
import type { RetryPolicy } from '../synthesis/retry.js';
import { promptFor } from '../prompt/index.js';

/** The evaluation methods of the contract (models, runs, results), as the service implements them. */
export type EvaluationMethod =
  | 'listModels'
  | 'addModel'
  | 'scanModels'
  | 'listModelFiles'
  | 'removeModel'
  | 'downloadModel'
  | 'cancelDownload'
  | 'listDownloads'
  | 'dismissDownload'
  | 'listProviderModels'
  | 'previewRun'
  | 'startRun'
  | 'cancelRun'
  | 'resumeRun'
  | 'listRuns'
  | 'getRun'
  | 'deleteRun'
  | 'listRunSamples'
  | 'getRunSample'
  | 'compareRuns'
  | 'compareConditions'
  | 'overrideVerdict'
  | 'exportRun';

export type EvaluationHandlers = { [M in EvaluationMethod]: (input: Parsed<M>) => Promise<Output<M>> };

export interface EvaluationOptions {
  readonly store: Store;
  readonly author: string;
  readonly spec: (hash: string) => Promise<ApiSpec | undefined>;
  readonly emit: (event: WorkbenchEvent) => void;
  /** Where scans look and downloads go. */
  readonly modelsFolder: string;
  readonly memory?: MemoryState;
  readonly gpu?: GpuChoice;
  readonly threads?: number;
  /** Constraint work per token before a sample ends as a timeout (default 10 s; `wapii run --step-deadline`). */
  readonly stepDeadlineMs?: number;
  /** The chat template chat prompts go through (default: the one the model names; `wapii run --chat <wrapper>`). */
  readonly chatWrapper?: ChatWrapperName;
  readonly onProgress?: (runId: number, progress: RunProgress) => void;
  /** Provider keys (default: the environment's). */
  readonly keys?: ApiKeyStore;
  /** Where the database lives: the price table `prices.json` is read beside it (or from $WAPII_PRICES). */
  readonly dbPath?: string;
  /** Per provider request (default 120 s), and its retries (tests shorten them). */
  readonly providerTimeoutMs?: number;
  readonly providerRetry?: RetryPolicy;
  /** Between polls of an OpenAI batch (default 30 s; tests shorten it). */
  readonly batchPollMs?: number;
}

/** Models, runs on stored datasets, their results: one object behind the contract's evaluation methods. */
export class EvaluationService implements EvaluationHandlers {
  readonly runs: RunRepository;
  readonly results: RunResults;
  readonly library: ModelLibrary;
  readonly jobs: RunJobs;
  private readonly store: Store;
  private readonly prices: ReturnType<typeof priceTable>;

  constructor(private readonly options: EvaluationOptions) {
    this.store = options.store;
    this.prices = priceTable(options.dbPath);
    if (this.prices.error) console.error(`wapii: ${this.prices.error}`);
    this.runs = new RunRepository(options.store);
    this.library = new ModelLibrary({ models: new ModelRepository(options.store), folder: options.modelsFolder, ...(options.memory ? { memory: options.memory } : {}), emit: options.emit });
    this.results = new RunResults({
      runs: this.runs,
      author: options.author,
      spec: options.spec,
      currentSamples: (datasetId) => this.currentSamples(datasetId),
      datasetName: (datasetId) => this.store.findDataset(datasetId)?.name,
      progress: (runId) => this.jobs.progress(runId),
      emitRunsChanged: () => options.emit({ type: 'runsChanged' }),
    });
    this.jobs = new RunJobs({
      store: options.store,
      runs: this.runs,
      results: this.results,
      library: this.library,
      spec: options.spec,
      emit: options.emit,
      ...(options.gpu ? { gpu: options.gpu } : {}),
      ...(options.threads ? { threads: options.threads } : {}),
      ...(options.stepDeadlineMs !== undefined ? { stepDeadlineMs: options.stepDeadlineMs } : {}),
      ...(options.chatWrapper ? { chatWrapper: options.chatWrapper } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      providers: this.providerContext,
    });
    // A run left queued or running by a process that died (app, serve, CLI) is interrupted, with Resume.
    this.runs.markOrphansInterrupted(isAlive);
  }

  private currentSamples(datasetId: number): Map<string, { contentHash: string; specHash: string | null }> | undefined {
    if (!this.store.findDataset(datasetId)) return undefined;
    const specs = this.store.datasetApis(datasetId);
    return new Map(this.store.listSamples(datasetId).map((s) => [s.id, { contentHash: contentHash(s), specHash: specs.get(s.api) ?? null }]));
  }

  /** Stops the queue (the active run becomes interrupted) and unloads the model. */
  async shutdown(): Promise<void> {
    await this.jobs.shutdown();
    await this.library.shutdown();
  }

  // --- models ---

  listModels = async (): Promise<Output<'listModels'>> => this.library.listModels();
  addModel = async (input: Parsed<'addModel'>): Promise<Output<'addModel'>> => this.library.addModel(input);
  scanModels = async (input: Parsed<'scanModels'>): Promise<Output<'scanModels'>> => this.library.scanModels(input);
  listModelFiles = async (input: Parsed<'listModelFiles'>): Promise<Output<'listModelFiles'>> => this.library.listModelFiles(input);
  removeModel = async (input: Parsed<'removeModel'>): Promise<Output<'removeModel'>> => {
    const model = this.library.model(input.modelId);
    if (this.jobs.activeModelFile() === model.path) throw new WapiiError('conflict', `model ${model.name} is in use by a running run; cancel it first`);
    return this.library.removeModel(input.modelId);
  };
  downloadModel = async (input: Parsed<'downloadModel'>): Promise<Output<'downloadModel'>> => this.library.downloadModel(input);
  cancelDownload = async (input: Parsed<'cancelDownload'>): Promise<Output<'cancelDownload'>> => this.library.cancelDownload(input.downloadId);
  listDownloads = async (): Promise<Output<'listDownloads'>> => this.library.listDownloads();
  dismissDownload = async (input: Parsed<'dismissDownload'>): Promise<Output<'dismissDownload'>> => this.library.dismissDownload(input.downloadId);

  // --- runs ---

  private dataset(datasetId: number): DatasetSummary {
    const found = this.store.findDataset(datasetId);
    if (!found) throw new WapiiError('not_found', `dataset ${datasetId} does not exist`);
    return found;
  }

  /** Everything startRun checks before it writes anything: dataset, subset, model, its memory fit and whether it is busy. */
  private plan(input: StartRunInput): { dataset: DatasetSummary; all: Sample[]; samples: Sample[]; conditions: KnowledgeCondition[]; model: NonNullable<RunRow['model']> } {
    assertRunnable(input);
    const conditions = conditionsOf(input);
    const dataset = this.dataset(input.datasetId);
    const all = this.store.listSamples(dataset.id);
    const samples = selectSubset(all, input.subset);
    if (samples.length === 0) throw new WapiiError('bad_input', emptySubsetMessage(dataset.name, all, input.subset));
    multiStepRules(samples, runShapeOf(input));
    if ('remote' in input.model) return { dataset, all, samples, conditions, model: { name: input.model.remote.model, remote: input.model.remote.url } };
    if ('provider' in input.model) {
      const p = input.model.provider;
      // A missing key, a key bound for another origin, a batch or pool the provider has not: refused before anything is written.
      checkProviderSettings(p, this.providerContext);
      return { dataset, all, samples, conditions, model: { name: `${p.name}:${p.model}`, provider: storedProvider(p) } };
    }
    const model = this.library.model(input.model.modelId);
    if (!model.present) throw new WapiiError('bad_input', `model file not found: ${model.path} (moved or deleted since it was added)`);
    if (model.fit && !model.fit.fitsRam) throw new WapiiError('bad_input', `${model.name} ${model.fit.summary}`);
    const downloading = this.library.downloading(model.path);
    if (downloading) throw new WapiiError('conflict', `model ${model.name} is still downloading (${Math.round((downloading.downloadedBytes / Math.max(1, downloading.totalBytes)) * 100)}%)`);
    // Another process (a CLI run, a second serve) generating on this file: two copies of a model would not fit, and timings would lie.
    const busy = this.runs.list().find((r) => r.status === 'running' && r.model?.path === model.path && r.ownerPid !== null && r.ownerPid !== process.pid && isAlive(r.ownerPid));
    if (busy) throw new WapiiError('conflict', `model ${model.name} is busy: run ${busy.id} (process ${busy.ownerPid}) is generating with it; wait for it or cancel it there`);
    return { dataset, all, samples, conditions, model: { modelId: model.id, name: model.name, path: model.path } };
  }

  /** Keys, prices and request limits for hosted providers and servers. */
  private get providerContext(): ProviderContext & { prices: PriceTable } {
    return { keys: this.options.keys ?? environmentKeys(), prices: this.prices.table, ...(this.options.providerTimeoutMs !== undefined ? { timeoutMs: this.options.providerTimeoutMs } : {}), ...(this.options.providerRetry ? { retry: this.options.providerRetry } : {}), ...(this.options.batchPollMs !== undefined ? { batchPollMs: this.options.batchPollMs } : {}) };
  }

  /** Hosted chat models take chat prompts whatever the form said (they have no completion endpoint). */
  private effective<T extends StartRunInput>(input: T): T {
    const hostedChat = 'provider' in input.model && !entryOf(input.model.provider.name).capabilities.completion;
    return hostedChat && input.prompt !== 'chat' ? { ...input, prompt: 'chat' } : input;
  }

  /** The models a provider lists (for the New run page's model picker); a key is needed where the provider needs one. */
  listProviderModels = async (input: Parsed<'listProviderModels'>): Promise<Output<'listProviderModels'>> => {
    const provider = await providerFor({ name: input.provider, model: 'list', ...(input.baseUrl ? { baseUrl: input.baseUrl } : {}) }, this.providerContext, undefined, 'list');
    try {
      return { models: provider.listModels ? await provider.listModels(AbortSignal.timeout(15_000)) : [] };
    } catch (error) {
      throw new WapiiError('bad_input', `${input.provider}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  previewRun = async (raw: Parsed<'previewRun'>): Promise<Output<'previewRun'>> => {
    const input = this.effective(raw);
    const { samples, conditions, model } = this.plan(input);
    const outputs = samples.length * input.sampling.n * conditions.length;
    const base = { samples: samples.length, outputs, runs: conditions.length, apis: [...new Set(samples.map((s) => s.api))].sort(), estimate: estimateLine(outputs, input.sampling.maxTokens, this.rateFor(input, model)) };
    if (model.modelId !== undefined) {
      const longest = longestPrompt(samples, input);
      return longest ? { ...base, context: contextFit(longest, input.sampling.maxTokens, raw.contextSize, this.library.model(model.modelId).contextLength || null) } : base;
    }
    if (!('provider' in input.model)) return base;
    // Hosted: the most the run can cost, from the prompts it will send and the token limit, at the price table's rate.
    const p = input.model.provider;
    const promptChars = samples.reduce((sum, s) => sum + promptFor(input.prompt)({ api: s.api, task: s.task, config: s.config }, input.setup).text.length, 0) * input.sampling.n * conditions.length;
    const price = providerPrice(this.prices.table, p);
    const cost = estimateRunCost(price, { promptChars, outputs, maxTokens: input.sampling.maxTokens, batch: p.batch });
    const usd = cost.usd === undefined ? null : cost.usd;
    const line = usd === null ? `no price for ${p.model} in the price table${this.prices.file ? ` (${this.prices.file})` : ''}: cost unknown` : `at most about $${usd < 0.01 ? usd.toFixed(4) : usd.toFixed(2)}${p.batch ? ' at Batch API prices' : ''} (${cost.inputTokens.toLocaleString('en')} prompt tokens, up to ${cost.outputTokens.toLocaleString('en')} generated)${p.spendingCapUsd !== undefined ? `; the run stops at $${p.spendingCapUsd.toFixed(2)}` : ''}`;
    return { ...base, estimate: `${base.estimate}; ${line}`, cost: { inputTokens: cost.inputTokens, outputTokens: cost.outputTokens, usd, capUsd: p.spendingCapUsd ?? null } };
  };

  /**
   * The pace New run's estimate assumes: measured on the stored outputs of earlier runs of the
   * same model (so it survives restarts), else a typical rate, which the line calls a guess. A
   * server's or hosted model's time is per request, several of which are in flight at once.
   */
  private rateFor(input: StartRunInput, model: NonNullable<RunRow['model']>): Rate | 'batch' {
    const p = 'provider' in input.model ? input.model.provider : undefined;
    if (p?.batch) return 'batch';
    const servers = p ? Math.max(1, (p.baseUrl ? 1 : 0) + (p.pool?.length ?? 0)) : 1;
    // A provider that needs no key is a server of your own (llama-server, vLLM, Ollama); the others are hosted.
    const server = p !== undefined && entryOf(p.name).key !== 'required';
    const streams = p ? (p.concurrency ?? input.parallel ?? (server ? DEFAULT_PARALLEL : 8)) * servers : 'remote' in input.model ? (input.parallel ?? DEFAULT_PARALLEL) : 1;
    const measured = measuredRate(this.runs.outputPace(), model, input.setting, streams);
    if (measured) return measured;
    const typical = p ? (server ? TYPICAL_TOKENS_PER_SECOND.server : TYPICAL_TOKENS_PER_SECOND.hosted) : 'remote' in input.model ? TYPICAL_TOKENS_PER_SECOND.server : model.modelId !== undefined && this.library.model(model.modelId).fit?.fitsGpu ? TYPICAL_TOKENS_PER_SECOND.gpu : TYPICAL_TOKENS_PER_SECOND.cpu;
    return { tokensPerSecond: typical, outputs: 0, streams };
  }

  /** The stored specs of a dataset's APIs, parsed (the knowledge conditions read them). */
  private async specsOf(specHashes: ReadonlyMap<string, string>): Promise<Map<string, ApiSpec>> {
    const specs = new Map<string, ApiSpec>();
    for (const [api, hash] of specHashes) {
      const spec = await this.options.spec(hash);
      if (spec) specs.set(api, spec);
    }
    return specs;
  }

  startRun = async (raw: Parsed<'startRun'>): Promise<Output<'startRun'>> => {
    const input = this.effective(raw);
    const { dataset, all, samples, conditions, model } = this.plan(input);
    // A remote endpoint must answer (and take the key) before anything is queued: nowhere to send to is one line, not 395 errors (23.13).
    if (model.provider) await checkProvider(await providerFor(model.provider as StoredProvider, this.providerContext));
    else if (model.remote) await checkProvider(openAiCompatible({ baseUrl: model.remote, model: model.name }));
    const specHashes = this.store.datasetApis(dataset.id);
    const specs = conditions.some((c) => c.name !== 'none') ? await this.specsOf(specHashes) : new Map<string, ApiSpec>();
    // Every snapshot is built before any run is written: a condition that cannot be built queues none of them.
    const planned = conditions.map((condition) => ({ condition, inputs: snapshotWithKnowledge(samples, all, specs, specHashes, condition, { mode: input.setup, style: input.prompt, client: input.client }) }));
    const runIds = planned.map(({ condition, inputs }) => {
      const runId = this.runs.create({
        kind: 'generation',
        status: 'queued',
        dataset: dataset.name,
        datasetId: dataset.id,
        settings: settingsOf(input, samples.length, condition),
        manifest: { ...inputManifest(inputs, specHashes), datasetId: dataset.id, datasetName: dataset.name, knowledge: condition.name, versions: { node: process.version } },
        model,
        subset: input.subset,
        total: samples.length * input.sampling.n,
        ownerPid: process.pid,
        inputs,
      });
      this.jobs.enqueue(runId);
      return runId;
    });
    return { runId: runIds[0]!, runIds };
  };

  private summary(runId: number): Output<'cancelRun'> {
    return this.results.summary(this.results.run(runId));
  }

  cancelRun = async (input: Parsed<'cancelRun'>): Promise<Output<'cancelRun'>> => {
    const run = this.results.run(input.runId);
    if (!this.jobs.isQueuedOrActive(run.id)) throw new WapiiError('conflict', `run ${run.id} is ${run.status}, not queued or running`);
    await this.jobs.cancel(run.id);
    return this.summary(run.id);
  };

  resumeRun = async (input: Parsed<'resumeRun'>): Promise<Output<'resumeRun'>> => {
    const run = this.results.run(input.runId);
    if (run.kind !== 'generation') throw new WapiiError('conflict', `run ${run.id} scored imported code; only generation runs can be resumed`);
    if (this.jobs.isQueuedOrActive(run.id)) throw new WapiiError('conflict', `run ${run.id} is already ${run.status}`);
    // Runs on dataset files are made on a stored copy now; one an earlier version made straight from a file has no snapshot to resume from.
    if (run.datasetId === null) throw new WapiiError('conflict', `run ${run.id} was made straight from a dataset file by an earlier version and has no snapshot to resume from; its outputs stay stored: start a new run (\`wapii run --dataset ${run.dataset} --specs <dir>\` stores the file as a dataset first)`);
    const resumable = ['cancelled', 'interrupted', 'failed'].includes(run.status) || (run.status === 'finished' && input.retryErrors);
    if (!resumable) throw new WapiiError('conflict', `run ${run.id} is ${run.status}; only cancelled, interrupted or failed runs resume (a finished one with retryErrors)`);
    if (run.model?.modelId !== undefined) {
      const model = this.library.model(run.model.modelId);
      if (!model.present) throw new WapiiError('bad_input', `model file not found: ${model.path} (moved or deleted since the run started)`);
    }
    if (run.status === 'finished') this.runs.setStatus(run.id, 'queued');
    this.jobs.enqueue(run.id, input.retryErrors);
    return this.summary(run.id);
  };

  listRuns = async (): Promise<Output<'listRuns'>> => this.results.listRuns();
  getRun = async (input: Parsed<'getRun'>): Promise<Output<'getRun'>> => this.results.getRun(input.runId);

  deleteRun = async (input: Parsed<'deleteRun'>): Promise<Output<'deleteRun'>> => {
    const run = this.results.run(input.runId);
    if (this.jobs.isQueuedOrActive(run.id)) throw new WapiiError('conflict', `run ${run.id} is ${run.status}; cancel it before deleting it`);
    const row = this.runs.get(run.id);
    if (row && (row.status === 'queued' || row.status === 'running') && row.ownerPid !== null && isAlive(row.ownerPid)) {
      throw new WapiiError('conflict', `run ${run.id} is ${row.status} in another process (${row.ownerPid}); cancel it there before deleting it`);
    }
    const deleted = this.runs.delete(run.id);
    this.results.invalidate(run.id);
    this.options.emit({ type: 'runsChanged' });
    return { deleted };
  };

  listRunSamples = (input: Parsed<'listRunSamples'>): Promise<Output<'listRunSamples'>> => this.results.listRunSamples(input);
  getRunSample = (input: Parsed<'getRunSample'>): Promise<Output<'getRunSample'>> => this.results.getRunSample(input);
  compareRuns = (input: Parsed<'compareRuns'>): Promise<Output<'compareRuns'>> => this.results.compareRuns(input);
  compareConditions = (input: Parsed<'compareConditions'>): Promise<Output<'compareConditions'>> => compareConditions(this.results, input.runIds);
  overrideVerdict = (input: Parsed<'overrideVerdict'>): Promise<Output<'overrideVerdict'>> => this.results.overrideVerdict(input);
  exportRun = (input: Parsed<'exportRun'>): Promise<Output<'exportRun'>> => this.results.exportRun(input);
}

/** A run's provider settings as stored with it: the given fields only (no key ever is one). */
function storedProvider(p: ProviderModel): NonNullable<NonNullable<RunRow['model']>['provider']> {
  return {
    name: p.name,
    model: p.model,
    batch: p.batch,
    ...(p.baseUrl !== undefined ? { baseUrl: p.baseUrl } : {}),
    ...(p.pool !== undefined ? { pool: p.pool } : {}),
    ...(p.concurrency !== undefined ? { concurrency: p.concurrency } : {}),
    ...(p.spendingCapUsd !== undefined ? { spendingCapUsd: p.spendingCapUsd } : {}),
  };
}
