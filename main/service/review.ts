import type { EndpointExcerpt, QuickFix } from '../api/review.js';
import type { Finding, JsonValue, RequestConfig, Sample, SampleStep } from '../api/schemas.js';
import { carriedSource, valueAtPointer } from '../api/steps.js';
import { responseSchema } from '../dataset/index.js';
import type { ApiSpec, Endpoint, JsonSchema } from '../openapi/index.js';
import { argumentSource, resolveEndpoint } from '../openapi/index.js';

/** How a schema's type reads in a parameter table: `integer`, `array<string>`, `object`. */
export function typeName(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  const type = schema['type'];
  if (Array.isArray(type)) return type.join(' | ');
  if (type === 'array') return `array<${typeName(schema['items'] as JsonSchema | undefined)}>`;
  if (typeof type === 'string') return typeof schema['format'] === 'string' ? `${type} (${schema['format']})` : type;
  if (Array.isArray(schema['oneOf']) || Array.isArray(schema['anyOf'])) return 'one of several';
  if (schema['properties']) return 'object';
  return 'any';
}

/**
 * A dereferenced schema as plain JSON for display: specs may be recursive (a node holding its
 * children), so a repeated object or one past `depth` is cut to a marker rather than walked.
 */
export function displaySchema(value: unknown, depth = 8, seen: Set<object> = new Set()): JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value !== 'object') return null;
  if (seen.has(value) || depth === 0) return '…';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((v) => displaySchema(v, depth - 1, seen));
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) if (k !== '__proto__') out[k] = displaySchema(v, depth - 1, seen);
    return out;
  } finally {
    seen.delete(value);
  }
}

const enumOf = (schema: JsonSchema | undefined): JsonValue[] | undefined => (Array.isArray(schema?.['enum']) ? (displaySchema(schema['enum']) as JsonValue[]) : undefined);

/** The part of the spec a reviewer reads beside a sample: the endpoint's arguments with types, required marks, enums, descriptions, and its body schema. */
export function endpointExcerpt(spec: ApiSpec, endpoint: Endpoint): EndpointExcerpt {
  const content = endpoint.requestBody?.contents.find((c) => /json/i.test(c.mediaType)) ?? endpoint.requestBody?.contents[0];
  const described = (text: unknown): { description?: string } => (typeof text === 'string' && text.trim() ? { description: text.trim() } : {});
  const withEnum = (schema: JsonSchema | undefined): { enum?: JsonValue[] } => {
    const values = enumOf(schema);
    return values ? { enum: values } : {};
  };
  return {
    method: endpoint.method.toUpperCase(),
    path: endpoint.path,
    ...(endpoint.summary ? { summary: endpoint.summary } : {}),
    ...described(endpoint.description),
    arguments: [
      ...endpoint.parameters.map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required,
        type: typeName(p.schema),
        ...withEnum(p.schema),
        ...described(p.description ?? p.schema?.['description']),
      })),
      ...(content?.properties ?? []).map((p) => ({
        name: p.name,
        in: 'body',
        required: p.required,
        type: typeName(p.schema),
        ...withEnum(p.schema),
        ...described(p.schema['description']),
        ...(p.readOnly ? { readOnly: true } : {}),
      })),
    ],
    // Two schemes can read the same (Google's Oauth2 and Oauth2c, implicit and code flows): listed once.
    auth: [
      ...new Set(
        endpoint.security.map((name) => {
          const scheme = spec.securitySchemes.find((s) => s.name === name);
          if (scheme?.type === 'apiKey') return `${scheme.in} ${scheme.keyName}`;
          if (scheme?.type === 'http') return `Authorization: ${scheme.scheme.toLowerCase() === 'bearer' ? 'Bearer <token>' : scheme.scheme}`;
          return scheme ? `${scheme.type} (Authorization: Bearer <token>)` : name;
        }),
      ),
    ],
    ...(content ? { body: { mediaType: content.mediaType, required: endpoint.requestBody?.required ?? false, schema: displaySchema(content.schema ?? {}) } } : {}),
  };
}

type Location = 'headers' | 'params' | 'data';
const EDITABLE = new Set<string>(['headers', 'params', 'data']);

function withArgument(config: RequestConfig, location: Location, key: string, value: JsonValue | undefined): RequestConfig {
  const current = config[location];
  const args: Record<string, JsonValue> = current && typeof current === 'object' && !Array.isArray(current) ? { ...current } : {};
  if (value === undefined) delete args[key];
  else args[key] = value;
  const next: RequestConfig = { ...config };
  if (Object.keys(args).length === 0 && value === undefined) delete next[location];
  else next[location] = args;
  return next;
}

function argumentSchema(spec: ApiSpec, endpoint: Endpoint, location: Location, key: string): JsonSchema | undefined {
  const source = argumentSource(spec, endpoint, location, key);
  if (source?.kind === 'parameter') return source.parameter.schema;
  if (source?.kind === 'body') return source.property?.schema;
  return undefined;
}

/** `"0"` → 0 where the schema says number or integer, `"true"` → true where it says boolean; nothing when unsure. */
function coerced(schema: JsonSchema | undefined, value: JsonValue | undefined): JsonValue | undefined {
  if (typeof value !== 'string') return undefined;
  const type = schema?.['type'];
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && Number.isFinite(Number(value))) {
    const n = Number(value);
    return type === 'integer' && !Number.isInteger(n) ? undefined : n;
  }
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return undefined;
}

/** The schema of a property of an object schema, looking into `allOf` members too. */
function propertySchema(schema: JsonSchema | undefined, key: string): JsonSchema | undefined {
  const own = (schema?.['properties'] as Record<string, JsonSchema> | undefined)?.[key];
  if (own) return own;
  for (const part of (schema?.['allOf'] as JsonSchema[] | undefined) ?? []) {
    const found = propertySchema(part, key);
    if (found) return found;
  }
  return undefined;
}

/**
 * A nested value with every string leaf the schema types as a number or boolean converted
 * (`{"data": {"contribution_weight": "0"}}` → 0), and the paths changed; undefined when none is.
 * Only leaves the schema reaches are touched; depth is bounded by the value (MAX_NESTING at import).
 */
function coercedLeaves(schema: JsonSchema | undefined, value: JsonValue | undefined, at: string): { value: JsonValue; changes: string[] } | undefined {
  const leaf = coerced(schema, value);
  if (leaf !== undefined) return { value: leaf, changes: [`${at}: ${JSON.stringify(value)} → ${JSON.stringify(leaf)}`] };
  if (value === null || typeof value !== 'object') return undefined;
  const changes: string[] = [];
  if (Array.isArray(value)) {
    const items = schema?.['items'] as JsonSchema | undefined;
    const out = value.map((v, i) => {
      const inner = coercedLeaves(items, v, `${at}[${i}]`);
      if (!inner) return v;
      changes.push(...inner.changes);
      return inner.value;
    });
    return changes.length > 0 ? { value: out, changes } : undefined;
  }
  const out: Record<string, JsonValue> = { ...value };
  for (const [k, v] of Object.entries(value)) {
    const inner = coercedLeaves(propertySchema(schema, k), v, `${at}.${k}`);
    if (!inner) continue;
    out[k] = inner.value;
    changes.push(...inner.changes);
  }
  return changes.length > 0 ? { value: out, changes } : undefined;
}

/**
 * The fixes whose outcome is certain, one per finding at most: a string that the schema wants as
 * a number or boolean is converted, an argument the spec does not define is dropped, a missing
 * required key is added empty (or with its only enum value) for the reviewer to fill.
 */
export function quickFixes(spec: ApiSpec, endpoint: Endpoint, config: RequestConfig, findings: readonly Finding[], step?: number): QuickFix[] {
  const fixes: QuickFix[] = [];
  const labels = new Set<string>();
  // A step's fixes say which step, and fix only its findings.
  const add = (fix: QuickFix): void => {
    const label = step === undefined ? fix.label : `step ${step}: ${fix.label}`;
    if (labels.has(label)) return;
    labels.add(label);
    fixes.push(step === undefined ? fix : { ...fix, label, step });
  };
  findings.forEach((f, finding) => {
    if (f.step !== step) return;
    if (!f.location || !f.key || !EDITABLE.has(f.location)) return;
    const location = f.location as Location;
    const args = config[location];
    const present = args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, JsonValue>) : undefined;
    if (f.rule === 'argument' && present && f.key in present) {
      add({ finding, kind: 'drop', label: `drop ${location}.${f.key} (not in the spec)`, config: withArgument(config, location, f.key, undefined) });
    } else if (f.rule === 'value' && present) {
      // The value itself, or the string leaves inside it (a finding names the top-level key).
      const fixed = coercedLeaves(argumentSchema(spec, endpoint, location, f.key), present[f.key], `${location}.${f.key}`);
      if (fixed) add({ finding, kind: 'coerce', label: fixed.changes.join(', '), config: withArgument(config, location, f.key, fixed.value) });
    } else if (f.rule === 'required' && !(present && f.key in present) && (present || config[location] === undefined)) {
      const only = enumOf(argumentSchema(spec, endpoint, location, f.key));
      const value = only?.length === 1 ? only[0]! : '';
      add({ finding, kind: 'add', label: `add required ${location}.${f.key}`, config: withArgument(config, location, f.key, value) });
    }
  });
  return fixes;
}

export { stepsOf } from '../api/steps.js';

/** The excerpt of the endpoint a step's request resolves to, or null. */
export function stepExcerpt(spec: ApiSpec, config: RequestConfig): EndpointExcerpt | null {
  const endpoint = resolveEndpoint(spec, config.url, config.method.toLowerCase(), config.params ?? {}).endpoint;
  return endpoint ? endpointExcerpt(spec, endpoint) : null;
}

/** A request with `value` at `data.<path>`, `params.<path>` or `headers.<path>` (objects on the way made as needed). */
function withRequestValue(config: RequestConfig, where: string, value: JsonValue): RequestConfig | undefined {
  const [location, ...path] = where.split('.');
  if ((location !== 'data' && location !== 'params' && location !== 'headers') || path.length === 0) return undefined;
  const next = JSON.parse(JSON.stringify(config)) as RequestConfig;
  const root = next[location];
  if (root !== undefined && (root === null || typeof root !== 'object' || Array.isArray(root))) return undefined;
  const top: Record<string, JsonValue> = root ?? {};
  let node = top;
  for (const key of path.slice(0, -1)) {
    const child = Object.hasOwn(node, key) ? node[key] : undefined;
    if (child === undefined) node[key] = {};
    else if (child === null || typeof child !== 'object' || Array.isArray(child)) return undefined;
    node = node[key] as Record<string, JsonValue>;
  }
  // Own properties only: a JSON-parsed object's keys, never its prototype's (the schema refuses such a path too).
  if (path.some((k) => k === '__proto__' || k === 'prototype' || k === 'constructor')) return undefined;
  node[path.at(-1)!] = value;
  return { ...next, [location]: top };
}

/**
 * A multi-step sample's certain fixes, each on its step (scoring.md §7): the request's, as a
 * single sample's; a string in a stubbed response that the operation's response schema types as a
 * number or boolean, converted; a carried value the request sends differently from what the
 * earlier response holds, set to what it holds (the carried pointer is what the task tests).
 */
export function stepQuickFixes(spec: ApiSpec, steps: readonly SampleStep[], findings: readonly Finding[]): QuickFix[] {
  return steps.flatMap((step, i) => {
    const endpoint = resolveEndpoint(spec, step.config.url, step.config.method.toLowerCase(), step.config.params ?? {}).endpoint;
    const fixes = endpoint ? quickFixes(spec, endpoint, step.config, findings, i) : [];
    const response = findings.findIndex((f) => f.step === i && f.rule === 'response');
    const data = response >= 0 ? coercedLeaves(responseSchema(endpoint, step.response.status), step.response.data, 'response.data') : undefined;
    if (data) fixes.push({ finding: response, step: i, kind: 'coerce', label: `step ${i}: ${data.changes.join(', ')}`, config: step.config, response: { ...step.response, data: data.value } });
    for (const [where, pointer] of Object.entries(step.carried ?? {})) {
      const finding = findings.findIndex((f) => f.step === i && f.rule === 'carried' && f.message.startsWith(`step ${i}: carried ${where} ← ${pointer}: the request sends`));
      const { step: from, pointer: at } = carriedSource(pointer);
      const held = from < i ? valueAtPointer(steps[from]!.response as unknown as JsonValue, at) : undefined;
      const config = finding >= 0 && held !== undefined ? withRequestValue(step.config, where, held) : undefined;
      if (config) fixes.push({ finding, step: i, kind: 'carry', label: `step ${i}: set ${where} to ${JSON.stringify(held)} (what step ${from}'s response holds)`, config });
    }
    return fixes;
  });
}

/** Lower-case words and numbers of a task, as a set. */
export function taskTokens(task: string): Set<string> {
  return new Set(task.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / (a.size + b.size - shared);
}

/** Token Jaccard at or above this reads as the same request reworded (tasks are one or two sentences). */
export const NEAR_DUPLICATE_SIMILARITY = 0.6;

/**
 * Samples of the same endpoint whose task shares most of its words with this one's. Token Jaccard
 * rather than a search index: tasks are short, the score is bounded and explainable (the shared
 * words), and one endpoint holds few samples, so comparing all pairs is cheap.
 */
export function nearDuplicates(sample: Pick<Sample, 'id' | 'task'>, sameEndpoint: readonly Pick<Sample, 'id' | 'position' | 'task'>[], threshold = NEAR_DUPLICATE_SIMILARITY): { sampleId: string; position: number; task: string; similarity: number }[] {
  const mine = taskTokens(sample.task);
  return sameEndpoint
    .filter((s) => s.id !== sample.id)
    .map((s) => ({ sampleId: s.id, position: s.position, task: s.task, similarity: Math.round(jaccard(mine, taskTokens(s.task)) * 100) / 100 }))
    .filter((d) => d.similarity >= threshold)
    .sort((a, b) => b.similarity - a.similarity);
}
