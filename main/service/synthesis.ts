import { setMaxListeners } from 'node:events';
import type { Output, Parsed, WorkbenchEvent } from '../api/contract.js';
import { WapiiError } from '../api/result.js';
import type { JsonValue, Sample, SampleStep } from '../api/schemas.js';
import { carriedSource } from '../api/steps.js';
import type { SynthesisJob } from '../api/synthesis.js';
import { checkSample, sampleId } from '../dataset/index.js';
import { createExecutor, type Executor } from '../execution/index.js';
import { resolveEndpoint, type ApiSpec, type Endpoint } from '../openapi/index.js';
import { oracleProgram, stepsOracleProgram } from '../prompt/index.js';
import { evaluateCode, evaluateStepsCode, stepsOf } from '../runner/index.js';
import type { Store, SynthesizedSampleRecord } from '../store/index.js';
import { costOf, priceOf, type PriceTable } from '../providers/prices.js';
import { PROVIDER_NAMES, PROVIDERS } from '../providers/registry.js';
import type { ModelProvider } from '../providers/types.js';
import { DEFAULT_RETRY, findChains, pickChains, runSynthesisJob, type Chain, type JobSink, type RetryPolicy, type SynthesisTarget } from '../synthesis/index.js';
import type { ApiKeyStore } from './apiKeys.js';
import { entryOf, providerFor } from './providers.js';
import { apiCoverage, endpointKey } from './coverage.js';
import { isAlive } from './liveness.js';

export interface SynthesisContext {
  readonly store: Store;
  readonly author: string;
  readonly keys: ApiKeyStore;
  readonly retry: RetryPolicy;
  /** Prices per million tokens (the registry's, with the user's file over them). */
  readonly prices: PriceTable;
  readonly spec: (hash: string) => Promise<ApiSpec>;
  readonly emit: (event: WorkbenchEvent) => void;
  readonly log: (message: string) => void;
}

type Settings = SynthesisJob['settings'];

/** `post  /shipments` → `POST /shipments`. */
const normaliseKey = (text: string): string => {
  const [method = '', ...rest] = text.trim().split(/\s+/);
  return `${method.toUpperCase()} ${rest.join(' ')}`;
};

/**
 * Synthesis jobs: choosing the endpoints, making the provider, running the job and storing what
 * it gives (checked, and its ground-truth program run in the sandbox) as it arrives.
 */
/** A synthesis answer runs to tens of thousands of tokens, not streamed: minutes. */
const SYNTHESIS_TIMEOUT_MS = 600_000;
/** The job retries (synthesisRetry), counting each: the provider does not retry underneath it. */
const NO_RETRY: RetryPolicy = { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 };
/** Chains drafted per API when a job does not say. */
const DEFAULT_MAX_CHAINS = 10;
const operationKey = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method.toUpperCase()} ${e.path}`;

export class SynthesisJobs {
  private readonly active = new Map<number, { controller: AbortController; done: Promise<void> }>();
  /** Jobs being resumed: between the check and the launch (a local model may take seconds to load). */
  private readonly starting = new Set<number>();
  /** Why the last request of a running job was retried, shown while its retry waits; a request answered since clears it. */
  private readonly lastRetry = new Map<number, { message: string; at: string }>();
  constructor(private readonly ctx: SynthesisContext) {}

  private withRetry(job: SynthesisJob): SynthesisJob {
    const last = job.status === 'running' ? this.lastRetry.get(job.id) : undefined;
    return last ? { ...job, lastRetry: last } : job;
  }

  /** Running here, or in another live process that shares the database (it owns the job). */
  readonly isActive = (id: number, ownerPid: number | null): boolean => this.active.has(id) || (ownerPid !== null && ownerPid !== process.pid && isAlive(ownerPid));

  job(id: number): SynthesisJob {
    const job = this.ctx.store.synthesis.getJob(id, this.isActive);
    if (!job) throw new WapiiError('not_found', `synthesis job ${id} does not exist`);
    return this.withRetry(job);
  }

  list(datasetId: number | undefined): SynthesisJob[] {
    return this.ctx.store.synthesis.listJobs(datasetId, this.isActive).map((job) => this.withRetry(job));
  }

  /** The dataset's APIs with their specs, `api` alone when given. */
  private async apis(datasetId: number, api: string | undefined): Promise<{ api: string; spec: ApiSpec; specText: string }[]> {
    const dataset = this.ctx.store.findDataset(datasetId);
    if (!dataset) throw new WapiiError('not_found', `dataset ${datasetId} does not exist`);
    if (api !== undefined && !dataset.apis.some((a) => a.api === api)) {
      throw new WapiiError('not_found', `dataset ${datasetId} has no API "${api}" (have: ${dataset.apis.map((a) => a.api).join(', ')})`);
    }
    const out = [];
    for (const a of dataset.apis) {
      if (api !== undefined && a.api !== api) continue;
      out.push({ api: a.api, spec: await this.ctx.spec(a.specHash), specText: this.ctx.store.getSpec(a.specHash)?.content ?? '' });
    }
    return out;
  }

  /** The endpoints a selection names, per API; an endpoint no spec has is an error naming it. */
  private async targets(datasetId: number, selection: Settings['endpoints'], api: string | undefined): Promise<SynthesisTarget[]> {
    const apis = await this.apis(datasetId, api);
    const samples = this.ctx.store.listSamples(datasetId);
    const wanted = Array.isArray(selection) ? new Set(selection.map(normaliseKey)) : undefined;
    const found = new Set<string>();
    const targets: SynthesisTarget[] = [];
    for (const a of apis) {
      const coverage = apiCoverage(a.api, a.spec, samples);
      const counts = new Map(coverage.endpoints.map((e) => [e.key, e.samples]));
      const endpoints = a.spec.endpoints.filter((e) => {
        const key = endpointKey(e);
        if (wanted) {
          if (wanted.has(key)) found.add(key);
          return wanted.has(key);
        }
        return selection === 'all' || (counts.get(key) ?? 0) === 0;
      });
      if (endpoints.length > 0) targets.push({ ...a, endpoints });
    }
    if (wanted) {
      const unknown = [...wanted].filter((k) => !found.has(k));
      if (unknown.length > 0) {
        const names = apis.map((a) => a.api).join(', ');
        throw new WapiiError('bad_input', `no endpoint ${unknown.map((k) => `"${k}"`).join(', ')} in the spec of ${names}; name endpoints as "METHOD /path" with the spec's path template (see \`wapii coverage\`)`);
      }
    }
    return targets;
  }

  /**
   * The chains a chains job drafts, per API: findChains' candidates, those a selection names
   * (`uncovered`: no multi-step sample of the dataset follows them yet, by operations and
   * carried parameter; a list: those whose first or second operation it names), then at most
   * `maxChains` of them, best first and varied (pickChains).
   */
  private async chainTargets(datasetId: number, selection: Settings['endpoints'], api: string | undefined, maxChains: number): Promise<SynthesisTarget[]> {
    const apis = await this.apis(datasetId, api);
    const samples = this.ctx.store.listSamples(datasetId);
    const wanted = Array.isArray(selection) ? new Set(selection.map(normaliseKey)) : undefined;
    const found = new Set<string>();
    const targets: SynthesisTarget[] = [];
    for (const a of apis) {
      const followed = selection === 'uncovered' ? this.followedChains(a.spec, samples.filter((s) => s.api === a.api)) : new Set<string>();
      const candidates = findChains(a.spec).filter((c) => {
        if (wanted) {
          const named = [operationKey(c.producer), operationKey(c.consumer)].filter((k) => wanted.has(k));
          for (const k of named) found.add(k);
          return named.length > 0;
        }
        return !followed.has(`${operationKey(c.producer)} ${operationKey(c.consumer)} ${c.parameter.carried}`);
      });
      const chains = pickChains(candidates, maxChains);
      if (chains.length > 0) targets.push({ ...a, endpoints: [], chains });
    }
    if (wanted) {
      const unknown = [...wanted].filter((k) => !found.has(k));
      if (unknown.length > 0) {
        const known = new Set(apis.flatMap((a) => a.spec.endpoints.map(operationKey)));
        const names = apis.map((a) => a.api).join(', ');
        const absent = unknown.filter((k) => !known.has(k));
        throw new WapiiError(
          'bad_input',
          absent.length > 0
            ? `no endpoint ${absent.map((k) => `"${k}"`).join(', ')} in the spec of ${names}; name endpoints as "METHOD /path" with the spec's path template (see \`wapii coverage\`)`
            : `no chain found with ${unknown.map((k) => `"${k}"`).join(', ')} in the spec of ${names}: no field of its response is another operation's parameter, or the other way round, by name`,
        );
      }
    }
    return targets;
  }

  /** `PRODUCER CONSUMER carried-key` of every carried value the API's multi-step samples hold. */
  private followedChains(spec: ApiSpec, samples: readonly Sample[]): Set<string> {
    const out = new Set<string>();
    for (const sample of samples) {
      const steps = stepsOf(sample.fields);
      if (!steps) continue;
      const endpoints = steps.map((s) => resolveEndpoint(spec, s.config.url, s.config.method.toLowerCase(), s.config.params ?? {}).endpoint);
      steps.forEach((step, j) => {
        for (const [where, source] of Object.entries(step.carried ?? {})) {
          const producer = endpoints[carriedSource(source).step];
          const consumer = endpoints[j];
          if (producer && consumer) out.add(`${operationKey(producer)} ${operationKey(consumer)} ${where}`);
        }
      });
    }
    return out;
  }

  /** A chains job's chains of each API still open (its endpoints are chain keys), found again from the spec. */
  private chainsByKey(spec: ApiSpec, keys: ReadonlySet<string>): Chain[] {
    return findChains(spec).filter((c) => keys.has(c.key));
  }

  /**
   * The provider a job names, made by its registry entry: any provider whose answers can be held
   * to a JSON Schema. It retries nothing itself; the job retries (and counts and shows each retry).
   */
  private async provider(name: string, settings: Settings, model: string | undefined): Promise<ModelProvider> {
    const entry = entryOf(name);
    if (!entry.capabilities.jsonSchema) throw new WapiiError('bad_input', `${name} cannot hold its answer to a JSON Schema, which synthesis needs: use ${PROVIDER_NAMES.filter((n) => PROVIDERS[n].capabilities.jsonSchema).join(', ')}`);
    const chosen = entry.modelIs === 'file' ? settings.modelFile : (model ?? entry.defaultModel);
    if (!chosen) throw new WapiiError('bad_input', entry.modelIs === 'file' ? `the ${name} provider needs --model <file.gguf>` : `the ${name} provider needs --model (the name the server knows the model by)`);
    try {
      return await providerFor({ name, model: chosen, ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}) }, { keys: this.ctx.keys, timeoutMs: SYNTHESIS_TIMEOUT_MS, retry: NO_RETRY }, undefined, 'synthesis');
    } catch (error) {
      if (entry.modelIs === 'file' && error instanceof WapiiError) throw new WapiiError('bad_input', `cannot load ${chosen}: ${error.message.replace(/^[^:]+: /, '')}`);
      throw error;
    }
  }

  async start(input: Parsed<'synthesize'>): Promise<Output<'synthesize'>> {
    const local = entryOf(input.provider).modelIs === 'file';
    const chains = input.kind === 'chains';
    const settings: Settings = {
      ...(chains ? { kind: 'chains' as const, maxChains: input.maxChains ?? DEFAULT_MAX_CHAINS } : {}),
      endpoints: input.endpoints,
      ...(input.api !== undefined ? { api: input.api } : {}),
      ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
      ...(local && (input.modelFile ?? input.model) ? { modelFile: input.modelFile ?? input.model } : {}),
      concurrency: input.concurrency,
      // A local model answers one request at a time, and a long one holds the others.
      batchSize: input.batchSize ?? (local ? 1 : chains ? 4 : 8),
      samplesPerEndpoint: input.samplesPerEndpoint,
    };
    const targets = chains ? await this.chainTargets(input.datasetId, input.endpoints, input.api, settings.maxChains ?? DEFAULT_MAX_CHAINS) : await this.targets(input.datasetId, input.endpoints, input.api);
    if (targets.length === 0) {
      throw new WapiiError(
        'conflict',
        chains
          ? `nothing to synthesize: no chain${input.api ? ` of ${input.api}` : ''} left to draft (a field of one operation's response that is another's parameter, by name), or every one already has a multi-step sample (ask for --endpoints all or a list)`
          : `nothing to synthesize: every endpoint${input.api ? ` of ${input.api}` : ''} already has a sample (ask for --endpoints all or a list)`,
      );
    }
    const provider = await this.provider(input.provider, settings, local ? undefined : input.model);
    const jobId = this.ctx.store.synthesis.createJob({
      datasetId: input.datasetId,
      provider: input.provider,
      model: provider.model,
      settings,
      endpoints: targets.flatMap((t) => (t.chains ? t.chains.map((c) => ({ api: t.api, endpoint: c.key })) : t.endpoints.map((e) => ({ api: t.api, endpoint: endpointKey(e) })))),
    });
    return this.launch(jobId, input.datasetId, provider, settings, targets, input.wait);
  }

  async resume(input: Parsed<'resumeSynthesis'>): Promise<Output<'resumeSynthesis'>> {
    const job = this.job(input.jobId);
    if (job.status === 'running' || this.starting.has(job.id)) throw new WapiiError('conflict', `synthesis job ${job.id} is running already`);
    // Held from here until launch: a second resume while the provider loads must not start it twice.
    this.starting.add(job.id);
    try {
      return await this.resumeJob(job, input.wait);
    } finally {
      this.starting.delete(job.id);
    }
  }

  private async resumeJob(job: SynthesisJob, wait: boolean): Promise<SynthesisJob> {
    const open = this.ctx.store.synthesis.openEndpoints(job.id);
    if (open.length === 0) throw new WapiiError('conflict', `synthesis job ${job.id} has no endpoint left to ask for`);
    const targets: SynthesisTarget[] = [];
    for (const a of await this.apis(job.datasetId, undefined)) {
      const keys = new Set(open.filter((o) => o.api === a.api).map((o) => o.endpoint));
      if (job.settings.kind === 'chains') {
        const chains = keys.size > 0 ? this.chainsByKey(a.spec, keys) : [];
        if (chains.length > 0) targets.push({ ...a, endpoints: [], chains });
        continue;
      }
      const endpoints = a.spec.endpoints.filter((e: Endpoint) => keys.has(endpointKey(e)));
      if (endpoints.length > 0) targets.push({ ...a, endpoints });
    }
    // A chain is found again by its key: a spec changed since may no longer have it.
    if (targets.length === 0 && job.settings.kind === 'chains') throw new WapiiError('conflict', `synthesis job ${job.id}: none of its ${open.length} open chains is found in its dataset's specs any more`);
    const provider = await this.provider(job.provider, job.settings, job.model);
    const claimed = this.ctx.store.synthesis.claim(job.id, isAlive);
    if (!claimed.ok) {
      await provider.dispose?.();
      throw new WapiiError('conflict', `synthesis job ${job.id} was resumed meanwhile by another process (pid ${claimed.ownerPid})`);
    }
    return this.launch(job.id, job.datasetId, provider, job.settings, targets, wait);
  }

  cancel(jobId: number): SynthesisJob {
    const job = this.job(jobId);
    const running = this.active.get(jobId);
    if (running) running.controller.abort();
    else if (job.status === 'running') throw new WapiiError('conflict', `synthesis job ${jobId} is running in another process; cancel it there`);
    else if (job.status === 'interrupted') this.ctx.store.synthesis.setStatus(jobId, 'cancelled');
    else throw new WapiiError('conflict', `synthesis job ${jobId} is not running (it is ${job.status})`);
    return this.job(jobId);
  }

  /** Waits for every running job to stop (disposal, tests). */
  async settle(): Promise<void> {
    await Promise.all([...this.active.values()].map((a) => a.done));
  }

  private async launch(jobId: number, datasetId: number, provider: ModelProvider, settings: Settings, targets: SynthesisTarget[], wait: boolean): Promise<SynthesisJob> {
    const controller = new AbortController();
    // Every request in flight, its retries and their waits listen to the job's one signal.
    setMaxListeners(0, controller.signal);
    const done = this.execute(jobId, datasetId, provider, settings, targets, controller.signal)
      .catch((error: unknown) => {
        this.ctx.log(`synthesis job ${jobId} stopped: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        try {
          this.ctx.store.synthesis.release(jobId);
        } catch {
          // The database is what failed; a restart finds the job's process gone and shows it interrupted.
        }
      })
      .finally(() => (this.active.delete(jobId), this.lastRetry.delete(jobId)));
    this.active.set(jobId, { controller, done });
    if (wait) await done;
    return this.job(jobId);
  }

  private async execute(jobId: number, datasetId: number, provider: ModelProvider, settings: Settings, targets: SynthesisTarget[], signal: AbortSignal): Promise<void> {
    const repo = this.ctx.store.synthesis;
    const price = priceOf(this.ctx.prices, provider.name, provider.model);
    const specs = new Map(targets.map((t) => [t.api, t.spec]));
    const task = `synthesis job ${jobId}`;
    await using executor: Executor = createExecutor({ workers: 1 });
    await using owned = { provider, [Symbol.asyncDispose]: async () => provider.dispose?.() };
    const sink: JobSink = {
      accept: async (batch, prompt, answer, samples, dropped) => {
        const spec = specs.get(batch.api);
        const records: SynthesizedSampleRecord[] = [];
        const taken = new Set<string>();
        for (const s of samples) {
          // A chain's draft is a multi-step sample: its steps are its fields, checked as an imported one's.
          const fields = s.steps ? { steps: JSON.parse(JSON.stringify(s.steps)) as JsonValue } : undefined;
          const findings = checkSample(spec, { api: batch.api, config: s.config, source: {}, fields });
          const groundTruth = !spec ? { verdict: 'nonexecutable', error: 'no spec' } : s.steps ? await this.stepsGroundTruth(s.task, s.steps, spec, executor) : await this.groundTruth(s, spec, executor);
          let occurrence = 0;
          let id = sampleId(batch.api, s.task, s.config, occurrence);
          while (taken.has(id) || this.ctx.store.getSample(datasetId, id)) id = sampleId(batch.api, s.task, s.config, ++occurrence);
          taken.add(id);
          records.push({ id, endpoint: s.endpoint, task: s.task, config: s.config, findings, groundTruth, ...(fields ? { fields } : {}) });
        }
        repo.storeSamples({
          jobId,
          datasetId,
          api: batch.api,
          provider: provider.name,
          model: provider.model,
          author: this.ctx.author,
          answer: { promptHash: prompt.hash, raw: answer.text, finish: answer.finish },
          samples: records,
          notes: new Map([...dropped].map(([endpoint, n]) => [endpoint, `the answer gave ${n + settings.samplesPerEndpoint} samples; kept the ${settings.samplesPerEndpoint} asked for, dropped ${n}`])),
        });
        for (const [endpoint, n] of dropped) this.ctx.log(`${task}: ${batch.api} ${endpoint}: dropped ${n} samples beyond the ${settings.samplesPerEndpoint} asked for`);
        this.ctx.emit({ type: 'datasetsChanged' });
      },
      fail: (batch, keys, failure, prompt, answer) => {
        repo.recordFailure(jobId, batch.api, keys, failure, prompt?.hash, answer && prompt ? { promptHash: prompt.hash, raw: answer.text, finish: answer.finishReason ? `${answer.finish}: ${answer.finishReason}` : answer.finish } : undefined);
      },
      usage: (usage) => (this.lastRetry.delete(jobId), repo.addUsage(jobId, usage, costOf(price, usage) ?? 0)),
      retry: (error) => (repo.addRetry(jobId), this.lastRetry.set(jobId, { message: error.message, at: new Date().toISOString() })),
      progress: (done, total) => this.ctx.emit({ type: 'progress', task, done, total, message: `${provider.name} ${provider.model}` }),
    };
    const { cancelled } = await runSynthesisJob(
      owned.provider,
      { targets, samplesPerEndpoint: settings.samplesPerEndpoint, batchSize: settings.batchSize, concurrency: settings.concurrency, retry: this.ctx.retry },
      sink,
      signal,
    );
    // Stored `finished`; a job with no endpoint done reads `failed` (SynthesisRepository.toJob).
    repo.setStatus(jobId, cancelled ? 'cancelled' : 'finished');
    this.ctx.emit({ type: 'datasetsChanged' });
  }

  /** A multi-step draft's ground-truth program (each carried value read from the response it points into), run in the sandbox against its steps' stubs. */
  private async stepsGroundTruth(task: string, steps: readonly SampleStep[], spec: ApiSpec, executor: Executor): Promise<{ verdict: string; error?: string }> {
    const program = stepsOracleProgram({ task, steps }, 'axios');
    const evaluation = await evaluateStepsCode(program, steps, spec, executor);
    const error = evaluation.verdict.error_verdict ?? evaluation.execution?.error;
    return { verdict: evaluation.verdict.sample_verdict, ...(error ? { error: typeof error === 'string' ? error : `${error.kind}: ${error.message}` } : {}) };
  }

  /** The sample's ground-truth program, run in the sandbox and scored against the sample itself. */
  private async groundTruth(sample: Pick<Sample, 'task' | 'config'>, spec: ApiSpec, executor: Executor): Promise<{ verdict: string; error?: string }> {
    const { program } = oracleProgram(sample, 'full');
    const evaluation = await evaluateCode(program, sample.config, spec, executor);
    const error = evaluation.verdict.error_verdict ?? evaluation.execution?.error;
    return { verdict: evaluation.verdict.sample_verdict, ...(error ? { error: String(error) } : {}) };
  }
}

export const DEFAULT_SYNTHESIS_RETRY = DEFAULT_RETRY;
