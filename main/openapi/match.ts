import type { ApiSpec, ArgumentLocation, BodyProperty, Endpoint, HttpMethod, Parameter, PathTemplate, SecurityScheme } from './model.js';

export interface PathCandidate {
  readonly template: PathTemplate;
  /** Values of the template's `{name}` segments, URL-decoded. */
  readonly pathParams: Readonly<Record<string, string>>;
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const serverPatterns = new Map<string, RegExp>();
/** A server URL template as a prefix pattern: each `{variable}` takes one or more characters of a segment. */
function serverPattern(server: string): RegExp {
  let pattern = serverPatterns.get(server);
  if (!pattern) {
    const source = server
      .split(/(\{[^}]+\})/)
      .map((part) => (/^\{[^}]+\}$/.test(part) ? '[^/?#]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('');
    pattern = new RegExp(`^${source}(?=/|$)`);
    if (serverPatterns.size > 10_000) serverPatterns.clear();
    serverPatterns.set(server, pattern);
  }
  return pattern;
}

/** The part of `url` (query string dropped) after `server`, a template; undefined when the URL is not on that server. */
function afterServer(server: string, withoutQuery: string): string | undefined {
  if (!server.includes('{')) {
    if (withoutQuery === server) return '/';
    return withoutQuery.startsWith(server + '/') ? withoutQuery.slice(server.length) : undefined;
  }
  const match = serverPattern(server).exec(withoutQuery);
  if (!match) return undefined;
  return withoutQuery.slice(match[0].length) || '/';
}

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
    const path = afterServer(server, withoutQuery);
    if (path === undefined) continue;
    for (const template of [...(buckets.byFirst.get(firstSegment(path)) ?? []), ...buckets.open]) {
      if (found.has(template) || !Object.entries(template.query).every(([k, v]) => query.get(k) === v)) continue;
      const match = template.pattern.exec(path);
      if (!match) continue;
      const pathParams: Record<string, string> = {};
      template.parameterNames.forEach((name, i) => (pathParams[name] = decode(match[i + 1] ?? '')));
      found.set(template, { template, pathParams });
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
