import { clientProfile } from '../api/clients.js';
import { isDeepStrictEqual } from 'node:util';
import type { CapturedRequest, JsonValue, RequestConfig } from '../api/schemas.js';
import { ARGUMENT_LOCATIONS, argumentSource, findEndpoint, isPermitted, methodsAt, pathCandidates, type ApiSpec, type ArgumentLocation, type Endpoint, type PathCandidate } from '../openapi/index.js';
import { sameOperations } from '../openapi/match.js';
import type { ArgumentResult, ArgumentResults, CompatMode, ErrorVerdict, PartVerdict, Verdict } from './verdicts.js';

/** Axios sends these on every request; they are never counted (scoring.md §4). */
const SPECIAL_HEADERS = new Set(['accept', 'content-type']);
const isRecord = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Located {
  readonly templatePath: string | undefined;
  readonly pathParams: Record<string, JsonValue>;
  /** Which of `pathParams` are the server's variables, not the path's. */
  readonly serverKeys: ReadonlySet<string>;
}

/**
 * The first candidate's path parameters, with the variables of the server it was found on
 * (Telegram's `bot{token}`): a value the URL carries like any path segment, compared as one. A
 * path parameter of the same name wins.
 */
function located(first: PathCandidate | undefined): Located {
  const serverParams = first?.serverParams ?? {};
  const pathParams = first?.pathParams ?? {};
  const serverKeys = new Set(Object.keys(serverParams).filter((name) => !Object.hasOwn(pathParams, name)));
  return { templatePath: first?.template.path, pathParams: { ...serverParams, ...pathParams }, serverKeys };
}

/** `params` decide between path keys that carry a query part (Etherscan's `/?module=account&action=balance`). */
function locate(spec: ApiSpec, url: string, params: Readonly<Record<string, unknown>> | undefined): Located {
  return located(pathCandidates(spec, url, params ?? {})[0]);
}

function argumentsOf(config: { headers?: Record<string, JsonValue> | undefined; params?: Record<string, JsonValue> | undefined; data?: JsonValue | undefined }, pathParams: Record<string, JsonValue>): Record<ArgumentLocation, Record<string, JsonValue>> {
  return {
    headers: { ...(config.headers ?? {}) },
    params: { ...(config.params ?? {}) },
    path_params: pathParams,
    data: isRecord(config.data) ? { ...config.data } : {},
  };
}

/** Sets a key as an own property: a generated `__proto__` key is an argument like any other (scoring.md §3), not the result's prototype. */
function setResult(out: Record<string, ArgumentResult>, key: string, result: ArgumentResult): void {
  Object.defineProperty(out, key, { value: result, enumerable: true, writable: true, configurable: true });
}

/** Whether an argument counts: never `Accept` or `Content-Type`; the reference skipped them by their exact names only. */
const counted = (location: ArgumentLocation, key: string, compat: CompatMode = 'default'): boolean =>
  !(location === 'headers' && (compat === 'reference' ? key === 'Accept' || key === 'Content-Type' : SPECIAL_HEADERS.has(key.toLowerCase())));

const BODY_METHODS: ReadonlySet<string> = new Set(['put', 'post', 'patch']);

/**
 * The reference's permission check (its openapi_utils.validate_argument), which compares names
 * exactly, headers too: `Accept` always and `Content-Type` only for put/post/patch, the apiKey
 * scheme's name at its location, `Authorization` (so not `authorization`) for http and oauth2
 * schemes, then the endpoint's parameters and its body's declared properties (an open body
 * schema permits nothing more).
 */
function referencePermitted(spec: ApiSpec, endpoint: Endpoint | undefined, location: ArgumentLocation, key: string): boolean {
  if (location === 'headers' && key === 'Accept') return true;
  if (location === 'headers' && key === 'Content-Type') return endpoint !== undefined && BODY_METHODS.has(endpoint.method);
  for (const scheme of spec.securitySchemes) {
    if (scheme.type === 'apiKey') {
      if (location === (scheme.in === 'header' ? 'headers' : scheme.in === 'query' ? 'params' : undefined) && key === scheme.keyName) return true;
    } else if ((scheme.type === 'http' || scheme.type === 'oauth2') && location === 'headers' && key === 'Authorization') return true;
  }
  if (endpoint === undefined) return false;
  const source = argumentSource(spec, endpoint, location, key);
  if (source?.kind === 'parameter') return source.parameter.name === key;
  return source?.kind === 'body' && source.property !== undefined;
}

/** Finds a key: headers case-insensitively (HTTP semantics), except in reference mode, which compared exactly. */
function lookup(args: Record<string, JsonValue>, location: ArgumentLocation, key: string, compat: CompatMode): string | undefined {
  if (Object.hasOwn(args, key)) return key;
  if (location !== 'headers' || compat === 'reference') return undefined;
  return Object.keys(args).find((k) => k.toLowerCase() === key.toLowerCase());
}

/**
 * An expected query value as a URL carries it. Axios sends `params` typed (50 is not "50"), but a
 * fetch request has only its URL for a query, where every value is text: there an expected 50 is
 * met by "50" and `[1, 2]` by the key sent twice, so fetch programs are not all marked wrong for
 * a type they cannot send.
 */
function asQueryText(value: JsonValue): JsonValue {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(asQueryText);
  return value;
}

/** Expected arguments per location, each `missing`: how a nonexecutable sample counts (all-missing). */
export function expectedOnly(spec: ApiSpec, expected: RequestConfig, error: ErrorVerdict): Verdict {
  const args = argumentsOf(expected, locate(spec, expected.url, expected.params).pathParams);
  const results: ArgumentResults = {};
  for (const location of ARGUMENT_LOCATIONS) {
    for (const [key, value] of Object.entries(args[location])) {
      if (!counted(location, key)) continue;
      setResult((results[location] ??= {}), key, { expected: value, actual: null, verdict: 'missing' });
    }
  }
  return { sample_verdict: 'nonexecutable', error_verdict: error, url_verdict: null, method_verdict: null, endpoint_verdict: null, arguments: results };
}

/**
 * Compares a captured request with the expected one (scoring.md §4): URL, method and endpoint
 * verdicts, then every argument by location and top-level key, values by deep JSON equality.
 */
export function compareRequest(spec: ApiSpec, expected: RequestConfig, actual: CapturedRequest, compat: CompatMode = 'default'): Verdict {
  const expectedAt = locate(spec, expected.url, expected.params);
  const actualCandidates = pathCandidates(spec, actual.url, actual.params ?? {});
  const actualAt = located(actualCandidates[0]);
  const expectedMethod = expected.method.toLowerCase();
  const actualMethod = actual.method.toLowerCase();

  // A path whose operations are the expected path's, under another name, is the same endpoint.
  const expectedPath = expectedAt.templatePath;
  const url_verdict: PartVerdict =
    expectedPath !== undefined && (actualCandidates.some((c) => c.template.path === expectedPath) || actualCandidates.some((c) => sameOperations(spec, c.template.path, expectedPath)))
      ? 'correct'
      : actualCandidates.length === 0
        ? 'illegal'
        : 'wrong';
  const method_verdict: PartVerdict =
    expectedMethod === actualMethod ? 'correct' : actualCandidates.every((c) => !methodsAt(spec, c.template.path).includes(actualMethod as never)) ? 'illegal' : 'wrong';
  const endpoint_verdict: PartVerdict = url_verdict === 'correct' && method_verdict === 'correct' ? 'correct' : url_verdict === 'illegal' || method_verdict === 'illegal' ? 'illegal' : 'wrong';

  const expectedEndpoint = expectedAt.templatePath ? findEndpoint(spec, expectedMethod, expectedAt.templatePath) : undefined;
  // Which endpoint decides whether an unexpected argument is legal: the one the code called
  // (the paper), else the expected one; the reference code always used the expected one.
  let judge: Endpoint | undefined = expectedEndpoint;
  if (compat === 'default') {
    const called = actualCandidates.map((c) => findEndpoint(spec, actualMethod, c.template.path)).find((e) => e !== undefined);
    judge = called ?? expectedEndpoint;
  }

  const want = argumentsOf(expected, expectedAt.pathParams);
  const got = argumentsOf(actual, actualAt.pathParams);
  const results: ArgumentResults = {};
  let allCorrect = true;
  let anyIllegal = false;
  for (const location of ARGUMENT_LOCATIONS) {
    const out: Record<string, ArgumentResult> = {};
    const matched = new Set<string>();
    for (const [key, value] of Object.entries(want[location])) {
      if (!counted(location, key, compat)) continue;
      const actualKey = lookup(got[location], location, key, compat);
      if (actualKey === undefined) setResult(out, key, { expected: value, actual: null, verdict: 'missing' });
      else {
        matched.add(actualKey);
        const actualValue = got[location][actualKey] ?? null;
        const sendable = location === 'params' && clientProfile(actual.client).queryAsText ? asQueryText(value) : value;
        setResult(out, key, { expected: value, actual: actualValue, verdict: isDeepStrictEqual(actualValue, sendable) ? 'correct' : 'incorrect_value' });
      }
    }
    for (const [key, value] of Object.entries(got[location])) {
      if (matched.has(key) || !counted(location, key, compat)) continue;
      // A variable of the server the URL names is declared there, whichever endpoint judges.
      const serverVariable = location === 'path_params' && actualAt.serverKeys.has(key);
      const legal = serverVariable || (compat === 'reference' ? referencePermitted(spec, judge, location, key) : judge !== undefined && isPermitted(spec, judge, location, key));
      setResult(out, key, { expected: null, actual: value, verdict: legal ? 'unnecessary' : 'illegal' });
    }
    for (const r of Object.values(out)) {
      if (r.verdict !== 'correct') allCorrect = false;
      if (r.verdict === 'illegal') anyIllegal = true;
    }
    if (Object.keys(out).length > 0) results[location] = out;
  }
  const sample_verdict = endpoint_verdict === 'correct' && allCorrect ? 'correct' : endpoint_verdict === 'illegal' || anyIllegal ? 'illegal' : 'wrong';
  return { sample_verdict, error_verdict: null, url_verdict, method_verdict, endpoint_verdict, arguments: results };
}
