import { escapeRegExp, followLocalRef, specDocument } from './build.js';
import type { ApiSpec, ArgumentLocation, BodyProperty, Endpoint, HttpMethod, Parameter, PathTemplate, SecurityScheme } from './model.js';

export interface PathCandidate {
  readonly template: PathTemplate;
  /** Values of the template's `{name}` segments, URL-decoded. */
  readonly pathParams: Readonly<Record<string, string>>;
  /**
   * Values of the `{name}` variables of the server the URL was matched on (Telegram's
   * `https://api.telegram.org/bot{token}`), URL-decoded: arguments like path parameters.
   */
  readonly serverParams: Readonly<Record<string, string>>;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const serverPatterns = new Map<string, { pattern: RegExp; names: string[] }>();
/** A server URL template as a prefix pattern: each `{variable}` takes one or more characters of a segment. */
/**
 * A pattern every URL of the endpoint this request calls matches (without its query): its server
 * as the spec writes it (variables free) followed by its path template; undefined where the spec
 * has no path for the URL.
 */
export function endpointUrlPattern(spec: ApiSpec, url: string, params?: Readonly<Record<string, unknown>>): RegExp | undefined {
  const split = splitServer(spec, url);
  const template = pathCandidates(spec, url, params ?? {})[0]?.template;
  if (!split || !template) return undefined;
  return new RegExp(`${serverPattern(split.server).pattern.source.replace(/\(\?=\/\|\$\)$/, '')}${template.pattern.source.replace(/^\^/, '')}`);
}

function serverPattern(server: string): { pattern: RegExp; names: string[] } {
  let compiled = serverPatterns.get(server);
  if (!compiled) {
    const names: string[] = [];
    const source = server
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const variable = /^\{([^}]+)\}$/.exec(part);
        if (!variable) return escapeRegExp(part);
        names.push(variable[1]!);
        return '([^/?#]+)';
      })
      .join('');
    compiled = { pattern: new RegExp(`^${source}(?=/|$)`), names };
    if (serverPatterns.size > 10_000) serverPatterns.clear();
    serverPatterns.set(server, compiled);
  }
  return compiled;
}

/** The URL on `server`: the part after it (query string dropped) and the values of its variables; undefined when the URL is not on that server. */
function onServer(server: string, withoutQuery: string): { path: string; variables: Record<string, string> } | undefined {
  if (!server.includes('{')) {
    if (withoutQuery === server) return { path: '/', variables: {} };
    return withoutQuery.startsWith(server + '/') ? { path: withoutQuery.slice(server.length), variables: {} } : undefined;
  }
  const { pattern, names } = serverPattern(server);
  const match = pattern.exec(withoutQuery);
  if (!match) return undefined;
  const variables: Record<string, string> = {};
  names.forEach((name, i) => {
    // A variable written twice in one server URL holds one value: the first is the one compared.
    // Defined, not assigned: a variable may be named `__proto__`.
    if (!Object.hasOwn(variables, name)) Object.defineProperty(variables, name, { value: decode(match[i + 1] ?? ''), enumerable: true, writable: true, configurable: true });
  });
  return { path: withoutQuery.slice(match[0].length) || '/', variables };
}

const afterServer = (server: string, withoutQuery: string): string | undefined => onServer(server, withoutQuery)?.path;

const stripQuery = (url: string): string => url.split(/[?#]/, 1)[0] ?? '';

/** Splits a URL into the spec server it starts with and the path after it (query string dropped). */
export function splitServer(spec: ApiSpec, url: string): { server: string; path: string } | undefined {
  const withoutQuery = stripQuery(url);
  for (const server of spec.servers) {
    const path = afterServer(server, withoutQuery);
    if (path !== undefined) return { server, path };
  }
  return undefined;
}

/** The query arguments a URL carries in its own query string, plus `params` (which win, as Axios sends both). */
function queryOf(url: string, params: Readonly<Record<string, unknown>> | undefined): Map<string, string> {
  const query = new Map<string, string>();
  const at = url.indexOf('?');
  if (at !== -1) for (const [k, v] of new URLSearchParams(url.slice(at + 1).split('#', 1)[0])) if (!query.has(k)) query.set(k, v);
  for (const [k, v] of Object.entries(params ?? {})) query.set(k, typeof v === 'string' ? v : JSON.stringify(v));
  return query;
}

/**
 * Every path template matching the URL without its server prefix, ordered by fewest parameters,
 * then most arguments fixed by the key's query part, then longest template (scoring.md §4:
 * `/values/{range}:clear` beats `/values/{range}`). A key with a query part (Etherscan's
 * `/?module=account&action=balance`) matches only when the request sends those arguments, in the
 * URL or in `params`; without `params` (undefined) only the URL's own query string is looked at.
 */
export function pathCandidates(spec: ApiSpec, url: string, params?: Readonly<Record<string, unknown>>): PathCandidate[] {
  const withoutQuery = stripQuery(url);
  const query = queryOf(url, params);
  const { byServer, position } = pathIndex(spec);
  const found = new Map<PathTemplate, PathCandidate>();
  for (const [server, buckets] of byServer) {
    const on = onServer(server, withoutQuery);
    if (on === undefined) continue;
    const { path, variables } = on;
    for (const template of [...(buckets.byFirst.get(firstSegment(path)) ?? []), ...buckets.open]) {
      if (found.has(template) || !Object.entries(template.query).every(([k, v]) => query.get(k) === v)) continue;
      const match = template.pattern.exec(path);
      if (!match) continue;
      const pathParams: Record<string, string> = {};
      template.parameterNames.forEach((name, i) => (pathParams[name] = decode(match[i + 1] ?? '')));
      found.set(template, { template, pathParams, serverParams: variables });
    }
  }
  const fixed = (c: PathCandidate): number => Object.keys(c.template.query).length;
  return [...found.values()].sort(
    (a, b) =>
      a.template.parameterNames.length - b.template.parameterNames.length ||
      fixed(b) - fixed(a) ||
      b.template.path.length - a.template.path.length ||
      position.get(a.template)! - position.get(b.template)!,
  );
}

/** A path's first segment (`/teams/1` -> `teams`; `/` -> ``), where templates are told apart cheaply. */
const firstSegment = (path: string): string => path.split('/', 2)[1] ?? '';

interface PathIndex {
  /** Per server, the templates served there by their first literal segment; `open` ones start with a parameter. */
  readonly byServer: ReadonlyMap<string, { readonly byFirst: Map<string, PathTemplate[]>; readonly open: PathTemplate[] }>;
  /** Each template's place in the spec, for a stable order among equals. */
  readonly position: ReadonlyMap<PathTemplate, number>;
}
const pathIndexes = new WeakMap<ApiSpec, PathIndex>();
/**
 * Templates by server and first segment, built once per spec: matching a URL against every
 * template made checks and coverage quadratic in the number of paths (GitHub's 1,000, a
 * generated 3,480: minutes).
 */
function pathIndex(spec: ApiSpec): PathIndex {
  let index = pathIndexes.get(spec);
  if (index) return index;
  const byServer = new Map<string, { byFirst: Map<string, PathTemplate[]>; open: PathTemplate[] }>();
  const position = new Map<PathTemplate, number>();
  spec.paths.forEach((template, i) => {
    position.set(template, i);
    const first = firstSegment(template.pathPart);
    for (const server of template.servers) {
      let buckets = byServer.get(server);
      if (!buckets) byServer.set(server, (buckets = { byFirst: new Map(), open: [] }));
      if (first.includes('{')) buckets.open.push(template);
      else {
        const list = buckets.byFirst.get(first);
        if (list) list.push(template);
        else buckets.byFirst.set(first, [template]);
      }
    }
  });
  index = { byServer, position };
  pathIndexes.set(spec, index);
  return index;
}

const endpointIndexes = new WeakMap<ApiSpec, Map<string, Endpoint>>();

export function findEndpoint(spec: ApiSpec, method: string, path: string): Endpoint | undefined {
  let byKey = endpointIndexes.get(spec);
  if (!byKey) {
    byKey = new Map();
    for (const e of spec.endpoints) if (!byKey.has(`${e.method} ${e.path}`)) byKey.set(`${e.method} ${e.path}`, e);
    endpointIndexes.set(spec, byKey);
  }
  return byKey.get(`${method.toLowerCase()} ${path}`);
}

export function methodsAt(spec: ApiSpec, path: string): HttpMethod[] {
  return spec.endpoints.filter((e) => e.path === path).map((e) => e.method);
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Pairs of objects of one comparison: those on the walk's stack, and those already found equal. */
interface Walk {
  readonly open: Map<object, Set<object>>;
  readonly equal: Map<object, Set<object>>;
}
const has = (pairs: Map<object, Set<object>>, a: object, b: object): boolean => pairs.get(a)?.has(b) === true;
const add = (pairs: Map<object, Set<object>>, a: object, b: object): void => {
  const set = pairs.get(a);
  if (set) set.add(b);
  else pairs.set(a, new Set([b]));
};

/**
 * Two values of the document equal after following local `$ref`s, each reference read where it
 * points. A pair met again further down (a recursive schema) is taken as equal there: any
 * difference shows elsewhere in the walk, and any difference makes the whole comparison false, so
 * a pair found equal is not walked again (a spec whose schemas share parts many times over would
 * otherwise take exponential time).
 */
function sameValue(doc: Readonly<Obj>, a: unknown, b: unknown, walk: Walk, depth: number): boolean {
  if (a === b) return true;
  if (isObj(a) && isObj(b) && typeof a['$ref'] === 'string' && a['$ref'] === b['$ref'] && Object.keys(a).length === 1 && Object.keys(b).length === 1) return true;
  if (depth > 256) return false;
  a = followLocalRef(doc, a);
  b = followLocalRef(doc, b);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (has(walk.open, a, b) || has(walk.equal, a, b)) return true;
  add(walk.open, a, b);
  let same: boolean;
  if (Array.isArray(a) && Array.isArray(b)) same = a.length === b.length && a.every((x, i) => sameValue(doc, x, b[i], walk, depth + 1));
  else {
    const ka = Object.keys(a);
    same = ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && sameValue(doc, (a as Obj)[k], (b as Obj)[k], walk, depth + 1));
  }
  walk.open.get(a)!.delete(b);
  if (same) add(walk.equal, a, b);
  return same;
}

/** A path item's parameters with its operation's, by location and name (the operation's win), references followed. */
function operationParameters(doc: Readonly<Obj>, item: Obj, operation: Obj): Map<string, unknown> {
  const merged = new Map<string, unknown>();
  for (const list of [item['parameters'], operation['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = followLocalRef(doc, raw);
      if (isObj(p)) merged.set(`${String(p['in'])}:${String(p['name'])}`, raw);
    }
  }
  return merged;
}

/**
 * The parts of an operation compared as they are: all but its parameters (merged with the path's
 * first), its servers (the endpoint's, whichever level declared them) and its operationId, which
 * no two operations may share. Its prose counts: Slack's `admin.inviteRequests.approve` and
 * `.deny` take the same arguments and give the same answers, and only their descriptions say
 * that they do opposite things.
 */
const NOT_COMPARED: ReadonlySet<string> = new Set(['operationId', 'parameters', 'servers']);

function sameOperation(spec: ApiSpec, doc: Readonly<Obj>, pathA: string, pathB: string, method: HttpMethod): boolean {
  const paths = isObj(doc['paths']) ? doc['paths'] : {};
  const itemA = followLocalRef(doc, paths[pathA]);
  const itemB = followLocalRef(doc, paths[pathB]);
  if (!isObj(itemA) || !isObj(itemB)) return false;
  const opA = itemA[method];
  const opB = itemB[method];
  if (!isObj(opA) || !isObj(opB)) return false;
  const endpointA = findEndpoint(spec, method, pathA);
  const endpointB = findEndpoint(spec, method, pathB);
  if (!endpointA || !endpointB || [...endpointA.servers].sort().join(' ') !== [...endpointB.servers].sort().join(' ')) return false;
  const walk: Walk = { open: new Map(), equal: new Map() };
  const paramsA = operationParameters(doc, itemA, opA);
  const paramsB = operationParameters(doc, itemB, opB);
  if (paramsA.size !== paramsB.size) return false;
  for (const [key, p] of paramsA) if (!paramsB.has(key) || !sameValue(doc, p, paramsB.get(key), walk, 0)) return false;
  const parts = [...new Set([...Object.keys(opA), ...Object.keys(opB)])].filter((k) => !NOT_COMPARED.has(k));
  return parts.every((part) => sameValue(doc, opA[part], opB[part], walk, 0));
}

const sameOperationsCache = new WeakMap<ApiSpec, Map<string, boolean>>();

/**
 * Whether two paths are one endpoint under two names (FrankerFaceZ's `/v1/emotes` and
 * `/v1/emoticons`): both define the same methods, and each method's operation is identical after
 * following references (parameters, request body, responses, security, servers, descriptions:
 * everything but its operationId). Paths that merely look alike are not.
 */
export function sameOperations(spec: ApiSpec, pathA: string, pathB: string): boolean {
  if (pathA === pathB) return true;
  let cache = sameOperationsCache.get(spec);
  if (!cache) sameOperationsCache.set(spec, (cache = new Map()));
  const key = pathA < pathB ? `${pathA}\n${pathB}` : `${pathB}\n${pathA}`;
  let same = cache.get(key);
  if (same === undefined) {
    const methodsA = methodsAt(spec, pathA).sort();
    const methodsB = methodsAt(spec, pathB).sort();
    const doc = specDocument(spec);
    same = methodsA.length > 0 && methodsA.join() === methodsB.join() && methodsA.every((m) => sameOperation(spec, doc, pathA, pathB, m));
    cache.set(key, same);
  }
  return same;
}

export interface ResolvedRequest {
  readonly candidates: readonly PathCandidate[];
  /** The first candidate (in candidate order) that defines the method. */
  readonly endpoint?: Endpoint;
  readonly candidate?: PathCandidate;
}

/** The endpoint a request calls: the first candidate path that defines the method on the server the URL names. */
export function resolveEndpoint(spec: ApiSpec, url: string, method: string, params?: Readonly<Record<string, unknown>>): ResolvedRequest {
  const candidates = pathCandidates(spec, url, params);
  const withoutQuery = stripQuery(url);
  for (const candidate of candidates) {
    const endpoint = findEndpoint(spec, method, candidate.template.path);
    // An operation with servers of its own is only reached through them.
    if (endpoint && endpoint.servers.some((s) => afterServer(s, withoutQuery) !== undefined)) return { candidates, endpoint, candidate };
  }
  return { candidates };
}

/** What in the spec makes an argument legal at a location. */
export type ArgumentSource =
  | { readonly kind: 'parameter'; readonly parameter: Parameter }
  | { readonly kind: 'body'; readonly property: BodyProperty | undefined }
  | { readonly kind: 'security'; readonly scheme: SecurityScheme }
  | { readonly kind: 'content-type' };

const sameHeader = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();
const BODY_METHODS: ReadonlySet<string> = new Set(['put', 'post', 'patch']);

function securitySource(spec: ApiSpec, location: ArgumentLocation, key: string): ArgumentSource | undefined {
  // Security arguments are permitted on every endpoint (never required): specs mark public
  // operations inconsistently, see constraints.md.
  for (const scheme of spec.securitySchemes) {
    if (scheme.type === 'apiKey') {
      const loc = scheme.in === 'header' ? 'headers' : scheme.in === 'query' ? 'params' : undefined;
      if (loc === location && (loc === 'headers' ? sameHeader(scheme.keyName, key) : scheme.keyName === key)) return { kind: 'security', scheme };
    } else if (location === 'headers' && sameHeader(key, 'Authorization')) return { kind: 'security', scheme };
  }
  return undefined;
}

const PARAMETER_LOCATION: Record<Exclude<ArgumentLocation, 'data'>, Parameter['in']> = {
  headers: 'header',
  params: 'query',
  path_params: 'path',
};

/**
 * Why `key` is permitted at `location` of `endpoint`, or undefined when it is not (scoring.md §4):
 * parameters of the path or operation at that location; body properties of the request body
 * (or any key when the body schema is open); the security schemes' arguments; `Content-Type`
 * for put/post/patch.
 */
export function argumentSource(spec: ApiSpec, endpoint: Endpoint, location: ArgumentLocation, key: string): ArgumentSource | undefined {
  if (location === 'data') {
    const contents = endpoint.requestBody?.contents ?? [];
    for (const content of contents) {
      const property = content.properties.find((p) => p.name === key);
      if (property) return { kind: 'body', property };
    }
    return contents.some((c) => c.openProperties) ? { kind: 'body', property: undefined } : undefined;
  }
  const parameterIn = PARAMETER_LOCATION[location];
  const parameter = endpoint.parameters.find(
    (p) => p.in === parameterIn && (location === 'headers' ? sameHeader(p.name, key) : p.name === key),
  );
  if (parameter) return { kind: 'parameter', parameter };
  if (location === 'headers' && sameHeader(key, 'Content-Type') && BODY_METHODS.has(endpoint.method)) return { kind: 'content-type' };
  return securitySource(spec, location, key);
}

export function isPermitted(spec: ApiSpec, endpoint: Endpoint, location: ArgumentLocation, key: string): boolean {
  return argumentSource(spec, endpoint, location, key) !== undefined;
}
