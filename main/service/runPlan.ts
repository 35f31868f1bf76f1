import { CLIENT_PROFILES, clientField } from '../api/clients.js';
import type { z } from 'zod';
import { readRunSettings, type RunSettings, type RunSubset, type StartRunInputSchema } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import type { Sample } from '../api/schemas.js';
import type { ApiSpec } from '../openapi/index.js';
import { mulberry32 } from '../scoring/index.js';
import { parseKnowledge, promptFor, PROMPT_TEMPLATE_HASH, setupFor, setupSampleOf, type CompletionMode, type HttpClient, type KnowledgeCondition, type PromptStyle, type Setup } from '../prompt/index.js';
import { withKnowledge } from '../runner/index.js';
import { sha256 } from '../store/index.js';
import type { RunInput, RunRow } from '../store/runs.js';
import { entryOf } from './providers.js';

export type StartRunInput = z.output<typeof StartRunInputSchema>;

/** What identifies a sample's content: a later edit of task or expected request changes it. */
/** What a sample says, hashed: its task and expected request, and its other fields where it has any (an edited starter is an edited sample). */
export const contentHash = (s: Pick<Sample, 'task' | 'config' | 'fields'>): string => sha256(JSON.stringify({ task: s.task, config: s.config, ...(s.fields ? { fields: s.fields } : {}) }));

/** The samples a subset selects, in dataset order; every given filter must hold. */
export function selectSubset(samples: readonly Sample[], subset: RunSubset): Sample[] {
  const apis = subset.apis && subset.apis.length > 0 ? new Set(subset.apis) : undefined;
  const states = subset.reviewStates && subset.reviewStates.length > 0 ? new Set<string>(subset.reviewStates) : undefined;
  const ids = subset.sampleIds && subset.sampleIds.length > 0 ? new Set(subset.sampleIds) : undefined;
  const filtered = samples.filter((s) => (!apis || apis.has(s.api)) && (!states || states.has(s.reviewState)) && (!ids || ids.has(s.id)));
  const chosen = subset.sample ? randomSample(filtered, subset.sample) : filtered;
  return subset.limit !== undefined ? chosen.slice(0, subset.limit) : chosen;
}

/**
 * A seeded random sample of `size` items (all of them when there are fewer), kept in their given
 * order so a run reads in dataset order. `stratify: 'api'` gives each API the share it has of
 * `items`, rounded by largest remainder (ties to the API first in `items`), so a small sample of a
 * dataset dominated by one API still holds the others in proportion.
 */
export function randomSample<T extends { readonly api: string }>(items: readonly T[], sample: { readonly size: number; readonly seed: number; readonly stratify: 'none' | 'api' }): T[] {
  if (sample.size >= items.length) return [...items];
  const random = mulberry32(sample.seed);
  const positions = items.map((_, i) => i);
  const picked = sample.stratify === 'api' ? stratifiedPick(items, positions, sample.size, random) : shuffled(positions, random).slice(0, sample.size);
  return picked.sort((a, b) => a - b).map((i) => items[i] as T);
}

/** Each API's quota by largest remainder, then that many of its positions, drawn in first-seen API order from one seeded stream. */
function stratifiedPick(items: readonly { readonly api: string }[], positions: readonly number[], size: number, random: () => number): number[] {
  const byApi = new Map<string, number[]>();
  for (const i of positions) {
    const api = (items[i] as { api: string }).api;
    const list = byApi.get(api);
    if (list) list.push(i);
    else byApi.set(api, [i]);
  }
  const groups = [...byApi.values()];
  const exact = groups.map((g) => (size * g.length) / items.length);
  const quota = exact.map(Math.floor);
  let left = size - quota.reduce((a, b) => a + b, 0);
  // Stable sort: equal remainders go to the API that comes first in the dataset.
  const order = exact.map((x, g) => ({ g, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest);
  for (const { g } of order) {
    if (left === 0) break;
    quota[g] = (quota[g] ?? 0) + 1;
    left--;
  }
  return groups.flatMap((g, k) => shuffled(g, random).slice(0, quota[k]));
}

/** Fisher–Yates on a copy. */
function shuffled(list: readonly number[], random: () => number): number[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as number, out[i] as number];
  }
  return out;
}

/** Says which filter emptied the subset, so the user knows what to loosen. */
export function emptySubsetMessage(datasetName: string, samples: readonly Sample[], subset: RunSubset): string {
  const parts: string[] = [];
  if (subset.apis?.length) parts.push(`APIs ${subset.apis.join(', ')}`);
  if (subset.reviewStates?.length) parts.push(`review states ${subset.reviewStates.join(', ')}`);
  if (subset.sampleIds?.length) parts.push(`${subset.sampleIds.length} chosen sample ids`);
  return `the subset leaves no sample: none of the ${samples.length} samples of dataset "${datasetName}" matches ${parts.join(' and ') || 'the filters'}`;
}

/**
 * The snapshot a run keeps of each sample it takes; `index` is the sample's position in the
 * dataset. With the run's setup options, each sample's Setup is taken here, once, and stored with
 * it: the run, its resume, the inspector and exports read that one.
 */
export function snapshotOf(samples: readonly Sample[], specHashes: ReadonlyMap<string, string>, options?: RunSetupOptions): RunInput[] {
  return samples.map((s) => {
    const input = { index: s.position, sampleId: s.id, api: s.api, task: s.task, config: s.config, specHash: specHashes.get(s.api) ?? null, contentHash: contentHash(s), ...(s.fields ? { fields: s.fields } : {}) };
    return options ? { ...input, setup: runSampleSetup(input, options) } : input;
  });
}

/**
 * What a run may not do with multi-step samples (scoring.md §7), checked once the subset is known:
 * argument completion opens one call, and a grammar a server enforces describes one call (the
 * exported GBNF), while such a sample's program makes several; only a local model's constraint
 * follows every call. One line naming how many samples it concerns.
 */
export function multiStepRules(samples: readonly { readonly fields?: Readonly<Record<string, unknown>> | undefined }[], run: Pick<RunShape, 'setup' | 'setting' | 'model'>): void {
  const multi = samples.filter((s) => s.fields?.['steps'] !== undefined).length;
  if (multi === 0) return;
  const which = `${multi} of the ${samples.length} chosen samples make several requests (steps)`;
  if (run.setup === 'argument') throw new WapiiError('bad_input', `${which}: argument completion opens one call; run them in the full setup, or leave them out (e.g. --api or a subset)`);
  if (run.setting === 'constrained' && run.model.kind !== 'local') throw new WapiiError('bad_input', `${which}: a server's grammar constrains one call, not a program of several; run them constrained on a local model, or unconstrained or with repair here`);
}

/** The knowledge conditions of a start, parsed, in the order given, without repeats. */
export function conditionsOf(input: Pick<StartRunInput, 'knowledge'>): KnowledgeCondition[] {
  const out: KnowledgeCondition[] = [];
  for (const text of input.knowledge) {
    const parsed = parseKnowledge(text);
    if (!parsed.ok) throw new WapiiError('bad_input', parsed.error.message);
    if (!out.some((c) => c.name === parsed.value.name)) out.push(parsed.value);
  }
  return out;
}

/**
 * The snapshot of a run under a knowledge condition: each sample with the knowledge lines its
 * prompt will carry, taken now from the whole dataset (`example` draws on samples outside the
 * subset), so a resumed run prompts exactly as it started.
 */
export function snapshotWithKnowledge(samples: readonly Sample[], all: readonly Sample[], specs: ReadonlyMap<string, ApiSpec>, specHashes: ReadonlyMap<string, string>, condition: KnowledgeCondition, options?: RunSetupOptions): RunInput[] {
  const inputs = snapshotOf(samples, specHashes, options);
  if (condition.name === 'none') return inputs;
  const pool = all.filter((s) => s.fields?.['steps'] === undefined).map((s) => ({ index: s.position, api: s.api, task: s.task, config: s.config }));
  const lines = withKnowledge(inputs, pool, specs, condition);
  // A multi-step sample's prompt states its task only (scoring.md §7): knowledge of its last request would name values only its responses may give.
  return inputs.map((input, i) => (input.fields?.['steps'] !== undefined ? input : { ...input, knowledge: lines[i]!.knowledge }));
}

/** The settings stored with the run; executeRun's resume compares them (`knowledge` among them). */
export function settingsOf(input: StartRunInput, samples: number, condition: KnowledgeCondition = { name: 'none', parts: [] }): Record<string, unknown> & Partial<RunSettings> {
  return {
    knowledge: condition.name,
    setup: input.setup,
    prompt: input.prompt,
    setting: input.setting,
    ...(input.setting === 'repair' ? { repairRounds: input.repairRounds } : {}),
    // Only a run of another client than Axios records it: runs stored before the option are Axios runs.
    ...clientField(input.client),
    n: input.sampling.n,
    seed: input.sampling.seed,
    temperature: input.sampling.temperature,
    topK: input.sampling.topK,
    topP: input.sampling.topP,
    maxTokens: input.sampling.maxTokens,
    ...(input.parallel !== undefined ? { parallel: input.parallel } : {}),
    contextSize: input.contextSize,
    limit: samples,
  };
}

/** The inputs' fingerprint in the manifest: the snapshot's content and the specs it was scored against. */
export function inputManifest(inputs: readonly RunInput[], specHashes: ReadonlyMap<string, string>): Record<string, unknown> {
  return {
    datasetSha256: sha256(inputs.map((i) => `${i.sampleId}:${i.contentHash}`).join('\n')),
    specSha256: Object.fromEntries([...new Set(inputs.map((i) => i.api))].sort().map((api) => [api, specHashes.get(api) ?? null])),
    promptTemplate: PROMPT_TEMPLATE_HASH,
  };
}

/** What one earlier run measured: its outputs, their generated tokens, and the wall time they took (see RunRepository.outputPace). */
export interface RunPace {
  readonly model: RunRow['model'];
  readonly settings: Record<string, unknown>;
  readonly outputs: number;
  readonly tokens: number;
  readonly wallMs: number;
}

/** A rate the estimate uses: measured over earlier outputs, or a typical one (a guess). */
export interface Rate {
  readonly tokensPerSecond: number;
  /** Outputs it was measured over; 0 for a guess. */
  readonly outputs: number;
  /** Requests in flight at once that each go at `tokensPerSecond` (servers and hosted models: their time is per request); 1 where the rate is already the whole run's. */
  readonly streams: number;
  /** Measured on runs of another setting (constrained decoding, repair) of the same model, for want of one in this setting. */
  readonly otherSetting?: boolean;
}

/**
 * What makes two runs' paces comparable: the same local file, the same server and model, or the
 * same provider, model and endpoint. Undefined for a batch run, whose outputs wait in OpenAI's
 * queue for as long as it likes: their time says nothing about a rate.
 */
export function paceKey(model: RunRow['model']): string | undefined {
  if (!model) return undefined;
  if (model.provider) return model.provider.batch ? undefined : `provider:${model.provider.name}:${model.provider.model}@${model.provider.baseUrl ?? ''}${model.provider.pool?.length ? `+${model.provider.pool.join(',')}` : ''}`;
  if (model.remote) return `remote:${model.remote}:${model.name}`;
  return model.path ? `local:${model.path}` : undefined;
}

/**
 * The rate earlier runs of the same model measured: their generated tokens over the time those
 * outputs took. Runs of the same setting count when there are any (constrained decoding and repair
 * go at their own pace), else every setting of the model. Undefined when none was measured.
 */
export function measuredRate(paces: readonly RunPace[], model: RunRow['model'], setting: string, streams = 1): Rate | undefined {
  const key = paceKey(model);
  if (key === undefined) return undefined;
  const same = paces.filter((p) => paceKey(p.model) === key && p.tokens > 0 && p.wallMs > 0);
  const here = same.filter((p) => p.settings['setting'] === setting);
  const used = here.length > 0 ? here : same;
  if (used.length === 0) return undefined;
  const tokens = used.reduce((sum, p) => sum + p.tokens, 0);
  const ms = used.reduce((sum, p) => sum + p.wallMs, 0);
  return { tokensPerSecond: (tokens / ms) * 1000, outputs: used.reduce((sum, p) => sum + p.outputs, 0), streams, ...(here.length === 0 ? { otherSetting: true } : {}) };
}

/**
 * Rates typical of each kind of model, for a model no run has measured yet: a small quantised
 * model on a CPU across its sequences, one on a GPU, a server's and a hosted model's request. A
 * guess, and the estimate says so.
 */
export const TYPICAL_TOKENS_PER_SECOND = { cpu: 10, gpu: 60, server: 30, hosted: 50 } as const;

const duration = (seconds: number): string => (seconds < 90 ? `${Math.ceil(seconds)} s` : seconds < 5400 ? `${Math.ceil(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`);

/**
 * A one-line estimate of the work: the outputs, the tokens they may generate, and how long that
 * takes at the given rate, saying whether the rate was measured (over how many outputs) or is a
 * guess; a batch run's time is OpenAI's to decide.
 */
export function estimateLine(outputs: number, maxTokens: number, rate: Rate | 'batch' | undefined): string {
  const tokens = outputs * maxTokens;
  const head = `${outputs} outputs, up to ${tokens.toLocaleString('en')} generated tokens`;
  if (rate === 'batch') return `${head}: OpenAI answers a batch within 24 h`;
  if (!rate) return head;
  const seconds = tokens / (rate.tokensPerSecond * rate.streams);
  const pace = `${Math.round(rate.tokensPerSecond)} tok/s${rate.streams > 1 ? ` per request, ${rate.streams} at once` : ''}`;
  if (rate.outputs === 0) return `${head}: at most about ${duration(seconds)} at a typical ${pace} (a guess: no earlier run of this model measured one)`;
  return `${head}: at most about ${duration(seconds)} at ${pace} measured over ${rate.outputs.toLocaleString('en')} output${rate.outputs === 1 ? '' : 's'} of earlier runs${rate.otherSetting ? ' in other settings' : ''}`;
}

/**
 * Characters per token the context check assumes: code and JSON run 3–4 characters a token in the
 * tokenisers of the models run here, so 3 over-counts a little. The check warns before a run
 * rather than after, and a context a little larger than needed costs only memory.
 */
export const CHARS_PER_TOKEN = 3;

/** The longest prompt of a subset (its knowledge lines aside), with its tokens estimated from its length. */
export function longestPrompt(samples: readonly Sample[], input: Pick<StartRunInput, 'prompt' | 'setup'>): { sampleId: string; position: number; tokens: number } | undefined {
  let best: { sampleId: string; position: number; chars: number } | undefined;
  for (const s of samples) {
    const p = promptFor(input.prompt)(s, input.setup);
    const chars = p.text.length + (p.replyPrefix?.length ?? 0);
    if (!best || chars > best.chars) best = { sampleId: s.id, position: s.position, chars };
  }
  return best && { sampleId: best.sampleId, position: best.position, tokens: Math.ceil(best.chars / CHARS_PER_TOKEN) };
}

/** What New run shows about the context: the longest prompt and what it needs, the context to use when the field is left blank, and a warning when it does not fit. */
export interface ContextFit {
  readonly longestPromptTokens: number;
  readonly sampleId: string;
  /** The longest prompt's tokens and max tokens. */
  readonly needed: number;
  /** The model's trained context; null where unknown. */
  readonly trainedContext: number | null;
  /** The smallest context (a multiple of 256, at least 1024) that fits `needed`, as far as the trained context allows. */
  readonly suggested: number;
  /** Said on New run, naming its fields. */
  readonly warning?: string;
}

/**
 * Whether the longest prompt and max tokens fit: in the context given, or, where the field is blank
 * (`contextSize` undefined), in the suggested one. The words name New run's fields (Context, Max
 * tokens), the page the line is shown on.
 */
export function contextFit(longest: { sampleId: string; position: number; tokens: number }, maxTokens: number, contextSize: number | undefined, trainedContext: number | null): ContextFit {
  const needed = longest.tokens + maxTokens;
  const fits = Math.max(1024, Math.ceil(needed / 256) * 256);
  const suggested = trainedContext && trainedContext > 0 ? Math.min(fits, trainedContext) : fits;
  const base = { longestPromptTokens: longest.tokens, sampleId: longest.sampleId, needed, trainedContext: trainedContext && trainedContext > 0 ? trainedContext : null, suggested };
  const what = `the longest prompt (sample #${longest.position}, about ${longest.tokens.toLocaleString('en')} tokens) and ${maxTokens.toLocaleString('en')} max tokens need a context of about ${needed.toLocaleString('en')}`;
  if (base.trainedContext !== null && needed > base.trainedContext) return { ...base, warning: `${what}, more than the model was trained on (${base.trainedContext.toLocaleString('en')}): lower Max tokens or leave that sample out, or its outputs fail` };
  if (contextSize !== undefined && needed > contextSize) return { ...base, warning: `${what}; Context is ${contextSize.toLocaleString('en')}: raise Context to ${suggested.toLocaleString('en')} (or leave it blank) or lower Max tokens, or the longest prompts' outputs fail` };
  return base;
}

/** What the run rules read of a run, whichever way it was asked for (New run, the CLI on a stored dataset or on a file). */
export interface RunShape {
  readonly client: HttpClient;
  readonly setting: 'unconstrained' | 'constrained' | 'repair';
  readonly setup: CompletionMode;
  readonly prompt: PromptStyle;
  /** A local model, an OpenAI-compatible server given by URL, or a registry provider. */
  readonly model: { readonly kind: 'local' } | { readonly kind: 'remote' } | { readonly kind: 'provider'; readonly name: string };
}

/** The rules every run is held to before anything is written, in one place: one line for the first it breaks. */
export function assertRunShape(run: RunShape): void {
  // The constraint language and its GBNF describe Axios calls only (constraints.md): whatever the model, first.
  if (!CLIENT_PROFILES[run.client].constrainable && run.setting === 'constrained') throw new WapiiError('bad_input', `constrained decoding covers Axios calls only: run ${CLIENT_PROFILES[run.client].label} programs unconstrained or with repair`);
  // Constrained decoding needs the logits (a local model) or a server that enforces a grammar (OpenAI-compatible, as llama.cpp's).
  if (run.model.kind === 'provider' && run.setting === 'constrained' && entryOf(run.model.name).capabilities.constraints !== 'grammar') {
    throw new WapiiError('bad_input', `${run.model.name} exposes no logits: constrained needs a local model or a grammar server`);
  }
  if (run.model.kind === 'remote' && run.prompt === 'chat') throw new WapiiError('bad_input', 'chat prompts need a local model; a remote server takes completion prompts');
  if (run.model.kind === 'remote' && run.setting === 'constrained' && run.setup !== 'full') {
    throw new WapiiError('bad_input', 'a remote server is constrained by the exported GBNF, which covers the full-completion setup: choose the full setup');
  }
}

export function assertRunnable(input: StartRunInput): void {
  assertRunShape(runShapeOf(input));
}

export function runShapeOf(input: StartRunInput): RunShape {
  const model: RunShape['model'] = 'provider' in input.model ? { kind: 'provider', name: input.model.provider.name } : 'remote' in input.model ? { kind: 'remote' } : { kind: 'local' };
  return { client: input.client, setting: input.setting, setup: input.setup, prompt: input.prompt, model };
}

/** How a stored run gave its samples to the model: its setup's mode, prompt style and client, read from its settings in one place. */
export interface RunSetupOptions {
  readonly mode: CompletionMode;
  readonly style: PromptStyle;
  readonly client: HttpClient;
}
export function runSetupOptions(stored: Readonly<Record<string, unknown>>): RunSetupOptions {
  const settings = readRunSettings(stored);
  return { mode: settings.setup, style: settings.prompt, client: settings.client };
}

/** A run sample's Setup, as the runner built it (runner/run.ts): the inspector cuts the call with the same one. */
export function runSampleSetup(sample: Parameters<typeof setupSampleOf>[0], options: RunSetupOptions): Setup {
  return setupFor(setupSampleOf(sample), options.mode, { style: options.style, client: options.client });
}
