import { fail, ok, type Result } from '../api/result.js';
import {
  HTTP_METHODS,
  type ApiSpec,
  type BodyProperty,
  type Endpoint,
  type HttpMethod,
  type JsonSchema,
  type Parameter,
  type ParameterLocation,
  type PathTemplate,
  type RequestBody,
  type RequestBodyContent,
  type SecurityScheme,
} from './model.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** Attached to an ApiSpec for schema validation; not part of the domain model. */
export interface SpecInternals {
  /** The document as written, `$ref`s intact. */
  readonly raw: Obj;
  /** For each dereferenced object, the local `$ref` it was resolved from. */
  readonly origins: WeakMap<object, string>;
}
const internals = new WeakMap<ApiSpec, SpecInternals>();

/** The document as written (`$ref`s intact), for code that must follow a reference the model left in place. */
export const specDocument = (spec: ApiSpec): Readonly<Obj> => specInternals(spec).raw;
export function specInternals(spec: ApiSpec): SpecInternals {
  const found = internals.get(spec);
  if (!found) throw new Error('bug: ApiSpec was not built by buildSpec');
  return found;
}

/**
 * Follows a local `$ref` that dereferencing left in place (every `$ref` on a cycle stays a
 * `$ref` under circular: 'ignore') to the object it points at in `doc`; anything else is returned as is.
 */
export function followLocalRef(doc: Readonly<Obj>, node: unknown): unknown {
  for (let hops = 0; hops < 16 && isObj(node) && typeof node['$ref'] === 'string' && node['$ref'].startsWith('#/'); hops++) {
    let target: unknown = doc;
    for (const raw of node['$ref'].slice(2).split('/')) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObj(target) || Array.isArray(target) ? (target as Obj)[key] : undefined;
    }
    if (target === undefined) return node;
    node = target;
  }
  return node;
}

/** Finds a `$ref` left unresolved that points outside the document. */
function findExternalRef(root: unknown): string | undefined {
  const seen = new Set<unknown>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (!Array.isArray(node)) {
      const ref = (node as Obj)['$ref'];
      if (typeof ref === 'string' && !ref.startsWith('#')) return ref;
    }
    for (const child of Object.values(node)) stack.push(child);
  }
  return undefined;
}

/**
 * Merges `allOf` members' properties and required lists into one object schema. Written here
 * rather than with a full allOf-merging library because only the top-level property set and
 * required list matter for argument legality; nested schemas are validated by ajv as written.
 */
export function mergeAllOf(schema: JsonSchema, depth = 0, resolve: (n: unknown) => unknown = (n) => n): JsonSchema {
  const allOf = schema['allOf'];
  if (!Array.isArray(allOf) || depth > 8) return schema;
  const properties: Obj = {};
  const required = new Set<string>();
  let additional: unknown = schema['additionalProperties'];
  const merged: Obj = {};
  for (const part of [...allOf.map(resolve).filter(isObj).map((p) => mergeAllOf(p, depth + 1, resolve)), schema]) {
    for (const [k, v] of Object.entries(part)) {
      if (k === 'allOf' || k === 'properties' || k === 'required' || k === 'additionalProperties') continue;
      merged[k] ??= v;
    }
    if (isObj(part['properties'])) Object.assign(properties, part['properties']);
    if (Array.isArray(part['required'])) for (const r of part['required']) if (typeof r === 'string') required.add(r);
    if (part['additionalProperties'] !== undefined) additional ??= part['additionalProperties'];
  }
  const result: Obj = { ...merged, type: merged['type'] ?? 'object', properties };
  if (required.size > 0) result['required'] = [...required];
  if (additional !== undefined) result['additionalProperties'] = additional;
  return result;
}

type Resolve = (node: unknown) => unknown;

function readParameter(resolve: Resolve, raw: unknown): Parameter | undefined {
  const value = resolve(raw);
  if (!isObj(value)) return undefined;
  const name = str(value['name']);
  const location = str(value['in']);
  if (!name || !location || !['path', 'query', 'header', 'cookie'].includes(location)) return undefined;
  const resolvedSchema = resolve(value['schema']);
  let schema = isObj(resolvedSchema) ? resolvedSchema : undefined;
  // Parameters may carry their schema under `content` (OpenAPI 3: exactly one media type).
  if (!schema && isObj(value['content'])) {
    const first = Object.values(value['content'])[0];
    if (isObj(first) && isObj(first['schema'])) schema = first['schema'];
  }
  const description = str(value['description']);
  return {
    name,
    in: location as ParameterLocation,
    required: location === 'path' ? true : value['required'] === true,
    schema,
    ...(description ? { description } : {}),
  };
}

/** Header parameters whose definition OpenAPI says SHALL be ignored (the client and the security schemes own these headers). */
const IGNORED_HEADER_PARAMETERS: ReadonlySet<string> = new Set(['accept', 'content-type', 'authorization']);
const BODY_METHODS: ReadonlySet<string> = new Set(['put', 'post', 'patch']);

/**
 * An ignored header parameter as the model keeps it: never required and any string, since its
 * definition does not count (PagerDuty declares `Content-Type` required on `GET /abilities`, and
 * every correct sample omits it). Dropped outright where the header is permitted anyway
 * (`Content-Type` with a body, whose media types the request body names); elsewhere the name stays
 * sendable, so a sample that sends `Accept` or an `Authorization` the spec gives no scheme for is
 * not turned illegal by the spec being ignored.
 */
function ignoredHeader(p: Parameter, method: string): Parameter | undefined {
  if (p.in !== 'header' || !IGNORED_HEADER_PARAMETERS.has(p.name.toLowerCase())) return p;
  if (p.name.toLowerCase() === 'content-type' && BODY_METHODS.has(method)) return undefined;
  return { name: p.name, in: 'header', required: false, schema: { type: 'string' }, description: `declared by the spec; its definition is ignored (OpenAPI: ${p.name} is not a parameter)` };
}

function readParameters(resolve: Resolve, pathLevel: unknown, opLevel: unknown, method: string): Parameter[] {
  const byKey = new Map<string, Parameter>();
  for (const list of [pathLevel, opLevel]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const read = readParameter(resolve, raw);
      const p = read && ignoredHeader(read, method);
      if (read && !p) byKey.delete(`${read.in}:${read.name}`);
      if (p) byKey.set(`${p.in}:${p.name}`, p);
    }
  }
  return [...byKey.values()];
}

function readContent(resolve: Resolve, mediaType: string, media: unknown): RequestBodyContent {
  const raw = isObj(media) ? resolve(media['schema']) : undefined;
  if (!isObj(raw)) return { mediaType, schema: undefined, properties: [], openProperties: true };
  const schema = mergeAllOf(raw, 0, resolve);
  const props = isObj(schema['properties']) ? schema['properties'] : {};
  const required = new Set(Array.isArray(schema['required']) ? schema['required'].filter((r): r is string => typeof r === 'string') : []);
  const properties: BodyProperty[] = Object.entries(props).map(([name, s]) => ({
    name,
    required: required.has(name),
    readOnly: isObj(resolve(s)) && (resolve(s) as Obj)['readOnly'] === true,
    schema: isObj(s) ? s : {},
  }));
  // OpenAPI 3.1 writes `type: [object, 'null']` where 3.0 wrote `nullable`.
  const type = schema['type'];
  const declaresObject = type === 'object' || (Array.isArray(type) && type.includes('object')) || properties.length > 0;
  const additional = schema['additionalProperties'];
  // Keys beyond `properties` are permitted when the schema says so, or when it describes no object at all.
  const openProperties = !declaresObject || (additional !== undefined && additional !== false);
  return { mediaType, schema, properties, openProperties };
}

function readRequestBody(resolve: Resolve, raw: unknown): RequestBody | undefined {
  const value = resolve(raw);
  if (!isObj(value) || !isObj(value['content'])) return undefined;
  const contents = Object.entries(value['content']).map(([mediaType, media]) => readContent(resolve, mediaType, media));
  return { required: value['required'] === true, contents };
}

/**
 * Each documented response's JSON body schema by status key: its `application/json` (or `+json`)
 * content's, as written (a `$ref` left to the validator); `{}` (anything) for a status documented
 * without a JSON body, so every documented status is known.
 */
function readResponses(resolve: Resolve, raw: unknown): Record<string, JsonSchema> | undefined {
  const responses = resolve(raw);
  if (!isObj(responses)) return undefined;
  const out: Record<string, JsonSchema> = {};
  for (const [status, r] of Object.entries(responses)) {
    const response = resolve(r);
    if (!isObj(response)) continue;
    const json = isObj(response['content']) ? Object.entries(response['content']).find(([type]) => /^application\/(.+\+)?json\b/.test(type))?.[1] : undefined;
    const schema = isObj(json) ? json['schema'] : undefined;
    out[status] = isObj(schema) ? (schema as JsonSchema) : {};
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function securityNames(requirement: unknown): string[] | undefined {
  if (!Array.isArray(requirement)) return undefined;
  return [...new Set(requirement.filter(isObj).flatMap((r) => Object.keys(r)))];
}

function readSecuritySchemes(components: unknown): SecurityScheme[] {
  const schemes = isObj(components) && isObj(components['securitySchemes']) ? components['securitySchemes'] : {};
  const result: SecurityScheme[] = [];
  for (const [name, s] of Object.entries(schemes)) {
    if (!isObj(s)) continue;
    const type = str(s['type']);
    if (type === 'http') result.push({ name, type, scheme: str(s['scheme']) ?? 'bearer' });
    else if (type === 'oauth2' || type === 'openIdConnect') result.push({ name, type });
    else if (type === 'apiKey') {
      const location = str(s['in']);
      const keyName = str(s['name']);
      if (keyName && (location === 'query' || location === 'header' || location === 'cookie')) result.push({ name, type, in: location, keyName });
    }
  }
  return result;
}

/** A path key's query part (`/?module=account&action=balance`): the arguments it fixes. */
function fixedQuery(key: string): Record<string, string> {
  const at = key.indexOf('?');
  if (at === -1) return {};
  const query: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(key.slice(at + 1))) query[k] ??= v;
  return query;
}

/** Text as a regular expression that matches it literally. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `{param}` segments match `[^/?&]+`, as in scoring.md §4; a query part of the key is matched by its arguments (see pathCandidates). */
export function compilePathTemplate(path: string, servers: readonly string[] = []): PathTemplate {
  const parameterNames: string[] = [];
  const pathPart = path.split('?', 1)[0] ?? '';
  let source = '';
  for (const part of pathPart.split(/(\{[^}]+\})/)) {
    const param = /^\{([^}]+)\}$/.exec(part);
    if (param?.[1] !== undefined) {
      parameterNames.push(param[1]);
      source += '([^/?&]+)';
    } else source += escapeRegExp(part);
  }
  // `/` (or nothing) after the server: the URL may also stop at the server itself (`https://api.etherscan.io/api?module=...`).
  if (pathPart === '/' || pathPart === '') source = '/?';
  return { path, pathPart, query: fixedQuery(path), parameterNames, pattern: new RegExp(`^${source}$`), servers };
}

/**
 * A `servers` list as URL templates. A variable with an `enum` is expanded into its values (a
 * closed choice); any other variable stays `{name}` and takes any value: its `default` is only an
 * example (Telegram's `bot{token}` defaults to a placeholder token nobody sends).
 */
function readServers(list: unknown): string[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const urls = list.filter(isObj).flatMap((s) => {
    const url = str(s['url']);
    if (!url) return [];
    const vars = isObj(s['variables']) ? s['variables'] : {};
    let expanded = [url];
    for (const [name, variable] of Object.entries(vars)) {
      const values = isObj(variable) && Array.isArray(variable['enum']) ? variable['enum'].filter((v): v is string => typeof v === 'string') : [];
      if (values.length === 0) continue;
      expanded = expanded.flatMap((u) => values.map((v) => u.split(`{${name}}`).join(v)));
    }
    return expanded.map((u) => u.replace(/\/+$/, ''));
  });
  return urls.length > 0 ? [...new Set(urls)] : undefined;
}

const longestFirst = (urls: Iterable<string>): string[] => [...new Set(urls)].sort((a, b) => b.length - a.length);

/**
 * The arguments a path key's query part fixes, as required query parameters with that one value,
 * unless the operation declares them itself: so checks, scoring and constraints treat them as
 * any other query parameter (`params: {module: 'account', action: 'balance'}`).
 */
function queryKeyParameters(template: PathTemplate, declared: readonly Parameter[]): Parameter[] {
  return Object.entries(template.query)
    .filter(([name]) => !declared.some((p) => p.in === 'query' && p.name === name))
    .map(([name, value]) => ({ name, in: 'query' as const, required: true, schema: { type: 'string', enum: [value] }, description: `fixed by the path ${template.path}` }));
}

export function buildSpec(doc: Obj, options: { filename: string; raw: Obj; origins: WeakMap<object, string> }): Result<ApiSpec> {
  const external = findExternalRef(doc);
  if (external) {
    return fail('bad_input', `${options.filename}: unresolved $ref "${external}": only references inside the document are supported; bundle the spec into one file`);
  }
  const resolve: Resolve = (node) => followLocalRef(doc, node);
  const info = isObj(doc['info']) ? doc['info'] : {};
  const globalSecurity = securityNames(doc['security']);
  const endpoints: Endpoint[] = [];
  const paths: PathTemplate[] = [];
  const docServers = readServers(doc['servers']) ?? [];
  const allServers = new Set(docServers);
  for (const [path, item] of Object.entries(isObj(doc['paths']) ? doc['paths'] : {})) {
    if (!isObj(item)) continue;
    const pathServers = readServers(item['servers']) ?? docServers;
    const opServers = HTTP_METHODS.map((m) => (isObj(item[m]) ? (readServers((item[m] as Obj)['servers']) ?? pathServers) : []));
    const declared = opServers.filter((list, m) => isObj(item[HTTP_METHODS[m]!]));
    const templateServers = longestFirst(declared.length > 0 ? declared.flat() : pathServers);
    for (const server of templateServers) allServers.add(server);
    const template = compilePathTemplate(path, templateServers);
    paths.push(template);
    for (const [m, method] of HTTP_METHODS.entries()) {
      const op = item[method];
      if (!isObj(op)) continue;
      const parameters = readParameters(resolve, item['parameters'], op['parameters'], method);
      const requestBody = readRequestBody(resolve, op['requestBody']);
      const responses = readResponses(resolve, op['responses']);
      const operationId = str(op['operationId']);
      const summary = str(op['summary']);
      const description = str(op['description']);
      endpoints.push({
        method: method as HttpMethod,
        path,
        ...(operationId ? { operationId } : {}),
        ...(summary ? { summary } : {}),
        ...(description ? { description } : {}),
        parameters: [...parameters, ...queryKeyParameters(template, parameters)],
        ...(requestBody ? { requestBody } : {}),
        ...(responses ? { responses } : {}),
        security: securityNames(op['security']) ?? globalSecurity ?? [],
        servers: longestFirst(opServers[m] ?? []),
      });
    }
  }
  const spec: ApiSpec = {
    title: str(info['title']) ?? options.filename,
    version: str(info['version']) ?? '',
    openapi: str(doc['openapi']) ?? '3.0.0',
    servers: longestFirst(allServers),
    endpoints,
    securitySchemes: readSecuritySchemes(doc['components']),
    paths,
  };
  internals.set(spec, { raw: options.raw, origins: options.origins });
  return ok(spec);
}
