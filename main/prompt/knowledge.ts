import type { RequestConfig } from '../api/schemas.js';
import { fail, ok, type Result } from '../api/result.js';
import type { ApiSpec, Endpoint, JsonSchema } from '../openapi/index.js';

/**
 * API knowledge put in a prompt (NovelAPIBench's components, for web APIs): the expected
 * endpoint's method and URL template, its parameters, its documentation, a ground-truth call of
 * another sample on it, or the top k endpoints a retriever finds for the task (API-Bank's
 * Retrieve+Call, without saying which one is right).
 */
export const KNOWLEDGE_PARTS = ['endpoint', 'params', 'docs', 'example'] as const;
export type KnowledgePart = (typeof KNOWLEDGE_PARTS)[number];

export interface KnowledgeCondition {
  /** As written on the command line and recorded in the run: `none`, `endpoint+params`, `retrieved:5`, ... */
  readonly name: string;
  readonly parts: readonly KnowledgePart[];
  /** `retrieved:k`: how many retrieved endpoints to show. */
  readonly retrieved?: number;
}

export const NO_KNOWLEDGE: KnowledgeCondition = { name: 'none', parts: [] };

/** `none`, `full` (endpoint+params+docs+example), `retrieved:k`, or parts joined by `+` (`endpoint+params`). */
export function parseKnowledge(text: string): Result<KnowledgeCondition> {
  const name = text.trim();
  if (name === 'none') return ok(NO_KNOWLEDGE);
  const parts = new Set<KnowledgePart>();
  let retrieved: number | undefined;
  for (const token of name.split('+').map((t) => t.trim())) {
    const k = /^retrieved:(\d+)$/.exec(token);
    if (token === 'full') KNOWLEDGE_PARTS.forEach((p) => parts.add(p));
    else if ((KNOWLEDGE_PARTS as readonly string[]).includes(token)) parts.add(token as KnowledgePart);
    else if (k && Number(k[1]) >= 1) retrieved = Number(k[1]);
    else return fail('bad_input', `unknown knowledge condition "${token}" in "${name}": use none, endpoint, params, docs, example, full or retrieved:<k>, joined by + (endpoint+params)`);
  }
  return ok({ name, parts: KNOWLEDGE_PARTS.filter((p) => parts.has(p)), ...(retrieved !== undefined ? { retrieved } : {}) });
}

/** `none,endpoint,full` → one condition each, in order, without repeats. */
export function parseKnowledgeList(text: string): Result<KnowledgeCondition[]> {
  const out: KnowledgeCondition[] = [];
  for (const item of text.split(',').filter((t) => t.trim() !== '')) {
    const parsed = parseKnowledge(item);
    if (!parsed.ok) return parsed;
    if (!out.some((c) => c.name === parsed.value.name)) out.push(parsed.value);
  }
  return out.length > 0 ? ok(out) : fail('bad_input', '--knowledge names no condition');
}

/** What the spec and dataset say about one sample, gathered by the runner (prompt does not import retrieval). */
export interface KnowledgeFacts {
  readonly spec: ApiSpec;
  /** The expected endpoint; undefined when the sample's URL names none (then `endpoint`, `params`, `docs` say nothing). */
  readonly endpoint: Endpoint | undefined;
  /** Another sample on the same endpoint (never the sample itself, never one with the same request). */
  readonly example: { readonly task: string; readonly config: RequestConfig } | undefined;
  /** Endpoints retrieved for the task, best first (at least `retrieved` of them when the spec has as many). */
  readonly retrieved: readonly Endpoint[];
}

function typeOf(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  const type = schema['type'];
  if (Array.isArray(type)) return type.join(' | ');
  if (typeof type === 'string') return type === 'array' ? `array of ${typeOf(schema['items'] as JsonSchema | undefined)}` : type;
  if (Array.isArray(schema['enum'])) return 'enum';
  return schema['properties'] ? 'object' : 'any';
}

function describeSchema(schema: JsonSchema | undefined, required: boolean): string {
  const notes = [typeOf(schema), required ? 'required' : 'optional'];
  const values = schema?.['enum'];
  if (Array.isArray(values)) notes.push(`one of ${values.map((v) => JSON.stringify(v)).join(', ')}`);
  const min = schema?.['minimum'];
  const max = schema?.['maximum'];
  if (typeof min === 'number' || typeof max === 'number') notes.push(`${typeof min === 'number' ? min : ''}..${typeof max === 'number' ? max : ''}`);
  const format = schema?.['format'];
  if (typeof format === 'string') notes.push(format);
  return notes.join(', ');
}

export const endpointLine = (spec: ApiSpec, e: Endpoint): string => `${e.method.toUpperCase()} ${spec.servers[0] ?? ''}${e.path}`;

function parameterLines(spec: ApiSpec, e: Endpoint): string[] {
  const lines = e.parameters.map((p) => `- ${p.in} ${p.name}: ${describeSchema(p.schema, p.required)}`);
  for (const content of e.requestBody?.contents.slice(0, 1) ?? []) {
    for (const p of content.properties) if (!p.readOnly) lines.push(`- body ${p.name}: ${describeSchema(p.schema, p.required)}`);
  }
  const auth = e.security
    .map((name) => spec.securitySchemes.find((s) => s.name === name))
    .map((s) => (!s ? undefined : s.type === 'apiKey' ? `${s.in} ${s.keyName}: <api-key>` : s.type === 'http' ? `header Authorization: ${s.scheme === 'bearer' ? 'Bearer <token>' : s.scheme}` : 'header Authorization: Bearer <token>'))
    .filter((s): s is string => s !== undefined);
  if (auth.length > 0) lines.push(`- authentication, one of: ${[...new Set(auth)].join('; ')}`);
  return lines.length > 0 ? lines : ['- (none)'];
}

function docLines(e: Endpoint): string[] {
  const lines: string[] = [];
  if (e.summary) lines.push(`Summary: ${e.summary}`);
  if (e.description && e.description !== e.summary) lines.push(`Description: ${e.description.replace(/\s+/g, ' ').trim()}`);
  return lines;
}

/**
 * Another sample's ground-truth request, as the request it sends (method and URL, then each
 * location as JSON), not as an `axios.` call: a constrained run feeds the whole prompt to the
 * constraint matcher, which reads any `axios.` in it as an invocation that must be legal and
 * complete, and a sample's ground truth need not be (a flagged sample's) nor fit in one comment line.
 */
export function exampleRequestLines(config: RequestConfig): string[] {
  // Axios sends `Accept` on its own (as the oracle program leaves it out).
  const headers = Object.fromEntries(Object.entries(config.headers ?? {}).filter(([k]) => k.toLowerCase() !== 'accept'));
  const lines = [`${config.method.toUpperCase()} ${config.url}`];
  if (config.params && Object.keys(config.params).length > 0) lines.push(`query: ${JSON.stringify(config.params)}`);
  if (Object.keys(headers).length > 0) lines.push(`headers: ${JSON.stringify(headers)}`);
  if (config.data !== undefined) lines.push(`body: ${JSON.stringify(config.data)}`);
  return lines;
}

/**
 * The knowledge a condition adds to a sample's prompt, as plain lines (the template decides how
 * they appear: comments in a completion prompt, text in a chat message); empty for `none`.
 */
export function knowledgeLines(condition: KnowledgeCondition, facts: KnowledgeFacts): string[] {
  const lines: string[] = [];
  const e = facts.endpoint;
  const has = (p: KnowledgePart): boolean => condition.parts.includes(p);
  if (e && has('endpoint')) lines.push(`Endpoint: ${endpointLine(facts.spec, e)}`);
  if (e && has('params')) lines.push('Parameters:', ...parameterLines(facts.spec, e));
  if (e && has('docs')) lines.push(...docLines(e));
  if (has('example') && facts.example) {
    lines.push(`Example, for another task ("${facts.example.task.replace(/\s+/g, ' ')}"):`, ...exampleRequestLines(facts.example.config));
  }
  if (condition.retrieved !== undefined) {
    lines.push('Endpoints that may be relevant:');
    for (const r of facts.retrieved.slice(0, condition.retrieved)) {
      lines.push(`* ${endpointLine(facts.spec, r)}`, ...docLines(r).map((l) => `  ${l}`), '  Parameters:', ...parameterLines(facts.spec, r).map((l) => `  ${l}`));
    }
  }
  return lines;
}
