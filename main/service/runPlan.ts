import type { z } from 'zod';
import type { RunSubset, StartRunInputSchema } from '../api/evaluation.js';
import { WapiiError } from '../api/result.js';
import type { Sample } from '../api/schemas.js';
import type { ApiSpec } from '../openapi/index.js';
import { mulberry32 } from '../scoring/index.js';
import { parseKnowledge, PROMPT_TEMPLATE_HASH, type KnowledgeCondition } from '../prompt/index.js';
import { withKnowledge } from '../runner/index.js';
import { sha256 } from '../store/index.js';
import type { RunInput } from '../store/runs.js';

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

/** The snapshot a run keeps of each sample it takes; `index` is the sample's position in the dataset. */
export function snapshotOf(samples: readonly Sample[], specHashes: ReadonlyMap<string, string>): RunInput[] {
  return samples.map((s) => ({ index: s.position, sampleId: s.id, api: s.api, task: s.task, config: s.config, specHash: specHashes.get(s.api) ?? null, contentHash: contentHash(s), ...(s.fields ? { fields: s.fields } : {}) }));
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
export function snapshotWithKnowledge(samples: readonly Sample[], all: readonly Sample[], specs: ReadonlyMap<string, ApiSpec>, specHashes: ReadonlyMap<string, string>, condition: KnowledgeCondition): RunInput[] {
  const inputs = snapshotOf(samples, specHashes);
  if (condition.name === 'none') return inputs;
  const pool = all.map((s) => ({ index: s.position, api: s.api, task: s.task, config: s.config }));
  const lines = withKnowledge(inputs, pool, specs, condition);
  return inputs.map((input, i) => ({ ...input, knowledge: lines[i]!.knowledge }));
}

/** The settings stored with the run; executeRun's resume compares them (`knowledge` among them). */
export function settingsOf(input: StartRunInput, samples: number, condition: KnowledgeCondition = { name: 'none', parts: [] }): Record<string, unknown> {
  return {
    knowledge: condition.name,
    setup: input.setup,
    prompt: input.prompt,
    setting: input.setting,
    ...(input.setting === 'repair' ? { repairRounds: input.repairRounds } : {}),
    // Only a fetch run records its client: runs stored before the option are Axios runs.
    ...(input.client === 'fetch' ? { client: 'fetch' } : {}),
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

/** A rough one-line estimate of the work, from the outputs and a token rate typical of the setting. */
export function estimateLine(outputs: number, maxTokens: number, tokensPerSecond: number | undefined): string {
  const tokens = outputs * maxTokens;
  if (!tokensPerSecond) return `${outputs} outputs, up to ${tokens.toLocaleString('en')} generated tokens`;
  const seconds = tokens / tokensPerSecond;
  const time = seconds < 90 ? `${Math.ceil(seconds)} s` : seconds < 5400 ? `${Math.ceil(seconds / 60)} min` : `${(seconds / 3600).toFixed(1)} h`;
  return `${outputs} outputs, up to ${tokens.toLocaleString('en')} generated tokens: at most about ${time} at ${Math.round(tokensPerSecond)} tokens/s`;
}

export function assertRunnable(input: StartRunInput): void {
  // The constraint language and its GBNF describe Axios calls only (constraints.md).
  if (input.client === 'fetch' && input.setting === 'constrained') throw new WapiiError('bad_input', 'constrained decoding covers Axios calls only: run fetch programs unconstrained or with repair');
  if ('remote' in input.model && input.prompt === 'chat') throw new WapiiError('bad_input', 'chat prompts need a local model; a remote server takes completion prompts');
  if ('remote' in input.model && input.setting === 'constrained' && input.setup !== 'full') {
    throw new WapiiError('bad_input', 'a remote server is constrained by the exported GBNF, which covers the full-completion setup: choose the full setup');
  }
}
