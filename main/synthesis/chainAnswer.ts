import { z } from 'zod';
import { JsonValueSchema, RequestConfigSchema, type JsonValue, type RequestConfig, type SampleStep } from '../api/schemas.js';
import { requestValueAt } from '../api/steps.js';
import { resolveEndpoint, type ApiSpec, type Endpoint, type JsonSchema } from '../openapi/index.js';
import type { ProviderOutput as ProviderAnswer } from '../providers/types.js';
import { answerJson, asAxiosConfig, boundedConfigSchema, CONFIG_SCHEMA, type FailureKind, type ReadAnswer, type SynthesizedSample } from './answer.js';
import { pointerOf, schemaView, type Chain } from './chains.js';

const STEP_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    config: CONFIG_SCHEMA,
    response: {
      type: 'object',
      properties: {
        status: { type: 'integer', description: 'a success status the operation declares' },
        data: { type: 'object', additionalProperties: true, description: "the JSON body the API answers, valid against the operation's response schema" },
      },
      required: ['status', 'data'],
    },
  },
  required: ['config', 'response'],
};

/** A chain's drafts, as the answer must be: `{"samples": [{"chain", "task", "steps": [{config, response}, {config, response}]}]}`. */
export const CHAIN_ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    samples: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          chain: { type: 'integer', description: "the chain's number in the list" },
          task: { type: 'string', description: 'the task, in plain English, with every value the requests need but the looked-up one' },
          steps: { type: 'array', minItems: 2, maxItems: 2, items: STEP_SCHEMA },
        },
        required: ['chain', 'task', 'steps'],
      },
    },
  },
  required: ['samples'],
};

const successStatus = (e: Endpoint): string | undefined => Object.keys(e.responses ?? {}).filter((s) => /^2(\d\d|XX)$/i.test(s)).sort()[0];
const statusNumber = (status: string | undefined): number => (status && /^\d+$/.test(status) ? Number(status) : 200);

function boundedScalar(schema: Record<string, unknown>): JsonSchema {
  const values = Array.isArray(schema['enum']) ? schema['enum'].filter((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)) : [];
  if (values.length > 0) return { enum: values };
  const type = schema['type'];
  if (type === 'boolean' || type === 'integer' || type === 'number') return { type };
  if (type === 'string') return { type: 'string', maxLength: 60 };
  return { oneOf: [{ type: 'string', maxLength: 60 }, { type: 'number' }, { type: 'boolean' }] };
}

/**
 * A response body bounded for grammar-constrained decoding: along `path` (the chain's field) the
 * objects and lists that lead to it (each list one to three items), and at every object level
 * the properties the schema requires (to two levels), so that a model under the grammar writes a
 * body that holds the field and may pass the response schema; the item holding the field also
 * keeps a `name` or `title`, which a task refers to it by.
 */
export function boundedData(spec: ApiSpec, schema: unknown, path: readonly string[] | undefined, depth = 0): JsonSchema {
  const view = schemaView(spec, schema);
  if (path && path.length > 0) {
    const [head, ...rest] = path as [string, ...string[]];
    if (head === '*') return { type: 'array', minItems: 1, maxItems: 3, items: boundedData(spec, view.items, rest, depth + 1) };
    const properties: Record<string, JsonSchema> = {};
    for (const name of [...view.required].slice(0, 8)) if (name !== head && view.properties.has(name) && depth < 4) properties[name] = boundedData(spec, view.properties.get(name), undefined, 2);
    properties[head] = boundedData(spec, view.properties.get(head), rest, depth + 1);
    if (rest.length === 0) for (const label of ['name', 'title']) if (view.properties.has(label) && !properties[label]) properties[label] = boundedData(spec, view.properties.get(label), undefined, 2);
    return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  }
  if (view.items !== undefined) return { type: 'array', minItems: 0, maxItems: 2, items: depth < 2 ? boundedData(spec, view.items, undefined, depth + 1) : { type: 'string', maxLength: 60 } };
  if (view.properties.size > 0 || view.types.has('object')) {
    const properties: Record<string, JsonSchema> = {};
    if (depth < 3) for (const name of [...view.required].slice(0, 8)) if (view.properties.has(name)) properties[name] = boundedData(spec, view.properties.get(name), undefined, depth + 1);
    return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
  }
  return boundedScalar(view.schema);
}

const unescape = (segment: string): string => segment.replace(/~1/g, '/').replace(/~0/g, '~');
const segmentsOf = (pointer: string): string[] => pointer.split('/').slice(1).map(unescape);

function boundedStep(spec: ApiSpec, endpoint: Endpoint, status: string | undefined, field: string | undefined): JsonSchema {
  return {
    type: 'object',
    properties: {
      config: boundedConfigSchema(spec, [endpoint]),
      response: {
        type: 'object',
        properties: { status: { enum: [statusNumber(status)] }, data: boundedData(spec, status ? endpoint.responses?.[status] : undefined, field ? segmentsOf(field) : undefined) },
        required: ['status', 'data'],
      },
    },
    required: ['config', 'response'],
  };
}

/**
 * The chain answer schema bounded for grammar-constrained decoding (as boundedAnswerSchema): the
 * asked number of drafts, each one chain's (its number a constant), its two steps' configs
 * bounded to their operations' arguments and their responses to what boundedData keeps.
 */
export function boundedChainAnswerSchema(spec: ApiSpec, chains: readonly Chain[], perChain: number): JsonSchema {
  const variants: JsonSchema[] = chains.map((c, i) => ({
    type: 'object',
    properties: {
      chain: { const: i + 1 },
      task: { type: 'string', maxLength: 400 },
      steps: { type: 'array', prefixItems: [boundedStep(spec, c.producer, c.status, c.field), boundedStep(spec, c.consumer, successStatus(c.consumer), undefined)], minItems: 2, maxItems: 2 },
    },
    required: ['chain', 'task', 'steps'],
  }));
  const count = chains.length * perChain;
  return {
    type: 'object',
    properties: { samples: { type: 'array', minItems: count, maxItems: count, items: variants.length === 1 ? variants[0]! : { oneOf: variants } } },
    required: ['samples'],
  };
}

/** Every concrete pointer into `data` that the pattern's segments (`*`: any list index) reach, with the value there, in document order. */
export function pointersMatching(data: JsonValue | undefined, segments: readonly string[]): { readonly pointer: string; readonly value: JsonValue }[] {
  const out: { pointer: string; value: JsonValue }[] = [];
  const walk = (node: JsonValue | undefined, at: number, path: string[]): void => {
    if (node === undefined) return;
    if (at === segments.length) return void out.push({ pointer: pointerOf(path), value: node });
    const segment = segments[at]!;
    if (segment === '*') {
      if (Array.isArray(node)) node.forEach((item, i) => walk(item, at + 1, [...path, String(i)]));
    } else if (node !== null && typeof node === 'object' && !Array.isArray(node) && Object.hasOwn(node, segment)) walk(node[segment], at + 1, [...path, segment]);
  };
  walk(data, 0, []);
  return out;
}

/** What the consumer's request sends at the chain's parameter: a path parameter read from its URL. */
function sentValue(spec: ApiSpec, chain: Chain, config: RequestConfig): JsonValue | undefined {
  if (chain.parameter.in !== 'path') return requestValueAt(config, chain.parameter.carried);
  const resolved = resolveEndpoint(spec, config.url, config.method.toLowerCase(), config.params ?? {});
  return resolved.candidate?.pathParams[chain.parameter.name];
}

/**
 * The chain's carried pointer for a draft (`0:/data/channels/1/id`): the chain's field pattern
 * made concrete at the list item whose value the second request sends; where none does, the
 * first item that has the field; where none has it, the pattern with every index 0. The checks
 * then say what is wrong (a pointer to nothing, a value the request does not send); nothing is
 * made to fit.
 */
export function carriedPointer(spec: ApiSpec, chain: Chain, steps: readonly Pick<SampleStep, 'config' | 'response'>[]): string {
  const found = pointersMatching(steps[0]?.response.data, segmentsOf(chain.field));
  const sent = steps[1] ? sentValue(spec, chain, steps[1].config) : undefined;
  const same = (v: JsonValue): boolean => sent !== undefined && (JSON.stringify(v) === JSON.stringify(sent) || (chain.parameter.in === 'path' && (typeof v === 'string' || typeof v === 'number') && String(v) === String(sent)));
  const pointer = found.find((f) => same(f.value))?.pointer ?? found[0]?.pointer ?? chain.field.replace(/\/\*(?=\/|$)/g, '/0');
  return `0:/data${pointer}`;
}

const StepAnswerSchema = z.object({
  config: RequestConfigSchema,
  response: z.object({ status: z.number().int().min(100).max(599), headers: z.record(z.string(), JsonValueSchema).optional(), data: JsonValueSchema.optional() }),
});
const ChainAnswerSchema = z.object({ samples: z.array(z.object({ chain: z.number().int(), task: z.string().trim().min(1), steps: z.array(StepAnswerSchema) })) });
const key = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method.toUpperCase()} ${e.path}`;

/**
 * Reads a provider's answer to a chain prompt, all or nothing as readAnswer: an answer that is
 * blocked, cut off, not JSON or not in the format, a draft for a chain not asked for, or with a
 * step to another operation than its chain's, gives no draft at all. Each draft becomes a
 * multi-step sample of two steps (configs as Axios sends them), the second carrying the chain's
 * parameter from the first response (carriedPointer). Chains the answer left out come back as
 * `missing`, drafts beyond `perChain` a chain as `dropped`.
 */
export function readChainAnswer(answer: ProviderAnswer, spec: ApiSpec, chains: readonly Chain[], perChain = 1): ReadAnswer {
  const failure = (kind: FailureKind, message: string): ReadAnswer => ({ ok: false, failure: { kind, message } });
  const json = answerJson(answer);
  if (!json.ok) return json;
  const parsed = ChainAnswerSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure('invalid_sample', `the answer is not {"samples": [{"chain", "task", "steps": [{"config", "response"}, ...]}]}: ${issue ? `${issue.path.join('.') || 'answer'}: ${issue.message}` : 'invalid'}`);
  }
  const samples: SynthesizedSample[] = [];
  const kept = new Map<string, number>();
  const dropped = new Map<string, number>();
  for (const [i, s] of parsed.data.samples.entries()) {
    const chain = chains[s.chain - 1];
    if (!chain) return failure('unasked_endpoint', `sample ${i} is for chain ${s.chain}, which was not asked for (asked: chains 1 to ${chains.length})`);
    if (s.steps.length !== 2) return failure('invalid_sample', `sample ${i} has ${s.steps.length} steps; a chain's sample has 2 (the request to ${key(chain.producer)}, then the one to ${key(chain.consumer)})`);
    for (const [k, step] of s.steps.entries()) {
      const want = k === 0 ? chain.producer : chain.consumer;
      const endpoint = resolveEndpoint(spec, step.config.url, step.config.method.toLowerCase(), step.config.params ?? {}).endpoint;
      if (!endpoint || key(endpoint) !== key(want)) {
        return failure('unasked_endpoint', `sample ${i}'s step ${k} is for ${endpoint ? key(endpoint) : `${step.config.method.toUpperCase()} ${step.config.url}, which matches no endpoint of the spec`}, not ${key(want)} of chain ${s.chain}`);
      }
    }
    const n = kept.get(chain.key) ?? 0;
    if (n >= perChain) {
      dropped.set(chain.key, (dropped.get(chain.key) ?? 0) + 1);
      continue;
    }
    kept.set(chain.key, n + 1);
    const drafted = s.steps.map((step) => ({ config: asAxiosConfig(step.config), response: step.response }));
    const steps: SampleStep[] = [drafted[0]!, { ...drafted[1]!, carried: { [chain.parameter.carried]: carriedPointer(spec, chain, drafted) } }];
    samples.push({ endpoint: chain.key, task: s.task.trim(), config: steps[1]!.config, steps });
  }
  const covered = new Set(samples.map((s) => s.endpoint));
  return { ok: true, samples, missing: chains.map((c) => c.key).filter((k) => !covered.has(k)), dropped };
}
