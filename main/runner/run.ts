import { DEFAULT_CLIENT } from '../api/clients.js';
import type { RequestConfig, SampleFields } from '../api/schemas.js';
import type { CompletionMode, HttpClient, Setup } from '../api/setup.js';
import type { Executor } from '../execution/index.js';
import type { Generation, GenerationBackend } from '../generation/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { promptFor, setupFor, setupSampleOf, type PromptStyle } from '../prompt/index.js';
import { classifyFailure, statisticsPerApi, type Statistics, type Step, type Verdict } from '../scoring/index.js';
import type { RunSampleRecord, Store, StoredRun } from '../store/index.js';
import { programParses } from './constrainer.js';
import { evaluateCode, evaluateStepsCode, stepsOf, type CodeEvaluation } from './evaluate.js';
import { generateWithRepair } from './repair.js';

export interface RunSample {
  /** Position in the dataset file. */
  readonly index: number;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
  /** Lines of API knowledge for the prompt (the run's knowledge condition; see withKnowledge). */
  readonly knowledge?: readonly string[];
  /** The sample's other fields: a real-world sample's own starter code, definitions and template URL (see Setup). */
  readonly fields?: SampleFields;
  /** Its Setup, as the run's snapshot took it; absent (a dataset file, a run stored before), it is built from the plan. */
  readonly setup?: Setup;
}

export interface RunProgress {
  readonly done: number;
  readonly total: number;
  readonly correct: number;
  readonly errors: number;
  readonly tokens: number;
  readonly tokensPerSecond: number;
  /** Seconds left at the pace so far; undefined before the first sample finishes. */
  readonly etaSeconds: number | undefined;
  /** The sample last taken from the queue (being generated now). */
  readonly current?: { readonly index: number; readonly api: string };
}

export interface RunPlan {
  /** Full or argument completion; each sample's Setup is built from it (its own starter, or the fixed one). */
  readonly mode: CompletionMode;
  /** The HTTP client the starters call (default: axios). */
  readonly client?: HttpClient;
  /** Base models continue a completion prompt; chat models answer a chat prompt (default: completion). */
  readonly promptStyle?: PromptStyle;
  /** Outputs per sample. */
  readonly n: number;
  readonly seed: number;
  /** The settings and manifest stored with the run; a resumed run must match them. */
  readonly settings: Record<string, unknown>;
  readonly manifest: Record<string, unknown>;
  readonly dataset: string;
  /** The repair setting: how many times a program the spec checker faults is sent back with its findings (absent or 0: no repair). */
  readonly repairRounds?: number;
}

export interface RunReport {
  readonly statistics: Statistics;
  readonly per_api: Record<string, Statistics>;
  readonly samples: Record<string, Verdict | Verdict[]>;
}

/** The metric tables of a stored run, from its stored verdicts (errored outputs left out). */
export function reportOf(run: Pick<StoredRun, 'samples'>): RunReport {
  const ok = run.samples.filter((s) => s.error === undefined && s.verdict !== null) as (RunSampleRecord & { verdict: Verdict })[];
  const samples: Record<string, Verdict | Verdict[]> = {};
  for (const s of ok) {
    const key = String(s.index);
    const prior = samples[key];
    samples[key] = prior === undefined ? s.verdict : [...(Array.isArray(prior) ? prior : [prior]), s.verdict];
  }
  const { statistics, perApi } = statisticsPerApi(ok);
  return { statistics, per_api: perApi, samples };
}

/**
 * The program a generation makes: the starter and what the model wrote; a multi-step sample's
 * closed where the model stopped short of closing it (see Setup.steps); and the marker of how a
 * constrained generation failed, where it did.
 */
export function programOf(starter: string, generation: Pick<Generation, 'text' | 'stop'>, setup: Setup): string {
  const closing = setup.steps && !programParses(starter + generation.text) ? setup.steps.closing : '';
  return starter + generation.text + closing + (generation.stop === 'timeout' ? '\n//timeout' : generation.stop === 'unsatisfiable' ? '\n//unsatisfiable' : '');
}

/** An output's failure classes: a multi-step sample's read its steps and the requests it sent (classifyFailure). */
export function failureClasses(evaluation: CodeEvaluation, spec: ApiSpec, expected: RequestConfig, steps: readonly Step[] | undefined): ReturnType<typeof classifyFailure> {
  const executionError = evaluation.execution?.error?.kind;
  const multi = steps ? { steps: { expected: steps.map((s) => s.config), captured: evaluation.execution?.captured ?? [] } } : {};
  return classifyFailure({ verdict: evaluation.verdict, spec, expected, executionError, ...multi });
}

/** The settings that make two runs the same experiment; a resume must not change any of them. */
const IDENTITY = ['setup', 'prompt', 'setting', 'repairRounds', 'n', 'seed', 'temperature', 'topK', 'topP', 'maxTokens', 'knowledge'] as const;

/**
 * Generate → execute → score → store, one output at a time: each is written to SQLite the moment
 * it finishes, so a crash or Ctrl-C loses nothing finished and `resume` continues without
 * redoing it. Slots of the backend run concurrently, each taking the next output from one queue.
 */
export async function executeRun(input: {
  store: Store;
  backend: GenerationBackend;
  executor: Pick<Executor, 'run'>;
  samples: readonly RunSample[];
  specs: ReadonlyMap<string, ApiSpec>;
  plan: RunPlan;
  resume?: number;
  retryErrors?: boolean;
  signal?: AbortSignal;
  onProgress?: (progress: RunProgress) => void;
  /** Called once the queue is known: how many outputs were already stored, and how many are to generate. */
  onStart?: (start: { runId: number; resumed: boolean; stored: number; toGenerate: number }) => void;
  /**
   * Whether the run is marked finished here, with its statistics (default). The service's job
   * queue says no: it owns the run's status, and the run is finished only once the job is over.
   */
  markFinished?: boolean;
}): Promise<{ runId: number; report: RunReport; interrupted: boolean }> {
  const { store, backend, plan } = input;
  let runId: number;
  // What a resumed run already holds; its outputs are not generated again (errored ones with retryErrors are).
  let stored: readonly RunSampleRecord[] = [];
  if (input.resume !== undefined) {
    const prior = store.getRun(input.resume);
    if (!prior) throw new Error(`there is no run ${input.resume} to resume`);
    if (prior.kind !== 'generation') throw new Error(`run ${input.resume} scored imported code; only generation runs can be resumed`);
    for (const key of IDENTITY) {
      if (JSON.stringify(prior.settings[key]) !== JSON.stringify(plan.settings[key])) {
        throw new Error(`run ${input.resume} was made with ${key} = ${JSON.stringify(prior.settings[key])}, not ${JSON.stringify(plan.settings[key])}; resume it with the same options`);
      }
    }
    const manifest = (prior.manifest ?? {}) as Record<string, unknown>;
    for (const key of ['modelSha256', 'datasetSha256', 'specSha256', 'promptTemplate'] as const) {
      if (manifest[key] !== undefined && JSON.stringify(manifest[key]) !== JSON.stringify(plan.manifest[key])) {
        throw new Error(`run ${input.resume} was made with a different ${key === 'modelSha256' ? 'model file' : key === 'datasetSha256' ? 'dataset' : key === 'specSha256' ? 'set of specs' : 'prompt template'}; start a new run instead`);
      }
    }
    runId = prior.id;
    stored = prior.samples;
  } else {
    runId = store.startRun({ kind: 'generation', dataset: plan.dataset, settings: plan.settings, manifest: plan.manifest });
  }
  const keyOf = (index: number, attempt: number): string => `${index}.${attempt}`;
  const kept = stored.filter((s) => !(input.retryErrors && s.error !== undefined));
  const keep = new Set(kept.map((s) => keyOf(s.index, s.attempt ?? 0)));
  const queue: { sample: RunSample; attempt: number }[] = [];
  for (const sample of input.samples) {
    for (let attempt = 0; attempt < plan.n; attempt++) if (!keep.has(keyOf(sample.index, attempt))) queue.push({ sample, attempt });
  }
  const total = input.samples.length * plan.n;
  input.onStart?.({ runId, resumed: input.resume !== undefined, stored: stored.length, toGenerate: queue.length });
  let done = total - queue.length;
  // A resumed run's counts start from what it keeps.
  let correct = kept.filter((s) => (s.verdict as Verdict | null)?.sample_verdict === 'correct').length;
  let errors = kept.filter((s) => s.error !== undefined).length;
  let tokens = 0;
  const started = performance.now();
  let finishedHere = 0;
  let current: RunSample | undefined;
  /** Outputs whose request the run's stop cut off: not stored, so the run is interrupted, not done. */
  let abandoned = 0;
  const report = (): void => {
    const elapsed = (performance.now() - started) / 1000;
    input.onProgress?.({
      done,
      total,
      correct,
      errors,
      tokens,
      tokensPerSecond: elapsed > 0 ? tokens / elapsed : 0,
      etaSeconds: finishedHere > 0 ? ((total - done) * elapsed) / finishedHere : undefined,
      ...(current ? { current: { index: current.index, api: current.api } } : {}),
    });
  };
  report();

  const runOne = async (slot: number, item: { sample: RunSample; attempt: number }): Promise<void> => {
    const { sample, attempt } = item;
    current = sample;
    const spec = input.specs.get(sample.api);
    const setup = sample.setup ?? setupFor(setupSampleOf(sample), plan.mode, { style: plan.promptStyle ?? 'completion', client: plan.client ?? DEFAULT_CLIENT });
    const prompt = promptFor(setup.style)({ ...sample, ...setupSampleOf(sample) }, setup);
    const base = { index: sample.index, attempt, api: sample.api, prompt: prompt.text };
    const steps = stepsOf(sample.fields);
    let record: RunSampleRecord;
    try {
      if (!spec) throw new Error(`no spec for API ${sample.api}`);
      const seed = plan.seed + sample.index * 1000 + attempt;
      const { generation, code, evaluation, rounds } = await generateWithRepair({
        prompt,
        spec,
        rounds: plan.repairRounds ?? 0,
        generate: (asked) => backend.slot(slot).generate({ prompt: asked, api: sample.api, seed }),
        programOf: (g, asked) => programOf(asked.starter, g, setup),
        evaluate: (program) => (steps ? evaluateStepsCode(program, steps, spec, input.executor) : evaluateCode(program, sample.config, spec, input.executor, 'default', setup)),
      });
      const { text: _text, ...generated } = generation;
      const meta = rounds.length > 0 ? { ...generated, repair: rounds } : generated;
      record = {
        ...base,
        code,
        rawOutput: generation.text,
        request: evaluation.request,
        verdict: evaluation.verdict,
        extraction: evaluation.extraction,
        execution: evaluation.execution,
        durationMs: generation.promptMs + generation.generateMs,
        generation: meta,
        failures: failureClasses(evaluation, spec, sample.config, steps),
      };
      tokens += generation.tokens;
      if (evaluation.verdict.sample_verdict === 'correct') correct++;
    } catch (error) {
      // Stopped mid-request (cancel, a bad key, the spending cap): not an output; a resume generates it.
      if (input.signal?.aborted) {
        abandoned++;
        return;
      }
      errors++;
      record = { ...base, code: prompt.starter, verdict: null, extraction: { error: 'not generated' }, error: error instanceof Error ? error.message : String(error) };
    }
    store.addRunSample(runId, record);
    done++;
    finishedHere++;
    report();
  };

  let next = 0;
  // A slot that throws (the store cannot write) stops the others taking samples, and the run ends
  // only when every slot has stopped: no slot goes on writing to a run its caller saw fail.
  let failure: { error: unknown } | undefined;
  await Promise.all(
    Array.from({ length: Math.min(backend.slots, queue.length) }, async (_, slot) => {
      try {
        while (next < queue.length && !input.signal?.aborted && !failure) await runOne(slot, queue[next++]!);
      } catch (error) {
        failure ??= { error };
      }
    }),
  );
  if (failure) throw failure.error;
  const interrupted = (input.signal?.aborted ?? false) && (next < queue.length || abandoned > 0);
  const run = store.getRun(runId)!;
  const result = reportOf(run);
  if (!interrupted && input.markFinished !== false) store.finishRun(runId, { statistics: result.statistics, per_api: result.per_api });
  return { runId, report: result, interrupted };
}
