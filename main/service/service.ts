import os from 'node:os';
import { diffSpecVersion } from './specVersions.js';
import { contract, type Method, type Output, type Parsed, type SampleDetail, type WorkbenchApi, type WorkbenchEvent, type WorkbenchHandlers } from '../api/contract.js';
import { fail, ok, unwrap, WapiiError, type Result } from '../api/result.js';
import type { DatasetSummary, Finding, JsonValue, RequestConfig, Sample } from '../api/schemas.js';
import { DEMO_MULTISTEP_DATASET } from '../api/constants.js';
import { checkRequest, checkSample, exportChecks, exportFlat, exportPerApi, filterSamples, withExportIndices } from '../dataset/index.js';
import { loadSpec, MAX_NESTING, resolveEndpoint, shortPath, valueProblem, type ApiSpec } from '../openapi/index.js';
import type { SampleState, Store } from '../store/index.js';
import { EvaluationService, type EvaluationHandlers, type EvaluationOptions } from './evaluation.js';
import type { Demo } from './demo.js';
import { seedDemoRuns } from './demoRuns.js';
import { environmentKeys, KEY_PROVIDERS, keyStatus, keyVariables, type ApiKeyStore } from './apiKeys.js';
import { priceTable, providerCatalog } from './providers.js';
import { apiCoverage, sampleEndpointKey } from './coverage.js';
import { endpointExcerpt, nearDuplicates, quickFixes, stepExcerpt, stepQuickFixes, stepsOf } from './review.js';
import { EditedStepsSchema } from '../api/review.js';
import { checklistNote } from '../api/checklist.js';
import { DEFAULT_SYNTHESIS_RETRY, SynthesisJobs } from './synthesis.js';
import type { RetryPolicy } from '../synthesis/index.js';
import { prepareDataset } from './prepare.js';
import { setupFor, setupSampleOf } from '../prompt/index.js';
import type { PrepareImport } from './prepareInWorker.js';
import { checkConstraints, deriveSpecVersion, diffSpecFiles, gbnfOf, measureDatasetRecall, oraclePrograms, recheckSpecVersion } from './fileTools.js';
import { fileRunConditions } from './runConditions.js';
import { runReport } from './runReport.js';
import { deriveSubset } from './runSubset.js';
import { scoreCodeFiles } from './scoreFiles.js';
import { storedCopy } from './storedCopy.js';

export interface ServiceOptions {
  readonly store: Store;
  /** Recorded on every revision. */
  readonly author?: string;
  /** How an import's files are parsed and checked (default: prepareDataset, in this thread). */
  readonly prepare?: PrepareImport;
  /** Models, runs and results: the models folder, memory and GPU choices (main/service/evaluation.ts). */
  readonly evaluation?: Omit<EvaluationOptions, 'store' | 'author' | 'spec' | 'emit'>;
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
  private readonly prepare: PrepareImport;
  private readonly specs = new Map<string, Promise<Result<ApiSpec>>>();
  private readonly listeners = new Set<Listener>();
  private readonly apiKeys: ApiKeyStore;
  private readonly synthesis: SynthesisJobs;

  /** Models, runs and results (main/service/evaluation.ts); the methods below delegate to it. */
  readonly evaluation: EvaluationService & EvaluationHandlers;

  constructor(options: ServiceOptions) {
    this.store = options.store;
    this.author = options.author ?? safeUsername();
    this.prepare = options.prepare ?? prepareDataset;
    this.apiKeys = options.apiKeys ?? environmentKeys();
    this.evaluation = new EvaluationService({
      store: this.store,
      keys: this.apiKeys,
      author: this.author,
      spec: async (hash) => (this.store.getSpec(hash) ? this.spec(hash) : undefined),
      emit: (event) => this.emit(event),
      modelsFolder: options.evaluation?.modelsFolder ?? 'models',
      ...options.evaluation,
    });
    this.synthesis = new SynthesisJobs({
      store: this.store,
      author: this.author,
      keys: this.apiKeys,
      retry: options.synthesisRetry ?? DEFAULT_SYNTHESIS_RETRY,
      prices: priceTable(options.evaluation?.dbPath).table,
      spec: (hash) => this.spec(hash),
      emit: (event) => this.emit(event),
      log: options.log ?? ((m) => console.error(m)),
    });
  }

  /**
   * How a run decodes, as its manifest says once it starts generating (a local model's sequences
   * and threads, and why); read in this process, synchronously, so `wapii run` says it before the
   * run's first progress line.
   */
  decodingOf(runId: number): string | undefined {
    const decoding = this.evaluation.runs.get(runId)?.manifest?.['decoding'];
    return typeof decoding === 'string' ? decoding : undefined;
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

  listModels = (i: Parsed<'listModels'>): Promise<Output<'listModels'>> => this.evaluation.listModels(i);
  addModel = (i: Parsed<'addModel'>): Promise<Output<'addModel'>> => this.evaluation.addModel(i);
  scanModels = (i: Parsed<'scanModels'>): Promise<Output<'scanModels'>> => this.evaluation.scanModels(i);
  listModelFiles = (i: Parsed<'listModelFiles'>): Promise<Output<'listModelFiles'>> => this.evaluation.listModelFiles(i);
  removeModel = (i: Parsed<'removeModel'>): Promise<Output<'removeModel'>> => this.evaluation.removeModel(i);
  downloadModel = (i: Parsed<'downloadModel'>): Promise<Output<'downloadModel'>> => this.evaluation.downloadModel(i);
  cancelDownload = (i: Parsed<'cancelDownload'>): Promise<Output<'cancelDownload'>> => this.evaluation.cancelDownload(i);
  dismissDownload = (i: Parsed<'dismissDownload'>): Promise<Output<'dismissDownload'>> => this.evaluation.dismissDownload(i);
  listDownloads = (i: Parsed<'listDownloads'>): Promise<Output<'listDownloads'>> => this.evaluation.listDownloads(i);
  listProviderModels = (i: Parsed<'listProviderModels'>): Promise<Output<'listProviderModels'>> => this.evaluation.listProviderModels(i);
  previewRun = (i: Parsed<'previewRun'>): Promise<Output<'previewRun'>> => this.evaluation.previewRun(i);
  startRun = (i: Parsed<'startRun'>): Promise<Output<'startRun'>> => this.evaluation.startRun(i);
  cancelRun = (i: Parsed<'cancelRun'>): Promise<Output<'cancelRun'>> => this.evaluation.cancelRun(i);
  resumeRun = (i: Parsed<'resumeRun'>): Promise<Output<'resumeRun'>> => this.evaluation.resumeRun(i);
  listRuns = (i: Parsed<'listRuns'>): Promise<Output<'listRuns'>> => this.evaluation.listRuns(i);
  getRun = (i: Parsed<'getRun'>): Promise<Output<'getRun'>> => this.evaluation.getRun(i);
  deleteRun = (i: Parsed<'deleteRun'>): Promise<Output<'deleteRun'>> => this.evaluation.deleteRun(i);
  listRunSamples = (i: Parsed<'listRunSamples'>): Promise<Output<'listRunSamples'>> => this.evaluation.listRunSamples(i);
  getRunSample = (i: Parsed<'getRunSample'>): Promise<Output<'getRunSample'>> => this.evaluation.getRunSample(i);
  compareRuns = (i: Parsed<'compareRuns'>): Promise<Output<'compareRuns'>> => this.evaluation.compareRuns(i);
  // Runs made on a dataset file, with the file and its specs: classified from them (`wapii conditions --specs`).
  compareConditions = (i: Parsed<'compareConditions'>): Promise<Output<'compareConditions'>> =>
    i.specs && i.runIds.some((id) => (this.evaluation.runs.get(id)?.datasetId ?? null) === null) ? fileRunConditions(this.store, { ...i, specs: i.specs }) : this.evaluation.compareConditions(i);
  getRunReport = (i: Parsed<'getRunReport'>): Promise<Output<'getRunReport'>> => runReport(this.store, (runId) => this.evaluation.getRun({ runId }), i.runId);
  scoreCodes = async (i: Parsed<'scoreCodes'>): Promise<Output<'scoreCodes'>> => {
    const scored = await scoreCodeFiles(this.store, i);
    if (scored.run !== undefined) this.emit({ type: 'runsChanged' });
    return scored;
  };
  oraclePrograms = async (i: Parsed<'oraclePrograms'>): Promise<Output<'oraclePrograms'>> => oraclePrograms(i);
  deriveSubset = async (i: Parsed<'deriveSubset'>): Promise<Output<'deriveSubset'>> => deriveSubset(this.store, i);
  measureRecall = (i: Parsed<'measureRecall'>): Promise<Output<'measureRecall'>> => measureDatasetRecall(this.files, i);
  checkConstraints = (i: Parsed<'checkConstraints'>): Promise<Output<'checkConstraints'>> => checkConstraints(i);
  exportGbnf = (i: Parsed<'exportGbnf'>): Promise<Output<'exportGbnf'>> => gbnfOf(i);
  diffSpecs = (i: Parsed<'diffSpecs'>): Promise<Output<'diffSpecs'>> => diffSpecFiles(i);
  recheckSpecVersion = (i: Parsed<'recheckSpecVersion'>): Promise<Output<'recheckSpecVersion'>> => recheckSpecVersion(this.files, i);
  deriveSpecVersion = (i: Parsed<'deriveSpecVersion'>): Promise<Output<'deriveSpecVersion'>> => deriveSpecVersion(this.files, i);
  /** What the file tools read: the store and its specs, parsed once per hash. */
  private get files(): { store: Store; spec: (hash: string) => Promise<ApiSpec> } {
    return { store: this.store, spec: (hash) => this.spec(hash) };
  }
  diffSpecVersion = (i: Parsed<'diffSpecVersion'>): Promise<Output<'diffSpecVersion'>> => diffSpecVersion(this.store, (hash) => this.spec(hash), i);
  overrideVerdict = (i: Parsed<'overrideVerdict'>): Promise<Output<'overrideVerdict'>> => this.evaluation.overrideVerdict(i);
  exportRun = (i: Parsed<'exportRun'>): Promise<Output<'exportRun'>> => this.evaluation.exportRun(i);

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

  /**
   * A sample with its revisions, read in one snapshot: an editor bases its next edit on the newest
   * revision it sees (`baseRevision`), so the state it sees must be that revision's.
   */
  private async detail(of: Sample): Promise<SampleDetail> {
    const spec = await this.specFor(of.datasetId, of.api);
    const { sample, revisions } = this.store.snapshot(() => ({
      sample: this.store.getSample(of.datasetId, of.id) ?? of,
      revisions: this.store.listRevisions(of.datasetId, of.id),
    }));
    const endpoint = spec ? resolveEndpoint(spec, sample.config.url, sample.config.method).endpoint : undefined;
    const own = setupSampleOf(sample);
    return {
      starter: own.starter_code === undefined ? null : setupFor(own, 'full').starter,
      sample: this.withProvenance(sample.datasetId, [sample])[0] ?? sample,
      revisions,
      endpoint: endpoint
        ? {
            method: endpoint.method,
            path: endpoint.path,
            ...(endpoint.summary ? { summary: endpoint.summary } : {}),
            ...(endpoint.operationId ? { operationId: endpoint.operationId } : {}),
          }
        : null,
      canUndo: revisions.some((r) => !r.undone && r.before !== null),
    };
  }

  async listDatasets(): Promise<Output<'listDatasets'>> {
    return this.store.listDatasets();
  }

  async importDataset(given: Parsed<'importDataset'>): Promise<Output<'importDataset'>> {
    let input = given;
    if (input.reuse) {
      const copy = await storedCopy(this.store, { ...input, name: input.name ?? input.dataset.filename.replace(/\.json$/i, '') });
      if ('existing' in copy) return this.dataset(copy.existing);
      input = { ...input, name: copy.name, reuse: false };
    }
    const task = `import ${input.dataset.filename}`;
    const prepared = unwrap(
      await this.prepare(input.dataset, input.specs, (done, total, message) => this.emit({ type: 'progress', task, done, total, message }), { skipMissingSpecs: input.skipMissingSpecs ?? false, lenientRefs: input.lenientRefs ?? false, ...(input.server !== undefined ? { server: input.server } : {}) }),
    );
    const datasetId = this.store.createDataset({
      name: input.name ?? input.dataset.filename.replace(/\.json$/i, ''),
      source: input.dataset.filename,
      author: this.author,
      apis: [...prepared.specs.values()].map(({ api, file, spec }) => ({ api, spec: { filename: file.filename, title: spec.title, content: file.content } })),
      samples: prepared.samples,
    });
    // A converted Swagger 2.0 file's original, kept beside it (the converted document names its sha-256).
    for (const { original, spec } of prepared.specs.values()) if (original) this.store.putSpec({ filename: original.filename, title: spec.title, content: original.content });
    this.emit({ type: 'datasetsChanged' });
    return { ...this.dataset(datasetId), ...(prepared.skipped ? { skipped: [...prepared.skipped] } : {}), ...(prepared.brokenRefs ? { brokenRefs: [...prepared.brokenRefs] } : {}), ...(prepared.serverFor ? { serverFor: [...prepared.serverFor] } : {}) };
  }

  async exportDataset(input: Parsed<'exportDataset'>): Promise<Output<'exportDataset'>> {
    const dataset = this.dataset(input.datasetId);
    const states = input.reviewStates;
    // Indices are given over the whole dataset, so a subset's samples keep theirs (issue 26 item 3).
    const chosen = withExportIndices(this.store.listSamples(dataset.id)).filter((s) => !states || states.includes(s.reviewState));
    const specs = new Map<string, ApiSpec>();
    for (const [api, hash] of this.store.datasetApis(dataset.id)) specs.set(api, await this.spec(hash));
    // The checks are run again on each request as written: the stored findings may predate a spec change.
    let flagged = 0;
    let recomputed = 0;
    const samples = chosen.map((s) => {
      const spec = specs.get(s.api);
      const findings = spec ? checkRequest(spec, s.config) : [{ message: `no spec is loaded for API \`${s.api}\`` }];
      if (findings.length > 0) flagged++;
      const imported = this.store.listRevisions(dataset.id, s.id).find((r) => r.before === null)?.after.config;
      const checks = exportChecks(s, imported, findings);
      // Only the flat format has a `checks` field to write.
      if (input.format === 'flat' && checks !== s.source.checks) recomputed++;
      return { ...s, source: { ...s.source, ...(checks !== undefined ? { checks } : {}) } };
    });
    const files = input.format === 'flat' ? { [`${dataset.name}.json`]: exportFlat(samples) } : exportPerApi(samples);
    return { files, checks: { samples: samples.length, flagged, recomputed } };
  }

  async recheckDataset(input: Parsed<'recheckDataset'>): Promise<Output<'recheckDataset'>> {
    const dataset = this.dataset(input.datasetId);
    const specs = new Map<string, ApiSpec>();
    for (const [api, hash] of this.store.datasetApis(dataset.id)) specs.set(api, await this.spec(hash));
    // Checked inside the write transaction, from the rows read there: an edit stored meanwhile
    // keeps the findings of its own config.
    this.store.transaction(() => {
      const findings = new Map<string, Finding[]>();
      for (const sample of this.store.listSamples(dataset.id)) findings.set(sample.id, checkSample(specs.get(sample.api), sample));
      this.store.setFindings(dataset.id, findings);
    });
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
    // Every provider a key applies to (a server of your own may or may not want one), so New run can name the one missing.
    return KEY_PROVIDERS.map((provider) => keyStatus(this.apiKeys, provider));
  }

  async saveApiKey(input: Parsed<'saveApiKey'>): Promise<Output<'saveApiKey'>> {
    const provider = KEY_PROVIDERS.find((p) => p === input.provider);
    if (provider === undefined) throw new WapiiError('bad_input', `no provider "${input.provider.slice(0, 60)}" takes a key: one of ${KEY_PROVIDERS.join(', ')}`);
    if (!this.apiKeys.save) throw new WapiiError('bad_input', `keys are read from the environment here: set ${keyVariables(provider)[0]} before starting wapii`);
    this.apiKeys.save(provider, input.key);
    return keyStatus(this.apiKeys, provider);
  }

  async listProviders(): Promise<Output<'listProviders'>> {
    return providerCatalog();
  }

  async reviewSamples(input: Parsed<'reviewSamples'>): Promise<Output<'reviewSamples'>> {
    this.dataset(input.datasetId);
    const samples = input.sampleIds.map((id) => this.sample(input.datasetId, id));
    // One transaction for the selection; each state is taken from the row read inside it, so a
    // concurrent edit of a task or config is kept and only the review state changes.
    // With `seen`, a sample changed since the reviewer's list was read refuses the whole decision
    // (checked on the rows the transaction reads): a bulk accept must not overrule what another
    // tab decided or fixed meanwhile.
    this.store.transaction(() => {
      const stale = input.seen ? samples.filter((s) => this.store.getSample(input.datasetId, s.id)?.updatedAt !== input.seen?.[s.id]) : [];
      if (stale.length > 0) {
        const names = stale.slice(0, 5).map((s) => `#${s.position}`).join(', ');
        throw new WapiiError('conflict', `${stale.length} of the ${samples.length} samples changed since the list was loaded (${names}${stale.length > 5 ? ', …' : ''}); nothing was changed: reload and decide again`);
      }
      for (const s of samples) {
        unwrap(
          this.store.editSample(
            input.datasetId,
            s.id,
            (current) => ok({ after: { task: current.task, config: current.config, reviewState: input.reviewState }, findings: current.findings }),
            { author: this.author, reason: input.reason },
          ),
        );
      }
    });
    this.emit({ type: 'datasetsChanged' });
    return { updated: samples.length };
  }

  async getReviewAid(input: Parsed<'getReviewAid'>): Promise<Output<'getReviewAid'>> {
    const sample = this.sample(input.datasetId, input.sampleId);
    const spec = await this.specFor(input.datasetId, sample.api);
    const endpoint = spec ? resolveEndpoint(spec, sample.config.url, sample.config.method).endpoint : undefined;
    // A multi-step sample: each step's excerpt, and each fix on the step its finding is about.
    const steps = spec ? stepsOf(sample.fields) : undefined;
    const perStep = spec && steps ? { stepExcerpts: steps.map((step) => stepExcerpt(spec, step.config)), fixes: stepQuickFixes(spec, steps, sample.findings) } : undefined;
    if (!spec || !endpoint) return { excerpt: null, fixes: [], nearDuplicates: [], ...perStep };
    const key = sampleEndpointKey(spec, sample);
    const sameEndpoint = this.store.listSamples(input.datasetId).filter((s) => s.api === sample.api && s.id !== sample.id && sampleEndpointKey(spec, s) === key);
    return { excerpt: endpointExcerpt(spec, endpoint), fixes: quickFixes(spec, endpoint, sample.config, sample.findings), nearDuplicates: nearDuplicates(sample, sameEndpoint), ...perStep };
  }

  async getSample(input: Parsed<'getSample'>): Promise<Output<'getSample'>> {
    return this.detail(this.sample(input.datasetId, input.sampleId));
  }

  async editSample(input: Parsed<'editSample'>): Promise<Output<'editSample'>> {
    const { api } = this.sample(input.datasetId, input.sampleId);
    const spec = await this.specFor(input.datasetId, api);
    // The new state is computed from the row as the write transaction reads it, never from a read
    // made before: another process may have changed the sample in between.
    const edited = this.store.editSample(
      input.datasetId,
      input.sampleId,
      (current) => {
        // A multi-step sample's requests are its steps (in its fields): its config is the last step's, never edited apart from them.
        const had = (input.fields ?? current.fields)?.['steps'];
        if (input.steps && had === undefined) return fail('bad_input', 'a single-request sample has no steps: edit its config');
        // `steps` replaces the steps and keeps every other field.
        const fields = input.steps ? { ...(input.fields ?? current.fields), steps: input.steps as unknown as JsonValue } : input.fields;
        // Steps given in the fields are held to what `steps` is (two or more valid steps), not stored as they come.
        if (!input.steps && input.fields?.['steps'] !== undefined) {
          const parsed = EditedStepsSchema.safeParse(input.fields['steps']);
          if (!parsed.success) return fail('bad_input', `fields.steps: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? 'invalid'}: a multi-step sample keeps two or more steps of {config, response, carried}`);
        }
        const steps = fields?.['steps'] ?? had;
        if (steps !== undefined && input.config) return fail('bad_input', "a multi-step sample's requests are its steps: edit them in its fields (`steps`), not its config");
        const last = Array.isArray(steps) ? (steps.at(-1) as { config?: RequestConfig } | undefined)?.config : undefined;
        const after: SampleState = {
          task: input.task ?? current.task,
          config: last ?? input.config ?? current.config,
          reviewState: input.reviewState ?? (input.config || input.task || fields ? 'fixed' : current.reviewState),
          ...(fields ? { fields } : {}),
        };
        return ok({ after, findings: checkSample(spec, { ...current, config: after.config, fields: after.fields ?? current.fields }) });
      },
      { author: this.author, reason: input.checklist ? `${input.reason} ${checklistNote(input.checklist)}` : input.reason, baseRevision: input.baseRevision },
    );
    const sample = unwrap(edited);
    this.emit({ type: 'datasetsChanged' });
    return this.detail(sample);
  }

  async undoEdit(input: Parsed<'undoEdit'>): Promise<Output<'undoEdit'>> {
    const { api, source, fields } = this.sample(input.datasetId, input.sampleId);
    const spec = await this.specFor(input.datasetId, api);
    // A state without fields leaves the sample's as they are (its steps among them): checked with them.
    const restored = unwrap(this.store.undoLastEdit(input.datasetId, input.sampleId, (state) => checkSample(spec, { api, source, config: state.config, fields: state.fields ?? fields })));
    this.emit({ type: 'datasetsChanged' });
    return this.detail(restored);
  }

  /** Imports the embedded demo dataset when the database holds no dataset yet. */
  async seedIfEmpty(demo: Demo): Promise<Result<DatasetSummary | undefined>> {
    if (this.store.listDatasets().length > 0) return ok(undefined);
    try {
      const summary = await this.importDataset({ name: 'demo', dataset: demo.dataset, specs: demo.specs });
      // The demo runs give the results pages content before any model is added.
      const e = this.evaluation;
      if (demo.runs?.length) {
        await seedDemoRuns({ store: this.store, runs: e.runs, results: e.results, datasetId: summary.id, demoRuns: demo.runs, spec: async (hash) => this.spec(hash) });
      }
      // Tasks of several requests, so the inspector's timeline has content on a fresh start too.
      if (demo.multiStep) {
        const multi = await this.importDataset({ name: DEMO_MULTISTEP_DATASET, dataset: demo.multiStep.dataset, specs: demo.specs });
        await seedDemoRuns({ store: this.store, runs: e.runs, results: e.results, datasetId: multi.id, demoRuns: demo.multiStep.runs, spec: async (hash) => this.spec(hash) });
      }
      if (demo.runs?.length || demo.multiStep?.runs.length) this.emit({ type: 'runsChanged' });
      return ok(summary);
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
  // Before zod: its records drop a `__proto__` key without a word, and it recurses into nesting.
  const unsafe = valueProblem(input);
  if (unsafe) {
    const where = shortPath(unsafe.path).slice(1).replace(/\//g, '.');
    throw new WapiiError('bad_input', unsafe.kind === 'too deep' ? `${method}: ${where}: nesting deeper than ${MAX_NESTING} levels` : `${method}: ${where}: the key "__proto__" is not supported; rename or remove it`);
  }
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
