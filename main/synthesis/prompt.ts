import { createHash } from 'node:crypto';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { fail, ok, type Result } from '../api/result.js';
import type { Endpoint } from '../openapi/index.js';

/**
 * The instructions, written after the WAPIIBench paper's criteria for a good sample (and the
 * faults its manual review fixed in 58 of 395: underspecified or ambiguous tasks, configs that do
 * not solve them, arguments missing from the task). Mostly API-agnostic, as the paper's were.
 */
export const INSTRUCTIONS = `You write samples for WAPIIBench, a benchmark of code that calls web APIs. A sample is a task a developer could give in plain English and the Axios request config that carries it out.

Rules for every sample:
1. The task is unambiguous and solvable with the specification alone: it names the operation and every value the request needs, so that exactly one request carries it out.
2. The config solves the task: "url" is a server URL of the specification followed by the endpoint's path with each path parameter filled in; "method" is the endpoint's method in lower case.
3. Every argument of the config is reflected in the task, and every detail of the task is reflected in the config: each path parameter, query parameter ("params"), header ("headers") and body property ("data") the config sets is asked for by the task, and nothing the task asks for is missing from the config.
4. Values are realistic (plausible IDs, names, e-mail addresses, dates) and valid against the parameter's schema: its type, format, enum, minimum and maximum. Numbers and booleans are JSON numbers and booleans, never strings.
5. Every required parameter and body property is set; nothing the specification does not define for the endpoint is set.
6. Credentials: where the endpoint needs them, put them where the security scheme says, with a placeholder for the secret, e.g. "Authorization": "Bearer <token>" or an API key "<api_key>". Never a real-looking secret; the task does not mention credentials.
7. Query parameters go in "params", never in the url. A body goes in "data" as a JSON object, with "Content-Type": "application/json" in "headers" unless the specification demands another media type.
8. Samples of the same endpoint differ in the arguments they use and in how the task is phrased.

Answer with JSON only, in this shape: {"samples": [{"task": "...", "config": {"url": "...", "method": "...", "headers": {...}, "params": {...}, "data": {...}}}]}. Leave out "headers", "params" or "data" when the request has none.`;

/** About four characters per token for English and YAML; rounded up so a prompt never overflows. */
export const estimateTokens = (text: string): number => Math.ceil(text.length / 3.5);

export interface SynthesisPrompt {
  readonly system: string;
  readonly user: string;
  /** sha-256 of system + user: the same question gives the same hash. */
  readonly hash: string;
  /** Whether the whole spec was sent, or only the asked endpoints and what they reference. */
  readonly specScope: 'whole' | 'excerpt';
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every local `$ref` under `node`, followed transitively through `doc`. */
function collectRefs(doc: Obj, node: unknown, seen: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) collectRefs(doc, item, seen);
    return;
  }
  if (!isObj(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith('#/') && !seen.has(value)) {
      seen.add(value);
      collectRefs(doc, pointer(doc, value), seen);
    } else collectRefs(doc, value, seen);
  }
}

function pointer(doc: Obj, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) node = isObj(node) ? node[raw.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return node;
}

function setAt(target: Obj, ref: string, value: unknown): void {
  const steps = ref.slice(2).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node = target;
  for (const step of steps.slice(0, -1)) node = isObj(node[step]) ? (node[step] as Obj) : (node[step] = {});
  node[steps[steps.length - 1] ?? ''] = value;
}

/**
 * The spec cut to the asked endpoints: info, servers, security, the endpoints' path items
 * (path-level parameters included) and every component they reference, transitively.
 */
export function specExcerpt(specText: string, endpoints: readonly Pick<Endpoint, 'method' | 'path'>[]): string {
  const doc = parseYaml(specText) as Obj;
  const paths = isObj(doc['paths']) ? doc['paths'] : {};
  const out: Obj = {};
  for (const key of ['openapi', 'info', 'servers', 'security']) if (doc[key] !== undefined) out[key] = doc[key];
  const outPaths: Obj = {};
  for (const e of endpoints) {
    const item = paths[e.path];
    if (!isObj(item)) continue;
    const kept = (outPaths[e.path] as Obj | undefined) ?? Object.fromEntries(Object.entries(item).filter(([k]) => !['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'].includes(k)));
    kept[e.method] = item[e.method];
    outPaths[e.path] = kept;
  }
  out['paths'] = outPaths;
  const refs = new Set<string>();
  collectRefs(doc, outPaths, refs);
  const components = isObj(doc['components']) ? doc['components'] : {};
  if (isObj(components['securitySchemes'])) {
    setAt(out, '#/components/securitySchemes', components['securitySchemes']);
    collectRefs(doc, components['securitySchemes'], refs);
  }
  for (const ref of [...refs].sort()) if (ref.startsWith('#/components/')) setAt(out, ref, pointer(doc, ref));
  return stringifyYaml(out, { aliasDuplicateObjects: false });
}

const endpointLine = (e: Pick<Endpoint, 'method' | 'path' | 'summary'>): string => `- ${e.method.toUpperCase()} ${e.path}${e.summary ? ` (${e.summary})` : ''}`;

/**
 * The prompt for some endpoints of one API: the instructions, the spec (whole when it fits the
 * model's context with room for the answer, else the excerpt of the asked endpoints), the list.
 */
export function synthesisPrompt(input: {
  readonly api: string;
  readonly specText: string;
  readonly endpoints: readonly Pick<Endpoint, 'method' | 'path' | 'summary'>[];
  readonly samplesPerEndpoint: number;
  readonly contextTokens: number;
  readonly maxOutputTokens: number;
}): Result<SynthesisPrompt> {
  const n = input.samplesPerEndpoint;
  const ask = `Write ${n === 1 ? 'one sample' : `${n} samples`} for each of these ${input.endpoints.length} endpoint${input.endpoints.length === 1 ? '' : 's'} of the API "${input.api}", and for no other endpoint:\n${input.endpoints.map(endpointLine).join('\n')}`;
  const budget = input.contextTokens - input.maxOutputTokens - estimateTokens(INSTRUCTIONS) - estimateTokens(ask) - 64;
  let scope: SynthesisPrompt['specScope'] = 'whole';
  let spec = input.specText;
  if (estimateTokens(spec) > budget) {
    scope = 'excerpt';
    spec = specExcerpt(input.specText, input.endpoints);
    if (estimateTokens(spec) > budget) {
      return fail('bad_input', `the spec excerpt for ${input.endpoints.map((e) => `${e.method.toUpperCase()} ${e.path}`).join(', ')} takes about ${estimateTokens(spec)} tokens, more than the ${Math.max(0, budget)} the model's context leaves; use a model with a larger context or fewer endpoints per request`);
    }
  }
  const user = `OpenAPI specification${scope === 'excerpt' ? ' (the part these endpoints use)' : ''}:\n\n${spec.trimEnd()}\n\n${ask}`;
  const hash = createHash('sha256').update(INSTRUCTIONS).update('\0').update(user).digest('hex');
  return ok({ system: INSTRUCTIONS, user, hash, specScope: scope });
}
