import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { RequestConfigSchema, type RequestConfig, type SampleStep } from '../api/schemas.js';
import { resolveEndpoint, type ApiSpec, type Endpoint, type JsonSchema } from '../openapi/index.js';
import type { ProviderOutput as ProviderAnswer } from '../providers/types.js';

const endpointKey = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method.toUpperCase()} ${e.path}`;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

/** An Axios request config, as an answer writes one. */
export const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', description: 'server URL + path with path parameters filled in, no query string' },
    method: { type: 'string', enum: METHODS },
    headers: { type: 'object', additionalProperties: { type: 'string' } },
    params: { type: 'object', additionalProperties: true },
    data: { type: 'object', additionalProperties: true },
  },
  required: ['url', 'method'],
};

/** WAPIIBench's per-API format, as the answer must be: `{"samples": [{"task", "config"}]}`. */
export const ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    samples: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          task: { type: 'string', description: 'the task, in plain English, with every value the request needs' },
          config: CONFIG_SCHEMA,
        },
        required: ['task', 'config'],
      },
    },
  },
  required: ['samples'],
};

const scalar = (maxLength: number): JsonSchema => ({ oneOf: [{ type: 'string', maxLength }, { type: 'number' }, { type: 'boolean' }] });
const keyed = (names: readonly string[], value: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: Object.fromEntries([...new Set(names)].map((n) => [n, value])),
  additionalProperties: false,
});

/**
 * The answer schema with everything bounded, for grammar-constrained decoding: exactly the asked
 * number of samples, strings with a maximum length, and argument names taken from the spec (an
 * open key is an unbounded string), so any model, even one that says nothing sensible, ends with
 * complete, valid JSON well inside its token budget. Body values are kept flat for the same reason.
 */
export function boundedAnswerSchema(spec: ApiSpec, endpoints: readonly Endpoint[], samplesPerEndpoint: number): JsonSchema {
  const count = endpoints.length * samplesPerEndpoint;
  return {
    type: 'object',
    properties: {
      samples: {
        type: 'array',
        minItems: count,
        maxItems: count,
        items: {
          type: 'object',
          properties: { task: { type: 'string', maxLength: 300 }, config: boundedConfigSchema(spec, endpoints) },
          required: ['task', 'config'],
        },
      },
    },
    required: ['samples'],
  };
}

/** A request config to one of `endpoints`, bounded as boundedAnswerSchema says: argument names from the spec, flat values of bounded length. */
export function boundedConfigSchema(spec: ApiSpec, endpoints: readonly Endpoint[]): JsonSchema {
  const headerNames = new Set<string>(['Authorization', 'Content-Type']);
  const queryNames = new Set<string>();
  const bodyNames = new Set<string>();
  for (const scheme of spec.securitySchemes) if (scheme.type === 'apiKey' && scheme.in === 'header') headerNames.add(scheme.keyName);
  for (const scheme of spec.securitySchemes) if (scheme.type === 'apiKey' && scheme.in === 'query') queryNames.add(scheme.keyName);
  for (const e of endpoints) {
    for (const p of e.parameters) if (p.in === 'header') headerNames.add(p.name);
    else if (p.in === 'query') queryNames.add(p.name);
    for (const c of e.requestBody?.contents ?? []) for (const prop of c.properties) bodyNames.add(prop.name);
  }
  const config: Record<string, JsonSchema> = {
    url: { type: 'string', maxLength: 160 },
    method: { enum: [...new Set(endpoints.map((e) => e.method))] },
    headers: keyed([...headerNames], { type: 'string', maxLength: 80 }),
  };
  if (queryNames.size > 0) config['params'] = keyed([...queryNames], scalar(60));
  if (bodyNames.size > 0) config['data'] = keyed([...bodyNames], scalar(60));
  return { type: 'object', properties: config, required: ['url', 'method'] };
}

/** Why an answer (or a call) gave no samples for an endpoint; recorded with the raw answer. */
export const FAILURE_KINDS = ['blocked', 'truncated', 'invalid_json', 'invalid_sample', 'unasked_endpoint', 'missing', 'provider_error', 'prompt_too_large'] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export interface AnswerFailure {
  readonly kind: FailureKind;
  readonly message: string;
}

export interface SynthesizedSample {
  /** `GET /path`: the asked endpoint the config resolves to; for a chain's draft, the chain's key. */
  readonly endpoint: string;
  readonly task: string;
  /** A multi-step draft's: its last step's. */
  readonly config: RequestConfig;
  /** A chain's draft (scoring.md §7): its steps, each carried value filled from the chain. */
  readonly steps?: readonly SampleStep[];
}

export type ReadAnswer =
  | {
      readonly ok: true;
      readonly samples: readonly SynthesizedSample[];
      readonly missing: readonly string[];
      /** Samples beyond the asked number per endpoint, left out, by endpoint (absent: none). */
      readonly dropped: ReadonlyMap<string, number>;
    }
  | { readonly ok: false; readonly failure: AnswerFailure };

const AnswerSchema = z.object({ samples: z.array(z.object({ task: z.string().trim().min(1), config: RequestConfigSchema })) });

/**
 * The config as Axios sends it, which is what WAPIIBench's configs are (they were captured from
 * Axios): the method in lower case, its default `Accept` header, and `Content-Type:
 * application/json` for a JSON body unless the sample set one.
 */
export function asAxiosConfig(config: RequestConfig): RequestConfig {
  const headers = { ...(config.headers ?? {}) };
  const names = new Set(Object.keys(headers).map((h) => h.toLowerCase()));
  if (!names.has('accept')) headers['Accept'] = 'application/json, text/plain, */*';
  const hasBody = typeof config.data === 'object' && config.data !== null;
  if (hasBody && !names.has('content-type')) headers['Content-Type'] = 'application/json';
  const out: RequestConfig = { url: config.url, method: config.method.toLowerCase(), headers };
  if (config.params && Object.keys(config.params).length > 0) out.params = config.params;
  if (config.data !== undefined) out.data = config.data;
  return out;
}

/**
 * Whether text that does not parse stops inside an open string, object or array: an answer cut
 * off (a dropped connection, a token limit the provider did not report) rather than malformed.
 */
function endsEarly(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    if (depth < 0) return false;
  }
  return inString || depth > 0;
}

/** The JSON of an answer: a block, a cut-off, an empty or malformed text is a failure that says which. */
export function answerJson(answer: ProviderAnswer): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly failure: AnswerFailure } {
  const failure = (kind: FailureKind, message: string) => ({ ok: false as const, failure: { kind, message } });
  if (answer.finish === 'blocked') return failure('blocked', `the provider blocked the answer (${answer.finishReason ?? 'safety'})`);
  const text = answer.text.trim().replace(/^```(?:json)?\s*\n([\s\S]*?)\n```$/, '$1');
  if (answer.finish === 'length') return failure('truncated', `the answer was cut at the token limit after ${answer.usage.outputTokens} tokens`);
  if (text === '') return failure('invalid_json', `the answer is empty${answer.finishReason ? ` (finish reason ${answer.finishReason})` : ''}`);
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    if (endsEarly(text)) return failure('truncated', `the answer's JSON ends early (${text.length} characters, inside an open string, object or array)`);
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false });
    return failure('invalid_json', `the answer is not valid JSON${errors[0] ? ` (error at character ${errors[0].offset})` : ''}`);
  }
}

/**
 * Reads a provider's answer against the endpoints asked for. All or nothing: an answer that is
 * blocked, cut off, not JSON, not in the format, or holds a sample for an endpoint not asked for
 * gives no sample at all. Asked endpoints the answer left out come back as `missing`. An answer
 * that gives more than `perEndpoint` samples for an endpoint keeps the first ones, in its order,
 * and says how many it left out (`dropped`): a provider that ignores the count must not fill the
 * dataset (one answer gave 301 samples for 1 endpoint × 1).
 */
export function readAnswer(answer: ProviderAnswer, spec: ApiSpec, asked: readonly Endpoint[], perEndpoint = 1): ReadAnswer {
  const failure = (kind: FailureKind, message: string): ReadAnswer => ({ ok: false, failure: { kind, message } });
  const json = answerJson(answer);
  if (!json.ok) return json;
  const parsed = AnswerSchema.safeParse(json.value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return failure('invalid_sample', `the answer is not {"samples": [{"task", "config"}]}: ${issue ? `${issue.path.join('.') || 'answer'}: ${issue.message}` : 'invalid'}`);
  }
  const askedKeys = new Set(asked.map(endpointKey));
  const samples: SynthesizedSample[] = [];
  const kept = new Map<string, number>();
  const dropped = new Map<string, number>();
  for (const [i, s] of parsed.data.samples.entries()) {
    const endpoint = resolveEndpoint(spec, s.config.url, s.config.method).endpoint;
    const key = endpoint ? endpointKey(endpoint) : `${s.config.method.toUpperCase()} ${s.config.url}`;
    if (!endpoint || !askedKeys.has(key)) {
      return failure('unasked_endpoint', `sample ${i} is for ${endpoint ? key : `${key}, which matches no endpoint of the spec`}, which was not asked for (asked: ${[...askedKeys].join(', ')})`);
    }
    const n = kept.get(key) ?? 0;
    if (n >= perEndpoint) {
      dropped.set(key, (dropped.get(key) ?? 0) + 1);
      continue;
    }
    kept.set(key, n + 1);
    samples.push({ endpoint: key, task: s.task.trim(), config: asAxiosConfig(s.config) });
  }
  const covered = new Set(samples.map((s) => s.endpoint));
  return { ok: true, samples, missing: [...askedKeys].filter((k) => !covered.has(k)), dropped };
}
