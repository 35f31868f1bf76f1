import type { WorkbenchEvent } from '../api/contract.js';
import { DEFAULT_PARALLEL } from '../api/constants.js';
import { readRunSettings, repairRoundsOf, type RunProgressValue, type RunStatus } from '../api/evaluation.js';
import { createExecutor } from '../execution/index.js';
import { loadRuntime, localBackend, remoteBackend, type GenerationBackend, type GpuChoice, type Runtime, type ChatWrapperName } from '../generation/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { constrainerFor, executeRun, type RunProgress, type RunSample } from '../runner/index.js';
import type { Store } from '../store/index.js';
import type { RunRepository, RunRow } from '../store/runs.js';
import type { ModelLibrary } from './models.js';
import { providerFor, providerPrice, type ProviderContext } from './providers.js';
import { providerBackend } from '../generation/providerBackend.js';
import type { PriceTable } from '../providers/prices.js';
import { environmentKeys } from './apiKeys.js';
import type { RunResults } from './runResults.js';
import { runSetupOptions } from './runPlan.js';

export interface JobsContext {
  readonly store: Store;
  readonly runs: RunRepository;
  readonly results: RunResults;
  readonly library: ModelLibrary;
  readonly spec: (hash: string) => Promise<ApiSpec | undefined>;
  readonly emit: (event: WorkbenchEvent) => void;
  readonly gpu?: GpuChoice;
  readonly threads?: number;
  /** Constraint work per token before a sample ends as a timeout. */
  readonly stepDeadlineMs?: number;
  /** The chat template of chat prompts (default: the model's own). */
  readonly chatWrapper?: ChatWrapperName;
  /** Called with each run's progress as it happens (the CLI draws its progress line from it). */
  readonly onProgress?: (runId: number, progress: RunProgress) => void;
  /** Hosted providers' keys, prices and request limits (main/service/providers.ts). */
  readonly providers?: ProviderContext & { readonly prices: PriceTable };
}

interface QueuedRun {
  readonly runId: number;
  readonly retryErrors: boolean;
}

/** How often progress events go out while a run generates (the last one always does). */
const PROGRESS_INTERVAL_MS = 250;

/**
 * The service's run queue: one run at a time, in the order queued, on one loaded model that
 * queued runs on the same file reuse (it is unloaded when the queue drains or another model is
 * needed). Every output is stored as it finishes (executeRun), so cancel keeps what is done and
 * resume continues from it.
 */
export class RunJobs {
  private readonly queue: QueuedRun[] = [];
  private active:
    | {
        runId: number;
        controller: AbortController;
        stopAs: 'cancelled' | 'interrupted';
        stopped: Promise<void>;
        backend?: GenerationBackend;
        /** A cancel's stop of the work the run left at its provider (a batch at OpenAI): what it says goes on the run's line. */
        remote?: Promise<string | undefined> | undefined;
      }
    | undefined;
  private readonly live = new Map<number, RunProgressValue>();
  private loaded: { file: string; runtime: Runtime } | undefined;
  private pumping: Promise<void> | undefined;
  private closed = false;
  private loads = 0;

  constructor(private readonly ctx: JobsContext) {}

  /** How many times a model was loaded in this process (queued runs on the same file share one load). */
  get modelLoads(): number {
    return this.loads;
  }

  progress(runId: number): RunProgressValue | null {
    return this.live.get(runId) ?? null;
  }

  isQueuedOrActive(runId: number): boolean {
    return this.active?.runId === runId || this.queue.some((q) => q.runId === runId);
  }

  /** The model file the active run uses, if any. */
  activeModelFile(): string | undefined {
    if (!this.active) return undefined;
    return this.ctx.runs.get(this.active.runId)?.model?.path;
  }

  private setStatus(runId: number, status: RunStatus, fields: { error?: string | null; finished?: boolean } = {}): void {
    this.ctx.runs.setStatus(runId, status, { ...fields, ownerPid: status === 'queued' || status === 'running' ? process.pid : null });
    this.ctx.results.invalidate(runId);
    this.ctx.emit({ type: 'runStatus', runId, status, ...(fields.error ? { message: fields.error } : {}) });
    this.ctx.emit({ type: 'runsChanged' });
  }

  enqueue(runId: number, retryErrors = false): void {
    if (this.closed) return;
    this.queue.push({ runId, retryErrors });
    this.setStatus(runId, 'queued', { error: null });
    // The queue never takes the process down: a failure it could not pin on a run (the database
    // refusing a status write) is logged and the queue stops; the next enqueue starts it again.
    this.pumping ??= this.pump()
      .catch((error: unknown) => console.error(`wapii: the run queue stopped: ${error instanceof Error ? error.message : String(error)}`))
      .finally(() => (this.pumping = undefined));
  }

  /** Stops a queued or running run; the outputs stored so far stay. */
  async cancel(runId: number): Promise<void> {
    const queued = this.queue.findIndex((q) => q.runId === runId);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.setStatus(runId, 'cancelled', { error: 'cancelled before it started' });
      return;
    }
    if (this.active?.runId === runId) {
      this.active.stopAs = 'cancelled';
      // Asked before the abort, while the provider still knows what it waits on: a cancelled batch
      // is not billed; an interrupted run (shutdown) keeps its batch for the resume.
      this.active.remote = this.active.backend?.cancelRemote?.();
      this.active.controller.abort();
      // Only this run: the runs queued after it go on.
      await this.active.stopped;
    }
  }

  /** Resolves when the queue is empty and nothing runs. */
  async idle(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  /** The process is stopping: the active run stops as interrupted (resumable), queued ones too. */
  async shutdown(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) this.setStatus(q.runId, 'interrupted', { error: 'the workbench stopped before it started' });
    if (this.active) {
      this.active.stopAs = 'interrupted';
      this.active.controller.abort();
    }
    await this.idle();
    await this.unload();
  }

  private async unload(): Promise<void> {
    const loaded = this.loaded;
    this.loaded = undefined;
    await loaded?.runtime.dispose();
  }

  private async pump(): Promise<void> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        await this.execute(next);
        continue;
      }
      // Drained: free the model. A run queued while it unloads is picked up here, not left waiting.
      await this.unload();
      if (this.queue.length === 0) return;
    }
  }

  private async runtimeFor(file: string): Promise<Runtime> {
    if (this.loaded?.file === file) return this.loaded.runtime;
    await this.unload();
    const runtime = await loadRuntime(file, { gpu: this.ctx.gpu ?? 'auto', ...(this.ctx.threads ? { threads: this.ctx.threads } : {}), sha256: (f) => this.ctx.library.sha256(f) });
    this.loaded = { file, runtime };
    this.loads++;
    return runtime;
  }

  private async backendFor(run: RunRow, specs: ReadonlyMap<string, ApiSpec>, signal: AbortSignal, onFatal: (message: string) => void): Promise<GenerationBackend> {
    const s = readRunSettings(run.settings);
    const sampling = { temperature: s.temperature, topK: s.topK, topP: s.topP, maxTokens: s.maxTokens };
    // Absent (the default): a local model takes its runtime's (see defaultParallel), a remote server DEFAULT_PARALLEL.
    const parallel = s.parallel ?? undefined;
    // The runner's constraints of the run's specs, handed to generation (which imports no other stage).
    const constrainBy = s.setting === 'constrained' ? constrainerFor(specs) : undefined;
    const chat = s.prompt === 'chat';
    if (run.model?.provider) {
      const stored = run.model.provider;
      const providers = this.ctx.providers ?? { keys: environmentKeys(), prices: {} };
      // A batch run records each batch it submits in its manifest: a resumed run reads those results instead of paying again.
      const batches = Array.isArray(run.manifest?.['batches']) ? (run.manifest['batches'] as string[]) : [];
      const onBatch = (batchId: string): void => {
        const current = this.ctx.runs.get(run.id)?.manifest ?? {};
        const known = Array.isArray(current['batches']) ? (current['batches'] as string[]) : [];
        this.ctx.runs.setManifest(run.id, { ...current, batches: [...known, batchId] });
      };
      const provider = await providerFor({ ...stored, ...(parallel !== undefined && stored.concurrency === undefined ? { concurrency: parallel } : {}) }, providers, { batches, onBatch });
      const price = providerPrice(providers.prices, stored);
      return providerBackend(provider, {
        ...sampling,
        promptStyle: chat ? 'chat' : 'completion',
        signal,
        onFatal,
        ...(constrainBy ? { constrainBy } : {}),
        ...(price ? { price } : {}),
        ...(stored.batch ? { batchPrices: true } : {}),
        ...(stored.spendingCapUsd !== undefined ? { spendingCapUsd: stored.spendingCapUsd } : {}),
      });
    }
    if (run.model?.remote) {
      return remoteBackend({ url: run.model.remote, model: run.model.name, ...sampling, parallel: parallel ?? DEFAULT_PARALLEL, signal, onFatal, ...(this.ctx.providers?.timeoutMs !== undefined ? { timeoutMs: this.ctx.providers.timeoutMs } : {}), ...(constrainBy ? { constrainBy } : {}) });
    }
    const file = run.model?.path;
    if (!file) throw new Error(`run ${run.id} names no model`);
    const runtime = await this.runtimeFor(file);
    return localBackend(runtime, {
      ...sampling,
      ...(parallel !== undefined ? { parallel } : {}),
      contextSize: s.contextSize ?? 1024,
      stepDeadlineMs: this.ctx.stepDeadlineMs ?? 10_000,
      ...(constrainBy ? { constrainBy } : {}),
      ...(s.prompt === 'chat' ? { chatWrapper: this.ctx.chatWrapper ?? 'auto' } : {}),
    });
  }

  private async execute({ runId, retryErrors }: QueuedRun): Promise<void> {
    const run = this.ctx.runs.get(runId);
    if (!run) return;
    const controller = new AbortController();
    let markStopped = (): void => undefined;
    this.active = { runId, controller, stopAs: 'cancelled', stopped: new Promise<void>((r) => (markStopped = r)) };
    let inputs: ReturnType<RunRepository['inputs']>;
    try {
      this.setStatus(runId, 'running', { error: null });
      inputs = this.ctx.runs.inputs(runId);
    } catch (error) {
      this.active = undefined;
      markStopped();
      throw error;
    }
    const sampleIds = new Map(inputs.map((i) => [i.index, i.sampleId]));
    let lastEmit = 0;
    const onProgress = (p: RunProgress): void => {
      const value: RunProgressValue = {
        done: p.done,
        total: p.total,
        correct: p.correct,
        errors: p.errors,
        tokens: p.tokens,
        tokensPerSecond: p.tokensPerSecond,
        etaSeconds: p.etaSeconds ?? null,
        current: p.current ? { index: p.current.index, api: p.current.api, sampleId: sampleIds.get(p.current.index) ?? null } : null,
      };
      this.live.set(runId, value);
      this.ctx.onProgress?.(runId, p);
      this.ctx.results.invalidate(runId);
      const now = performance.now();
      if (now - lastEmit >= PROGRESS_INTERVAL_MS || p.done === p.total) {
        lastEmit = now;
        this.ctx.emit({ type: 'runProgress', runId, ...value });
      }
    };
    let backend: GenerationBackend | undefined;
    let fatal: string | undefined;
    let ending: { status: RunStatus; fields: { error?: string | null; finished?: boolean } } = { status: 'failed', fields: { error: 'stopped unexpectedly' } };
    try {
      const specs = new Map<string, ApiSpec>();
      for (const input of inputs) {
        if (specs.has(input.api) || !input.specHash) continue;
        const spec = await this.ctx.spec(input.specHash);
        if (spec) specs.set(input.api, spec);
      }
      const samples: RunSample[] = inputs.map((i) => ({ index: i.index, api: i.api, task: i.task, config: i.config, ...(i.knowledge ? { knowledge: i.knowledge } : {}), ...(i.fields ? { fields: i.fields } : {}), ...(i.setup ? { setup: i.setup } : {}) }));
      // A bad key, spent quota or the spending cap stops the whole run at once (in-flight requests aborted), as failed with that line.
      backend = await this.backendFor(run, specs, controller.signal, (message) => {
        fatal ??= message;
        controller.abort();
      });
      this.active.backend = backend;
      const manifest = { ...(run.manifest ?? {}), ...backend.manifest };
      this.ctx.runs.setManifest(runId, manifest);
      await using executor = createExecutor({ timeoutMs: 1000 });
      const setup = runSetupOptions(run.settings);
      const typed = readRunSettings(run.settings);
      const result = await executeRun({
        store: this.ctx.store,
        backend,
        executor,
        samples,
        specs,
        plan: { mode: setup.mode, promptStyle: setup.style, client: setup.client, n: typed.n, seed: typed.seed, settings: run.settings, manifest, dataset: run.dataset, repairRounds: repairRoundsOf(typed) },
        resume: runId,
        retryErrors,
        signal: controller.signal,
        onProgress,
        markFinished: false,
      });
      await this.ctx.results.storeStatistics(runId);
      // Read again: a batch run added its batch ids while it ran.
      if (backend.totals) this.ctx.runs.setManifest(runId, { ...(this.ctx.runs.get(runId)?.manifest ?? manifest), usage: backend.totals() });
      const outcome = outcomeOf(this.ctx.store.getRun(runId)?.samples ?? []);
      if (fatal !== undefined && (result.interrupted || outcome.scored === 0)) ending = { status: 'failed', fields: { error: fatal } };
      else if (result.interrupted) {
        const remote = this.active.stopAs === 'cancelled' ? await this.active.remote : undefined;
        ending = { status: this.active.stopAs, fields: { error: this.active.stopAs === 'cancelled' ? `cancelled; finished outputs are kept${remote ? `; ${remote}` : ''}` : 'the workbench stopped; finished outputs are kept' } };
      }
      // Nothing scored: the run failed, whatever ran (23.13); some errors: finished, saying how many (Retry errors regenerates them).
      else if (outcome.scored === 0 && outcome.errors > 0) ending = { status: 'failed', fields: { error: `all ${outcome.errors} outputs failed; the first: ${outcome.firstError}` } };
      else ending = { status: 'finished', fields: { finished: true, ...(outcome.errors > 0 ? { error: `finished with ${outcome.errors} errors; the first: ${outcome.firstError}` } : {}) } };
    } catch (error) {
      ending = { status: 'failed', fields: { error: (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'failed' } };
    } finally {
      // The run stops being active before its final status is written: whoever sees that status
      // (a Resume right after "finished") must not find the run still active.
      this.live.delete(runId);
      this.active = undefined;
      try {
        this.setStatus(runId, ending.status, ending.fields);
      } finally {
        // Whatever the database said, the model is released and a waiting cancel returns.
        await backend?.[Symbol.asyncDispose]();
        markStopped();
      }
    }
  }
}

/** How a run's stored outputs came out: scored, errored, and the first error's line. */
export function outcomeOf(samples: readonly { readonly error?: string | undefined }[]): { scored: number; errors: number; firstError: string } {
  const errored = samples.filter((s) => s.error !== undefined);
  return { scored: samples.length - errored.length, errors: errored.length, firstError: (errored[0]?.error ?? '').split('\n')[0]! };
}

