import { followLocalRef, mergeAllOf, specDocument, type ApiSpec, type Endpoint, type JsonSchema } from '../openapi/index.js';

/**
 * Chains for multi-step samples (scoring.md §7): pairs of operations where a field of one
 * operation's response is a parameter of another (Asana's `GET /tasks` `/data/*\/gid` →
 * `{task_gid}`, Slack's `conversations.list` `/channels/*\/id` → `chat.postMessage`'s `channel`),
 * found from the spec alone by matching names.
 *
 * Both sides are read as a resource and an identifier kind: a response field `id`, `gid` or
 * `uuid` is the identifier of the resource it sits in (the nearest property name above it that is
 * not a wrapper such as `data` or `items`, singular; else the producer path's last literal
 * segment: `/tasks` → task); a field `<resource>_id` names its resource itself; a field the spec
 * titles an ID (Slack's `channel`: "Channel-like conversation ID") or a Slack `ts` is its own
 * resource. A parameter `{id}` is the identifier of the path segment before it, `<resource>_gid`
 * of its resource, any other name (`channel`, `workspace`) the resource it is named after. A
 * chain is a producer field and a consumer parameter with the same resource and no conflicting
 * kind (`gid` never feeds `<x>_id`), of compatible scalar types and patterns.
 */

/** Where the consumer takes the value, and its name there as a step's `carried` names it. */
export interface ChainParameter {
  readonly in: 'path' | 'query' | 'body';
  /** `task_gid`; a body property nested in a wrapper object is named by its path (`data.workspace`). */
  readonly name: string;
  /** The key of the step's `carried`: `path_params.task_gid`, `params.project`, `data.channel`, `data.data.workspace`. */
  readonly carried: string;
}

/** How the two sides were matched (strongest first). */
export type ChainRule = 'resource' | 'path-resource' | 'exact' | 'resource-id';

export interface Chain {
  /** `GET /conversations.list → POST /chat.postMessage (data.channel ← /channels/*\/id)`: unique per chain, what a job stores it by. */
  readonly key: string;
  readonly producer: Endpoint;
  /** The producer's success status whose response schema holds the field (`200`, `201`). */
  readonly status: string;
  /** A JSON pointer into the producer's response body, `*` for any array index: `/data/*\/gid`, `/channels/*\/id`. */
  readonly field: string;
  readonly consumer: Endpoint;
  readonly parameter: ChainParameter;
  readonly rule: ChainRule;
  /** 0..1: the rule's strength, with small bonuses for a read (GET) producer, a lookup in a list and a producer that needs no path parameter. */
  readonly score: number;
}

export interface ChainOptions {
  /** At most this many chains, best first (default 1000). */
  readonly limit?: number;
  /** At most this many producers per consumer parameter, best first (default 3). */
  readonly perParameter?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const endpointKey = (e: Pick<Endpoint, 'method' | 'path'>): string => `${e.method.toUpperCase()} ${e.path}`;

/** `channelId`, `Channel-ID` → `channel_id`. */
export const snake = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/** The singular of an English plural, on the last word of a snake name: `custom_fields` → `custom_field`, `entries` → `entry`. */
export function singular(name: string): string {
  const at = name.lastIndexOf('_');
  const head = name.slice(0, at + 1);
  const word = name.slice(at + 1);
  if (word.length <= 3) return name;
  if (word.endsWith('ies')) return `${head}${word.slice(0, -3)}y`;
  if (/(ss|us|x|ch|sh)es$/.test(word)) return `${head}${word.slice(0, -2)}`;
  if (word.endsWith('s') && !/(ss|us|is)$/.test(word)) return `${head}${word.slice(0, -1)}`;
  return name;
}

/** Property names that hold a resource rather than name one. */
const WRAPPERS = new Set(['data', 'items', 'results', 'result', 'records', 'values', 'objects', 'response', 'body', 'payload', 'list', 'elements', 'nodes', 'edges', 'node', 'content', 'page']);
const KINDS = new Set(['id', 'gid', 'uuid']);
/** Deepest pointer into a response walked for fields. */
const MAX_DEPTH = 6;

/**
 * A schema as the walk needs it: `$ref`s followed, `allOf` merged, the properties of `anyOf` /
 * `oneOf` branches united. An untyped schema that has `items` and no properties (Slack's
 * `objs_conversation` writes its object variants there) is read as those items, not as an array:
 * the spec says nothing of an array there.
 */
export interface SchemaView {
  readonly types: ReadonlySet<string>;
  readonly properties: ReadonlyMap<string, unknown>;
  readonly required: ReadonlySet<string>;
  /** The element schema of an array. */
  readonly items: unknown;
  readonly schema: Obj;
}

export function schemaView(spec: ApiSpec, schema: unknown, depth = 0): SchemaView {
  const doc = specDocument(spec);
  const resolve = (n: unknown): unknown => followLocalRef(doc, n);
  let s = resolve(schema);
  if (!isObj(s)) return { types: new Set(), properties: new Map(), required: new Set(), items: undefined, schema: {} };
  if (Array.isArray(s['allOf'])) s = mergeAllOf(s as JsonSchema, 0, resolve) as Obj;
  const o = s as Obj;
  const declared = o['type'];
  const types = new Set<string>(typeof declared === 'string' ? [declared] : Array.isArray(declared) ? declared.filter((t): t is string => typeof t === 'string') : []);
  const properties = new Map<string, unknown>(isObj(o['properties']) ? Object.entries(o['properties']) : []);
  const required = new Set<string>(Array.isArray(o['required']) ? o['required'].filter((r): r is string => typeof r === 'string') : []);
  let items = o['items'];
  if (depth < 4) {
    for (const branch of [...(Array.isArray(o['anyOf']) ? o['anyOf'] : []), ...(Array.isArray(o['oneOf']) ? o['oneOf'] : [])]) {
      const inner = schemaView(spec, branch, depth + 1);
      for (const [k, v] of inner.properties) if (!properties.has(k)) properties.set(k, v);
      for (const t of inner.types) if (t !== 'null') types.add(t);
      items ??= inner.items;
    }
    if (types.size === 0 && properties.size === 0 && items !== undefined && !types.has('array')) {
      const inner = schemaView(spec, items, depth + 1);
      return inner;
    }
  }
  if (types.size === 0 && properties.size > 0) types.add('object');
  return { types, properties, required, items: types.has('array') ? items : undefined, schema: o };
}

const SCALARS = ['string', 'integer', 'number'];
const isScalar = (v: SchemaView): boolean => v.properties.size === 0 && !v.types.has('array') && !v.types.has('object') && !v.types.has('boolean') && (v.types.size === 0 || [...v.types].some((t) => SCALARS.includes(t)));

/** A response field that may identify something, with the resource it identifies. */
interface Field {
  readonly pointer: readonly string[];
  readonly name: string;
  readonly resource: string;
  readonly kind: string | undefined;
  /** Whether the resource came from a property name (the field's own, or the one it sits in), not the operation's path. */
  readonly named: boolean;
  readonly view: SchemaView;
}

/** The last literal segment of a path (before `{param}` when given); Slack's `conversations.list` reads `conversations`. */
function pathResource(path: string, before?: string): string | undefined {
  const segments = path.split('?')[0]!.split('/').filter(Boolean);
  const end = before ? segments.indexOf(`{${before}}`) : segments.length;
  for (let i = end - 1; i >= 0; i--) {
    const s = segments[i]!;
    if (s.startsWith('{')) continue;
    const word = snake(s.split('.')[0]!);
    return word ? singular(word) : undefined;
  }
  return undefined;
}

/**
 * The resource a field the spec calls an ID identifies: its own name where the title or
 * description names it (Slack's `channel`: "Channel-like conversation ID"), else the word before
 * "ID" (`created_by`: "User ID" → user); undefined when neither says ID.
 */
function idTitle(v: SchemaView, name: string): string | undefined {
  for (const text of [v.schema['title'], v.schema['description']]) {
    if (typeof text !== 'string' || !/\bID\b/.test(text)) continue;
    if (`_${snake(text)}_`.includes(`_${name}_`)) return singular(name);
    const noun = /([A-Za-z]+)\s+ID\b/.exec(text)?.[1];
    if (noun) return singular(snake(noun));
  }
  return undefined;
}

/** A name read as a resource and an identifier kind: `task_gid` → task, gid; `channel` → channel; `id` → (context), id. */
function nameParts(name: string): { readonly base: string | undefined; readonly kind: string | undefined } {
  const n = snake(name);
  if (KINDS.has(n)) return { base: undefined, kind: n };
  const m = /^(.+)_(id|gid|uuid)$/.exec(n);
  if (m) return { base: singular(m[1]!), kind: m[2] };
  return { base: singular(n), kind: undefined };
}

function fieldsOf(spec: ApiSpec, producer: Endpoint, schema: unknown): Field[] {
  const out: Field[] = [];
  const onPath = new Set<unknown>();
  const walk = (node: unknown, pointer: readonly string[]): void => {
    if (pointer.length > MAX_DEPTH) return;
    const view = schemaView(spec, node);
    if (onPath.has(view.schema)) return;
    onPath.add(view.schema);
    if (view.items !== undefined) walk(view.items, [...pointer, '*']);
    for (const [name, sub] of view.properties) {
      const inner = schemaView(spec, sub);
      if (inner.properties.size > 0 || inner.items !== undefined) {
        walk(sub, [...pointer, name]);
        continue;
      }
      if (!isScalar(inner)) continue;
      const parts = nameParts(name);
      const n = snake(name);
      if (parts.kind && !parts.base) {
        const above = [...pointer].reverse().find((p) => p !== '*' && !WRAPPERS.has(snake(p)));
        const resource = above ? singular(snake(above)) : pathResource(producer.path);
        if (resource) out.push({ pointer: [...pointer, name], name, resource, kind: parts.kind, named: above !== undefined, view: inner });
      } else if (parts.kind && parts.base) {
        out.push({ pointer: [...pointer, name], name, resource: parts.base, kind: parts.kind, named: true, view: inner });
      } else if (n === 'ts' || n.endsWith('_ts')) {
        out.push({ pointer: [...pointer, name], name, resource: n, kind: undefined, named: true, view: inner });
      } else {
        const titled = idTitle(inner, n);
        if (titled) out.push({ pointer: [...pointer, name], name, resource: titled, kind: undefined, named: true, view: inner });
      }
    }
    onPath.delete(view.schema);
  };
  walk(schema, []);
  return out;
}

/** A consumer's parameter that may take an identifier, with the resource it names. */
interface Slot {
  readonly endpoint: Endpoint;
  readonly parameter: ChainParameter;
  readonly resource: string;
  readonly kind: string | undefined;
  /** Its name is `id` / `gid`: the resource is the path segment before it. */
  readonly fromPath: boolean;
  readonly required: boolean;
  readonly view: SchemaView;
}

function slotsOf(spec: ApiSpec, endpoint: Endpoint, queryKeys: ReadonlySet<string>): Slot[] {
  const out: Slot[] = [];
  const add = (parameter: ChainParameter, schema: unknown, required: boolean, lastName: string): void => {
    const view = schemaView(spec, schema);
    if (!isScalar(view)) return;
    const parts = nameParts(lastName);
    // A plain `id` names the path segment before it only in a path; in a query or a body (Slack's
    // `files.comments.delete`: a comment's) the spec does not say what it identifies.
    if (!parts.base && parameter.in !== 'path') return;
    // A plural name (`channels`, `members`) takes a list, not the one value a step carries.
    if (!parts.kind && parts.base !== snake(lastName)) return;
    const fromPath = parameter.in === 'path' && !parts.base;
    const resource = parts.base ?? pathResource(endpoint.path, parameter.in === 'path' ? lastName : undefined);
    if (!resource) return;
    out.push({ endpoint, parameter, resource, kind: parts.kind, fromPath, required, view });
  };
  for (const p of endpoint.parameters) {
    if (p.in === 'path') add({ in: 'path', name: p.name, carried: `path_params.${p.name}` }, p.schema, true, p.name);
    else if (p.in === 'query' && !queryKeys.has(p.name)) add({ in: 'query', name: p.name, carried: `params.${p.name}` }, p.schema, p.required, p.name);
  }
  const seen = new Set<string>();
  for (const content of endpoint.requestBody?.contents ?? []) {
    for (const prop of content.properties) {
      if (prop.readOnly) continue;
      const view = schemaView(spec, prop.schema);
      if (view.properties.size > 0) {
        // One wrapper object deep (Asana's `{"data": {...}}`).
        for (const [name, sub] of view.properties) {
          const key = `${prop.name}.${name}`;
          if (seen.has(key) || schemaView(spec, sub).schema['readOnly'] === true) continue;
          seen.add(key);
          add({ in: 'body', name: key, carried: `data.${key}` }, sub, prop.required && view.required.has(name), name);
        }
      } else if (!seen.has(prop.name)) {
        seen.add(prop.name);
        add({ in: 'body', name: prop.name, carried: `data.${prop.name}` }, prop.schema, prop.required, prop.name);
      }
    }
  }
  return out;
}

/** Whether two scalar schemas may hold the same value: types agree where both say one (a path segment is text, any scalar fits), patterns where both have one. */
function compatible(field: SchemaView, slot: Slot): boolean {
  const a = [...field.types].filter((t) => SCALARS.includes(t));
  const b = [...slot.view.types].filter((t) => SCALARS.includes(t));
  const number = (ts: string[]): boolean => ts.some((t) => t === 'integer' || t === 'number');
  if (slot.parameter.in !== 'path' && a.length > 0 && b.length > 0 && !a.some((t) => b.includes(t)) && !(number(a) && number(b))) return false;
  const pa = field.schema['pattern'];
  const pb = slot.view.schema['pattern'];
  return !(typeof pa === 'string' && typeof pb === 'string' && pa !== pb);
}

/** `/data/*\/gid` from its segments, each escaped as RFC 6901 says. */
export const pointerOf = (segments: readonly string[]): string => segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

const successStatuses = (e: Endpoint): string[] => Object.keys(e.responses ?? {}).filter((s) => /^2(\d\d|XX)$/i.test(s)).sort();

function ruleOf(field: Field, slot: Slot): ChainRule {
  if (slot.fromPath) return 'path-resource';
  if (snake(field.name) === snake(slot.parameter.name.split('.').pop()!)) return 'exact';
  if (field.kind && !nameParts(field.name).base) return 'resource';
  return 'resource-id';
}
const RULE_SCORE: Record<ChainRule, number> = { resource: 0.85, 'path-resource': 0.8, exact: 0.75, 'resource-id': 0.65 };

/**
 * The candidate chains of a spec, best first: each producer field that matches a consumer
 * parameter (see the module's comment), the best field per producer, consumer and parameter, at
 * most `perParameter` producers per consumer parameter and `limit` in all. Left out: a producer
 * that is the consumer, a DELETE producer, and a producer that already takes the value it would
 * look up (`GET /tasks/{task_gid}` does not feed `{task_gid}`).
 */
export function findChains(spec: ApiSpec, options: ChainOptions = {}): Chain[] {
  const limit = options.limit ?? 1000;
  const perParameter = options.perParameter ?? 3;
  const queryKeys = new Set(spec.securitySchemes.flatMap((s) => (s.type === 'apiKey' && s.in === 'query' ? [s.keyName] : [])));
  const slotsByResource = new Map<string, Slot[]>();
  const slotsByEndpoint = new Map<Endpoint, Slot[]>();
  for (const e of spec.endpoints) {
    const slots = slotsOf(spec, e, queryKeys);
    slotsByEndpoint.set(e, slots);
    for (const s of slots) slotsByResource.set(s.resource, [...(slotsByResource.get(s.resource) ?? []), s]);
  }
  const best = new Map<string, Chain>();
  for (const producer of spec.endpoints) {
    if (producer.method === 'delete') continue;
    const status = successStatuses(producer)[0];
    if (!status) continue;
    const own = slotsByEndpoint.get(producer) ?? [];
    for (const field of fieldsOf(spec, producer, producer.responses?.[status])) {
      // The producer takes this value already: it looks nothing up.
      if (own.some((s) => s.resource === field.resource && (!s.kind || !field.kind || s.kind === field.kind))) continue;
      for (const slot of slotsByResource.get(field.resource) ?? []) {
        if (slot.endpoint === producer) continue;
        if (field.kind && slot.kind && field.kind !== slot.kind) continue;
        // A parameter named only after its resource (`channel`) takes an identifier, not any text the spec does not call one.
        if (!compatible(field.view, slot)) continue;
        const rule = ruleOf(field, slot);
        const inList = field.pointer.includes('*');
        const score =
          RULE_SCORE[rule] +
          (producer.method === 'get' ? 0.06 : 0) +
          (inList ? 0.03 : 0) +
          (producer.parameters.some((p) => p.in === 'path') ? 0 : 0.03) +
          (slot.required ? 0.02 : 0) +
          (['post', 'put', 'patch'].includes(slot.endpoint.method) ? 0.01 : 0) -
          0.01 * Math.max(0, field.pointer.length - 3);
        const fieldPointer = pointerOf(field.pointer);
        const id = `${endpointKey(producer)} → ${endpointKey(slot.endpoint)} (${slot.parameter.carried})`;
        const chain: Chain = {
          key: `${endpointKey(producer)} → ${endpointKey(slot.endpoint)} (${slot.parameter.carried} ← ${fieldPointer})`,
          producer,
          status,
          field: fieldPointer,
          consumer: slot.endpoint,
          parameter: slot.parameter,
          rule,
          score: Math.round(Math.min(1, score) * 1000) / 1000,
        };
        const held = best.get(id);
        if (!held || chain.score > held.score || (chain.score === held.score && chain.field.length < held.field.length)) best.set(id, chain);
      }
    }
  }
  const ranked = [...best.values()].sort((a, b) => b.score - a.score || a.producer.path.length - b.producer.path.length || a.key.localeCompare(b.key));
  const perSlot = new Map<string, number>();
  const out: Chain[] = [];
  for (const c of ranked) {
    const slot = `${endpointKey(c.consumer)} ${c.parameter.carried}`;
    const n = perSlot.get(slot) ?? 0;
    if (n >= perParameter) continue;
    perSlot.set(slot, n + 1);
    out.push(c);
    if (out.length >= limit) break;
  }
  return out;
}

/**
 * `n` chains to draft, best first but varied: first those whose producer and consumer no chosen
 * chain has yet, then the rest in their order.
 */
export function pickChains(chains: readonly Chain[], n: number): Chain[] {
  const chosen: Chain[] = [];
  const used = new Set<Endpoint>();
  for (const c of chains) {
    if (chosen.length >= n) break;
    if (used.has(c.producer) || used.has(c.consumer)) continue;
    chosen.push(c);
    used.add(c.producer);
    used.add(c.consumer);
  }
  for (const c of chains) {
    if (chosen.length >= n) break;
    if (!chosen.includes(c)) chosen.push(c);
  }
  const order = new Map(chains.map((c, i) => [c, i]));
  return chosen.sort((a, b) => order.get(a)! - order.get(b)!);
}
