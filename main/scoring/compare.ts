import { isDeepStrictEqual } from 'node:util';
import type { CapturedRequest, JsonValue, RequestConfig } from '../api/schemas.js';
import { ARGUMENT_LOCATIONS, findEndpoint, isPermitted, methodsAt, pathCandidates, type ApiSpec, type ArgumentLocation, type Endpoint } from '../openapi/index.js';
import type { ArgumentResult, ArgumentResults, CompatMode, ErrorVerdict, PartVerdict, Verdict } from './verdicts.js';

/** Axios sends these on every request; they are never counted (scoring.md §4). */
const SPECIAL_HEADERS = new Set(['accept', 'content-type']);
const isRecord = (v: unknown): v is Record<string, JsonValue> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Located {
  readonly templatePath: string | undefined;
  readonly pathParams: Record<string, JsonValue>;
}

function locate(spec: ApiSpec, url: string): Located {
  const first = pathCandidates(spec, url)[0];
  return { templatePath: first?.template.path, pathParams: { ...(first?.pathParams ?? {}) } };
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

const counted = (location: ArgumentLocation, key: string): boolean => !(location === 'headers' && SPECIAL_HEADERS.has(key.toLowerCase()));

/** Finds a key: headers case-insensitively (HTTP semantics), except in reference mode, which compared exactly. */
function lookup(args: Record<string, JsonValue>, location: ArgumentLocation, key: string, compat: CompatMode): string | undefined {
  if (Object.hasOwn(args, key)) return key;
  if (location !== 'headers' || compat === 'reference') return undefined;
  return Object.keys(args).find((k) => k.toLowerCase() === key.toLowerCase());
}

/** Expected arguments per location, each `missing`: how a nonexecutable sample counts (all-missing). */
export function expectedOnly(spec: ApiSpec, expected: RequestConfig, error: ErrorVerdict): Verdict {
  const args = argumentsOf(expected, locate(spec, expected.url).pathParams);
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
  const expectedAt = locate(spec, expected.url);
  const actualCandidates = pathCandidates(spec, actual.url);
  const actualAt: Located = { templatePath: actualCandidates[0]?.template.path, pathParams: { ...(actualCandidates[0]?.pathParams ?? {}) } };
  const expectedMethod = expected.method.toLowerCase();
  const actualMethod = actual.method.toLowerCase();

  const url_verdict: PartVerdict =
    expectedAt.templatePath !== undefined && actualCandidates.some((c) => c.template.path === expectedAt.templatePath) ? 'correct' : actualCandidates.length === 0 ? 'illegal' : 'wrong';
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
      if (!counted(location, key)) continue;
      const actualKey = lookup(got[location], location, key, compat);
      if (actualKey === undefined) setResult(out, key, { expected: value, actual: null, verdict: 'missing' });
      else {
        matched.add(actualKey);
        const actualValue = got[location][actualKey] ?? null;
        setResult(out, key, { expected: value, actual: actualValue, verdict: isDeepStrictEqual(actualValue, value) ? 'correct' : 'incorrect_value' });
      }
    }
    for (const [key, value] of Object.entries(got[location])) {
      if (matched.has(key) || !counted(location, key)) continue;
      const legal = judge !== undefined && isPermitted(spec, judge, location, key);
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
