import type { Output, Parsed } from '../api/contract.js';
import { unwrap, WapiiError } from '../api/result.js';
import { StepSchema, type RequestConfig } from '../api/schemas.js';
import { ConstraintMatcher, exportGbnf } from '../constraints/index.js';
import { exportFlat, parseDataset, recheckSamples, samplesOnNovelEndpoints } from '../dataset/index.js';
import { describeChange, diffSpecs, loadSpec, type ApiSpec } from '../openapi/index.js';
import { ORACLE_WRITERS, stepsOracleProgram } from '../prompt/index.js';
import { measureRecall } from '../retrieval/index.js';
import type { Store } from '../store/index.js';
import { prepareDataset } from './prepare.js';

/**
 * The contract's file tools: what the command line does with dataset and spec files (handed by
 * content) or a stored dataset, storing nothing — the oracle's programs, the constraints' check and
 * grammar, retrieval recall, and a new spec version's diff, re-check and derived samples.
 */

export interface FileToolsContext {
  readonly store: Store;
  /** A stored spec, parsed (once per hash). */
  readonly spec: (hash: string) => Promise<ApiSpec>;
}

/** A dataset's samples (`index`: the position) and its specs by API. */
interface DatasetInput {
  readonly samples: readonly { index: number; id: string; api: string; task: string; config: RequestConfig }[];
  readonly specs: ReadonlyMap<string, ApiSpec>;
}

/** A dataset file with its specs (parsed and checked as an import does), or a stored dataset with the specs it was imported with. */
async function datasetInput(ctx: FileToolsContext, source: Parsed<'measureRecall'>['source']): Promise<DatasetInput> {
  if (!('datasetId' in source)) {
    const prepared = unwrap(await prepareDataset(source.dataset, source.specs));
    return {
      samples: prepared.samples.map((s, index) => ({ index, id: s.id, api: s.api, task: s.task, config: s.config })),
      specs: new Map([...prepared.specs].map(([api, p]) => [api, p.spec])),
    };
  }
  const dataset = ctx.store.findDataset(source.datasetId);
  if (!dataset) throw new WapiiError('not_found', `dataset ${source.datasetId} does not exist`);
  const specs = new Map<string, ApiSpec>();
  for (const [api, hash] of ctx.store.datasetApis(dataset.id)) specs.set(api, await ctx.spec(hash));
  const samples = ctx.store.listSamples(dataset.id).map((s) => ({ index: s.position, id: s.id, api: s.api, task: s.task, config: s.config }));
  return { samples, specs };
}

const loaded = async (file: { filename: string; content: string }): Promise<ApiSpec> => unwrap(await loadSpec(file.content, file.filename));

export async function measureDatasetRecall(ctx: FileToolsContext, input: Parsed<'measureRecall'>): Promise<Output<'measureRecall'>> {
  const { samples, specs } = await datasetInput(ctx, input.source);
  return measureRecall(samples, specs);
}

const StepsOfSchema = StepSchema.array().min(2);

/** `wapii oracle`: each sample's ground truth, `NNNN.js` by its position; a multi-step sample's is its whole program, every step awaited in order (scoring.md §7). */
export function oraclePrograms(input: Parsed<'oraclePrograms'>): Output<'oraclePrograms'> {
  const samples = unwrap(parseDataset(input.dataset.content, input.dataset.filename));
  const write = ORACLE_WRITERS[input.client];
  const programOf = (s: (typeof samples)[number]): string => {
    const steps = StepsOfSchema.safeParse(s.fields?.['steps']);
    return steps.success ? stepsOracleProgram({ task: s.task, steps: steps.data }, input.client, input.quotes, input.style) : write(s, input.setup, input.quotes, input.style).program;
  };
  return { files: Object.fromEntries(samples.map((s, i) => [`${String(i).padStart(4, '0')}.js`, programOf(s)])) };
}

const CALL = /\baxios\./g;

/** Offsets of every `axios.` in the text, from `from` on. */
function callsFrom(text: string, from: number): number[] {
  CALL.lastIndex = from;
  return [...text.matchAll(CALL)].map((m) => m.index).filter((i) => i >= from);
}

/** Whether the nearest non-blank line before the line holding `offset` is a `//` comment. */
function followsComment(text: string, offset: number): boolean {
  const lines = text.slice(0, text.lastIndexOf('\n', offset - 1) + 1).split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line !== '') return line.startsWith('//');
  }
  return false;
}

/**
 * Where the task's call starts in a program of starter code and completion. A real-world starter
 * may call Axios before the task (`axios.all([...])`, a rate-limit probe), so not at its first
 * `axios.`: at the first one after the `{task}` comment line where the placeholder is still there,
 * else at the first one right below a `//` comment line (the task's comment, filled in, as every
 * starter writes it), else at the first one.
 */
export function taskCallStart(text: string): number {
  const placeholder = text.indexOf('{task}');
  if (placeholder >= 0) {
    const lineEnd = text.indexOf('\n', placeholder);
    const after = callsFrom(text, lineEnd < 0 ? text.length : lineEnd)[0];
    if (after !== undefined) return after;
  }
  const calls = callsFrom(text, 0);
  return calls.find((offset) => followsComment(text, offset)) ?? calls[0] ?? text.length;
}

/** `wapii constraints check`: is each program accepted by the spec's constraints? Else where no legal continuation exists. */
export async function checkConstraints(input: Parsed<'checkConstraints'>): Promise<Output<'checkConstraints'>> {
  const spec = await loaded(input.spec);
  return input.programs.map((text) => {
    // What the code declares in scope at the task's call is what values may reference; calls before it are context.
    const { matcher, fed } = ConstraintMatcher.forSetup(spec, { starter: text, callStart: taskCallStart(text), definitions: {} });
    if (!fed.ok) return { accepted: false, offset: fed.offset, reason: fed.reason };
    if (!matcher.isComplete()) return { accepted: false, offset: text.length, reason: 'the file ends inside an invocation' };
    return { accepted: true };
  });
}

/** `wapii constraints gbnf`: the constraints as a GBNF grammar for llama.cpp (a relaxation: see its header). */
export async function gbnfOf(input: Parsed<'exportGbnf'>): Promise<Output<'exportGbnf'>> {
  return { grammar: exportGbnf(await loaded(input.spec), input.names) };
}

/** `wapii spec-diff`: each change with its one line (`text`). */
export async function diffSpecFiles(input: Parsed<'diffSpecs'>): Promise<Output<'diffSpecs'>> {
  const diff = diffSpecs(await loaded(input.before), await loaded(input.after));
  return { added: [...diff.added], removed: [...diff.removed], changed: diff.changed.map((c) => ({ endpoint: c.endpoint, changes: c.changes.map((x) => ({ ...x, text: describeChange(x) })) })) };
}

/** The API a new spec version is for: `api`, else the dataset's only API. */
function apiOf(input: DatasetInput, api: string | undefined): string {
  const apis = [...input.specs.keys()];
  if (api !== undefined) {
    if (!input.specs.has(api)) throw new WapiiError('bad_input', `the dataset has no API \`${api}\` (it has: ${apis.join(', ')})`);
    return api;
  }
  if (apis.length !== 1) throw new WapiiError('bad_input', `the dataset covers ${apis.length} APIs (${apis.join(', ')}): name the one the new spec is for with --api`);
  return apis[0]!;
}

/** `wapii spec-recheck`: the API's samples checked against both versions; those whose findings differ. */
export async function recheckSpecVersion(ctx: FileToolsContext, input: Parsed<'recheckSpecVersion'>): Promise<Output<'recheckSpecVersion'>> {
  const dataset = await datasetInput(ctx, input.source);
  const api = apiOf(dataset, input.api);
  const rechecked = recheckSamples(dataset.samples, api, dataset.specs.get(api)!, await loaded(input.spec));
  return { api, samples: dataset.samples.filter((s) => s.api === api).length, rechecked: rechecked.map((r) => ({ index: r.index, endpoint: r.endpoint, broken: [...r.broken], fixed: [...r.fixed] })) };
}

/** `wapii spec-derive`: the API's samples on endpoints the new version adds or changes, as a flat WAPIIBench file. */
export async function deriveSpecVersion(ctx: FileToolsContext, input: Parsed<'deriveSpecVersion'>): Promise<Output<'deriveSpecVersion'>> {
  const dataset = await datasetInput(ctx, input.source);
  const api = apiOf(dataset, input.api);
  const before = dataset.specs.get(api)!;
  const after = await loaded(input.spec);
  const diff = diffSpecs(before, after);
  const derived = samplesOnNovelEndpoints(dataset.samples, api, before, after, diff);
  return {
    api,
    before: { title: before.title, version: before.version },
    after: { title: after.title, version: after.version },
    samples: derived.map((s) => s.index),
    dataset: exportFlat(derived.map((s) => ({ ...s, source: {} }))),
    diff: { added: [...diff.added], changed: diff.changed.map((c) => c.endpoint) },
  };
}
