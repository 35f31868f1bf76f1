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

/** Splits a URL into the spec server it starts with and the path after it (query string dropped). */
export function splitServer(spec: ApiSpec, url: string): { server: string; path: string } | undefined {
  const withoutQuery = url.split(/[?#]/, 1)[0] ?? '';
  for (const server of spec.servers) {
    if (withoutQuery === server) return { server, path: '/' };
    if (withoutQuery.startsWith(server + '/')) return { server, path: withoutQuery.slice(server.length) };
  }
  return undefined;
}

/**
 * Every path template matching the URL without its server prefix, ordered by fewest parameters,
 * then longest template (scoring.md §4: `/values/{range}:clear` beats `/values/{range}`).
 */
export function pathCandidates(spec: ApiSpec, url: string): PathCandidate[] {
  const split = splitServer(spec, url);
  if (!split) return [];
  const candidates: PathCandidate[] = [];
  for (const template of spec.paths) {
    const match = template.pattern.exec(split.path);
    if (!match) continue;
    const pathParams: Record<string, string> = {};
    template.parameterNames.forEach((name, i) => (pathParams[name] = decode(match[i + 1] ?? '')));
    candidates.push({ template, pathParams });
  }
  return candidates.sort(
    (a, b) => a.template.parameterNames.length - b.template.parameterNames.length || b.template.path.length - a.template.path.length,
  );
}

export function findEndpoint(spec: ApiSpec, method: string, path: string): Endpoint | undefined {
  const m = method.toLowerCase();
  return spec.endpoints.find((e) => e.method === m && e.path === path);
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

export function resolveEndpoint(spec: ApiSpec, url: string, method: string): ResolvedRequest {
  const candidates = pathCandidates(spec, url);
  for (const candidate of candidates) {
    const endpoint = findEndpoint(spec, method, candidate.template.path);
    if (endpoint) return { candidates, endpoint, candidate };
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
