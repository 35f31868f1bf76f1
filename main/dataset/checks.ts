import { z } from 'zod';
import { carriedSource, requestValueAt, valueAtPointer, segmentHolding } from '../api/steps.js';
import { StepSchema, type Finding, type JsonValue, type RequestConfig, type SampleFields } from '../api/schemas.js';
import {
  argumentSource,
  methodsAt,
  resolveEndpoint,
  splitServer,
  validateValue,
  type ApiSpec,
  type ArgumentLocation,
  type Endpoint,
  type JsonSchema,
  type RequestBodyContent,
} from '../openapi/index.js';

const LOCATION_WORD: Record<ArgumentLocation, string> = { headers: 'header', params: 'query', path_params: 'path', data: 'body' };
/** Sent by Axios on every request; never part of what a sample is judged on (scoring.md §4). */
const IMPLICIT_HEADERS = new Set(['accept']);

const isRecord = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);
const show = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? text.slice(0, 57) + '...' : text;
};
function valueAt(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const step of path) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[step] : undefined;
  return node;
}
const endpointName = (e: Endpoint): string => `${e.method.toUpperCase()} ${e.path}`;

/** Path values arrive as URL text; read them as the number or boolean the schema declares. */
function coercePathValue(schema: JsonSchema | undefined, value: string): JsonValue {
  const type = schema?.['type'];
  if ((type === 'integer' || type === 'number') && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function bodyContent(endpoint: Endpoint, config: RequestConfig): RequestBodyContent | undefined {
  const contents = endpoint.requestBody?.contents ?? [];
  const header = Object.entries(config.headers ?? {}).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const wanted = typeof header === 'string' ? header.split(';')[0]?.trim().toLowerCase() : undefined;
  return (wanted && contents.find((c) => c.mediaType.toLowerCase() === wanted)) || contents.find((c) => /json/i.test(c.mediaType)) || contents[0];
}

function checkArguments(spec: ApiSpec, endpoint: Endpoint, location: ArgumentLocation, args: Record<string, JsonValue>, out: Finding[]): void {
  for (const [key, value] of Object.entries(args)) {
    if (location === 'headers' && IMPLICIT_HEADERS.has(key.toLowerCase())) continue;
    const source = argumentSource(spec, endpoint, location, key);
    const what = `${LOCATION_WORD[location]} argument \`${key}\``;
    if (!source) {
      out.push({ rule: 'argument', location, key, message: `${what} is not defined for ${endpointName(endpoint)}` });
      continue;
    }
    let schema: JsonSchema | undefined;
    if (source.kind === 'parameter') schema = source.parameter.schema;
    else if (source.kind === 'body' && source.property) {
      schema = source.property.schema;
      if (source.property.readOnly) {
        out.push({ rule: 'read-only', location, key, message: `${what} is read-only in ${endpointName(endpoint)} and cannot be sent` });
      }
    }
    const checked = location === 'path_params' && typeof value === 'string' ? coercePathValue(schema, value) : value;
    for (const problem of validateValue(spec, schema, checked)) {
      const inner = valueAt(checked, problem.path);
      const name = [key, ...problem.path].join('.');
      out.push({
        rule: 'value',
        location,
        key,
        message: `${LOCATION_WORD[location]} argument \`${name}\` = ${show(inner)} ${problem.message} (${endpointName(endpoint)})`,
      });
    }
  }
}

function checkRequired(endpoint: Endpoint, config: RequestConfig, out: Finding[]): void {
  const present = {
    headers: new Set(Object.keys(config.headers ?? {}).map((k) => k.toLowerCase())),
    params: new Set(Object.keys(config.params ?? {})),
  };
  for (const p of endpoint.parameters) {
    if (!p.required) continue;
    if (p.in === 'query' && !present.params.has(p.name)) {
      out.push({ rule: 'required', location: 'params', key: p.name, message: `required query parameter \`${p.name}\` of ${endpointName(endpoint)} is missing` });
    }
    if (p.in === 'header' && !present.headers.has(p.name.toLowerCase())) {
      out.push({ rule: 'required', location: 'headers', key: p.name, message: `required header \`${p.name}\` of ${endpointName(endpoint)} is missing` });
    }
  }
  const body = endpoint.requestBody;
  const data = config.data;
  const empty = data === undefined || data === null || (isRecord(data) && Object.keys(data).length === 0);
  if (body?.required && empty) {
    out.push({ rule: 'required', location: 'data', message: `${endpointName(endpoint)} requires a request body, and the sample sends none` });
    return;
  }
  const content = bodyContent(endpoint, config);
  if (content && isRecord(data)) {
    for (const p of content.properties) {
      if (p.required && !(p.name in data)) {
        out.push({ rule: 'required', location: 'data', key: p.name, message: `required body property \`${p.name}\` of ${endpointName(endpoint)} is missing` });
      }
    }
  }
}

/** The keys of a URL's own query string, in order. */
function queryKeysOf(url: string): string[] {
  const at = url.indexOf('?');
  return at < 0 ? [] : [...new URLSearchParams(url.slice(at + 1).split('#', 1)[0])].map(([k]) => k);
}

/**
 * Checks an expected request against the API's spec: the URL matches an endpoint, the method is
 * defined there, every argument is permitted at its location, required parameters and body
 * properties are present, and every value is valid against its schema. Each finding is a sentence
 * a reviewer can act on.
 */
export function checkRequest(spec: ApiSpec, config: RequestConfig): Finding[] {
  const findings: Finding[] = [];
  const url = config.url;
  const inUrl = queryKeysOf(url);
  const queryFinding = (fixedByPath: Readonly<Record<string, string>>): void => {
    // A query the spec's own path key spells (Etherscan's `/api?module=account&action=balance`) is the endpoint's, not an argument.
    if (inUrl.some((k) => !(k in fixedByPath))) findings.push({ rule: 'query-in-url', message: `the URL carries a query string; query arguments belong in \`params\`` });
  };
  if (!splitServer(spec, url)) {
    queryFinding({});
    findings.push({ rule: 'server', message: `URL ${url} does not start with a server of the spec (${spec.servers.join(', ') || 'none declared'})` });
    return findings;
  }
  const method = config.method.toLowerCase();
  // `params` decide between path keys that carry a query part (Etherscan's `/?module=account&action=balance`).
  const resolved = resolveEndpoint(spec, url, method, config.params ?? {});
  const first = resolved.candidates[0];
  queryFinding(first?.template.query ?? {});
  if (!first) {
    findings.push({ rule: 'path', message: `URL path ${splitServer(spec, url)?.path ?? url} matches no endpoint of the spec` });
    return findings;
  }
  const endpoint = resolved.endpoint;
  const candidate = resolved.candidate;
  if (!endpoint || !candidate) {
    const defined = resolved.candidates.flatMap((c) => methodsAt(spec, c.template.path)).map((m) => m.toUpperCase());
    findings.push({
      rule: 'method',
      message: `method ${method.toUpperCase()} is not defined for ${first.template.path} (defined: ${[...new Set(defined)].join(', ') || 'none'})`,
    });
    return findings;
  }
  checkArguments(spec, endpoint, 'path_params', candidate.pathParams, findings);
  checkArguments(spec, endpoint, 'headers', config.headers ?? {}, findings);
  checkArguments(spec, endpoint, 'params', config.params ?? {}, findings);
  if (isRecord(config.data)) checkArguments(spec, endpoint, 'data', config.data, findings);
  else if (config.data !== undefined && config.data !== null) {
    const schema = bodyContent(endpoint, config)?.schema;
    for (const problem of validateValue(spec, schema, config.data)) {
      const where = problem.path.length > 0 ? ` at \`${problem.path.join('.')}\`` : '';
      findings.push({ rule: 'value', location: 'data', message: `the request body${where} ${problem.message} (${endpointName(endpoint)})` });
    }
  }
  checkRequired(endpoint, config, findings);
  return findings;
}

/** Findings for a sample: the spec checks, plus what the source dataset recorded (WAPIIBench's `checks`). */
export function checkSample(spec: ApiSpec | undefined, sample: { api: string; config: RequestConfig; source: { checks?: string | undefined }; fields?: SampleFields | undefined }): Finding[] {
  const steps = sample.fields?.['steps'];
  const findings = !spec ? [{ rule: 'server' as const, message: `no spec is loaded for API \`${sample.api}\`` }] : steps !== undefined ? checkSteps(spec, steps) : checkRequest(spec, sample.config);
  const recorded = sample.source.checks?.trim();
  if (recorded && recorded !== 'OK') {
    // A line the spec check just said (a workbench export writes its findings as `checks`) is not said twice.
    const said = new Set(findings.map((f) => f.message));
    for (const line of recorded.split('\n').filter((l) => l.trim() && !said.has(l.trim()))) {
      findings.push({ rule: 'recorded', message: `the source dataset's own check reported: ${line.trim()}` });
    }
  }
  return findings;
}

/** The schema of an operation's response for a status: its own, its `2XX` range's, else `default`. */
export function responseSchema(endpoint: Endpoint | undefined, status: number): JsonSchema | undefined {
  const code = String(status);
  return endpoint?.responses?.[code] ?? endpoint?.responses?.[`${code[0]}XX`] ?? endpoint?.responses?.['default'];
}

/**
 * A multi-step sample's checks (scoring.md §7): each step's request against the spec, as a single
 * sample's, and each carried value: it points into an earlier step's response, and what it points
 * at is the value the step's request sends there.
 */
function checkSteps(spec: ApiSpec, raw: JsonValue): Finding[] {
  const parsed = z.array(StepSchema).min(2).safeParse(raw);
  if (!parsed.success) return [{ rule: 'value', message: `the steps are not a list of two or more steps ({config, response, carried}): ${parsed.error.issues[0]?.message ?? 'invalid'}` }];
  const steps = parsed.data;
  const findings: Finding[] = [];
  steps.forEach((step, i) => {
    for (const f of checkRequest(spec, step.config)) findings.push({ ...f, step: i, message: `step ${i}: ${f.message}` });
    // The stubbed answer is what the API would send: valid against the operation's response schema for its status, where the spec has one.
    const resolved = resolveEndpoint(spec, step.config.url, step.config.method.toLowerCase(), step.config.params ?? {});
    const endpoint = resolved.endpoint;
    const status = String(step.response.status);
    const schema = responseSchema(endpoint, step.response.status);
    const documented = Object.keys(endpoint?.responses ?? {});
    // An answer with a status the operation does not document cannot be validated: that is a finding, not a pass.
    if (endpoint && schema === undefined && documented.length > 0) findings.push({ rule: 'response', step: i, message: `step ${i}: the response's status ${status} is not one the ${endpoint.method.toUpperCase()} ${endpoint.path} operation documents (${documented.join(', ')})` });
    for (const problem of validateValue(spec, schema, step.response.data ?? null).slice(0, 3)) {
      findings.push({ rule: 'response', step: i, message: `step ${i}: the response's data${problem.path.length > 0 ? ` at ${problem.path.join('.')}` : ''} ${problem.message} (the ${endpoint?.method.toUpperCase()} ${endpoint?.path} response schema for ${status})` });
    }
    for (const [where, pointer] of Object.entries(step.carried ?? {})) {
      const { step: from, pointer: at } = carriedSource(pointer);
      const say = (message: string): void => void findings.push({ rule: 'carried', step: i, message: `step ${i}: carried ${where} ← ${pointer}: ${message}` });
      if (!(from < i)) {
        say('it must point into an earlier step');
        continue;
      }
      const held = valueAtPointer(steps[from]!.response as unknown as JsonValue, at);
      if (held === undefined) {
        say(`step ${from}'s response holds nothing there`);
        continue;
      }
      const [location] = where.split('.');
      if (location === 'path_params') {
        // The named parameter's own segment, as the spec's template reads the URL (another segment holding the same value is not it).
        const name = where.slice('path_params.'.length);
        const sent = resolved.candidate?.pathParams[name];
        if (held === null || typeof held === 'object') say(`the response holds ${JSON.stringify(held)} there, not a value a URL segment can carry`);
        else if (sent !== undefined ? sent !== String(held) : !segmentHolding(step.config.url, String(held))) say(sent !== undefined ? `the URL's {${name}} is ${JSON.stringify(sent)}, the response holds ${JSON.stringify(held)}` : `the URL has no segment ${JSON.stringify(held)}, which the response holds`);
        continue;
      }
      const sent = requestValueAt(step.config, where);
      if (JSON.stringify(sent) !== JSON.stringify(held)) say(`the request sends ${sent === undefined ? 'nothing' : JSON.stringify(sent)} there, the response holds ${JSON.stringify(held)}`);
    }
  });
  return findings;
}
