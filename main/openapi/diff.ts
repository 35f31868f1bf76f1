import type { ApiSpec, Endpoint, JsonSchema } from './model.js';

/** `GET /warehouses/{warehouse_id}`: an endpoint's identity across versions of a spec. */
export type EndpointKey = string;
export const endpointKey = (e: Pick<Endpoint, 'method' | 'path'>): EndpointKey => `${e.method.toUpperCase()} ${e.path}`;

export type ArgumentChangeKind = 'added' | 'removed' | 'required' | 'optional' | 'type';

/** One change to a parameter (`query limit`, `header X-Request-Id`) or a top-level body property (`body reference`). */
export interface ArgumentChange {
  readonly kind: ArgumentChangeKind;
  /** `query`, `path`, `header`, `cookie` or `body`. */
  readonly location: string;
  readonly name: string;
  /** Type signatures before and after, for `type`. */
  readonly before?: string;
  readonly after?: string;
}

export interface EndpointChange {
  readonly endpoint: EndpointKey;
  readonly changes: readonly ArgumentChange[];
}

export interface SpecDiff {
  readonly added: readonly EndpointKey[];
  readonly removed: readonly EndpointKey[];
  readonly changed: readonly EndpointChange[];
}

/**
 * A schema's type as the diff compares it: type, format, enum, items and properties
 * (recursively, with their required marks); prose, examples, defaults and bounds are left out,
 * so a reworded description is no change and `integer` → `string` or a new enum value is one.
 */
export function typeSignature(schema: JsonSchema | undefined): string {
  if (!schema) return 'any';
  const parts: string[] = [];
  const type = schema['type'];
  parts.push(Array.isArray(type) ? type.join('|') : typeof type === 'string' ? type : schema['properties'] ? 'object' : 'any');
  if (typeof schema['format'] === 'string') parts.push(`format ${schema['format']}`);
  if (Array.isArray(schema['enum'])) parts.push(`enum ${JSON.stringify(schema['enum'])}`);
  const items = schema['items'];
  if (items && typeof items === 'object' && !Array.isArray(items)) parts.push(`of ${typeSignature(items as JsonSchema)}`);
  const properties = schema['properties'];
  if (properties && typeof properties === 'object') {
    const required = new Set(Array.isArray(schema['required']) ? (schema['required'] as string[]) : []);
    const fields = Object.entries(properties as Record<string, JsonSchema>)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, s]) => `${name}${required.has(name) ? '!' : ''}: ${typeSignature(s)}`);
    parts.push(`{${fields.join(', ')}}`);
  }
  return parts.join(' ');
}

interface Argument {
  readonly location: string;
  readonly name: string;
  readonly required: boolean;
  readonly type: string;
}

function argumentsOf(e: Endpoint): Map<string, Argument> {
  const out = new Map<string, Argument>();
  for (const p of e.parameters) {
    const name = p.in === 'header' ? p.name.toLowerCase() : p.name;
    out.set(`${p.in} ${name}`, { location: p.in, name: p.name, required: p.required, type: typeSignature(p.schema) });
  }
  // The first media type, as the checks and the constraints read bodies.
  for (const p of e.requestBody?.contents[0]?.properties ?? []) out.set(`body ${p.name}`, { location: 'body', name: p.name, required: p.required, type: typeSignature(p.schema) });
  return out;
}

function compareEndpoints(before: Endpoint, after: Endpoint): ArgumentChange[] {
  const a = argumentsOf(before);
  const b = argumentsOf(after);
  const changes: ArgumentChange[] = [];
  for (const [key, old] of a) {
    const now = b.get(key);
    if (!now) {
      changes.push({ kind: 'removed', location: old.location, name: old.name });
      continue;
    }
    if (old.required !== now.required) changes.push({ kind: now.required ? 'required' : 'optional', location: now.location, name: now.name });
    if (old.type !== now.type) changes.push({ kind: 'type', location: now.location, name: now.name, before: old.type, after: now.type });
  }
  for (const [key, now] of b) if (!a.has(key)) changes.push({ kind: 'added', location: now.location, name: now.name });
  return changes;
}

/**
 * What changed from one version of an API's spec to the next: endpoints added and removed (by
 * method and path template; a renamed path is one of each), and for endpoints in both, the
 * parameters and top-level body properties added, removed, made required or optional, or
 * given another type. In spec order of the version each comes from.
 */
export function diffSpecs(before: ApiSpec, after: ApiSpec): SpecDiff {
  const old = new Map(before.endpoints.map((e) => [endpointKey(e), e]));
  const now = new Map(after.endpoints.map((e) => [endpointKey(e), e]));
  const changed: EndpointChange[] = [];
  for (const [key, e] of now) {
    const prior = old.get(key);
    if (!prior) continue;
    const changes = compareEndpoints(prior, e);
    if (changes.length > 0) changed.push({ endpoint: key, changes });
  }
  return {
    added: [...now.keys()].filter((k) => !old.has(k)),
    removed: [...old.keys()].filter((k) => !now.has(k)),
    changed,
  };
}

/** One line per change: `query cursor removed`, `body capacity_pallets type integer → string`. */
export function describeChange(c: ArgumentChange): string {
  const what = `${c.location} ${c.name}`;
  if (c.kind === 'type') return `${what}: type ${c.before} → ${c.after}`;
  if (c.kind === 'required') return `${what}: now required`;
  if (c.kind === 'optional') return `${what}: now optional`;
  return `${what}: ${c.kind}`;
}
