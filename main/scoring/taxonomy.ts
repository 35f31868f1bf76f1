import { FAILURE_CLASSES } from '../api/constants.js';
import type { CapturedRequest, JsonValue, RequestConfig } from '../api/schemas.js';
import { compareRequest } from './compare.js';
import { resolveEndpoint, type ApiSpec, type ArgumentLocation, type Endpoint } from '../openapi/index.js';
import { READ_METHODS } from './steps.js';
import type { Verdict } from './verdicts.js';

/**
 * Why an output failed, in classes a user can act on (NovelAPIBench's diagnostic labels for web
 * APIs). Derived deterministically from the verdicts; a sample may carry several.
 */
export { FAILURE_CLASSES };
export type FailureClass = (typeof FAILURE_CLASSES)[number];

/** How a sandbox run ended with an error (main/execution's ExecutionErrorKind; memory and crashed count as runtime errors). */
export type ExecutionFailure = 'syntax' | 'exception' | 'timeout' | 'memory' | 'crashed';

const jsonType = (v: JsonValue | null): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** Whether the spec requires an argument of the expected endpoint (path parameters always are). */
function isRequired(endpoint: Endpoint | undefined, location: ArgumentLocation, key: string): boolean {
  if (location === 'path_params') return true;
  if (!endpoint) return false;
  if (location === 'data') return endpoint.requestBody?.contents.some((c) => c.properties.some((p) => p.name === key && p.required)) ?? false;
  const where = location === 'params' ? 'query' : 'header';
  return endpoint.parameters.some((p) => p.in === where && p.required && (where === 'header' ? p.name.toLowerCase() === key.toLowerCase() : p.name === key));
}

/**
 * The failure classes of one scored output, in FAILURE_CLASSES order; none for a correct one. A
 * multi-step output that sent something has its first failing step's (or `skipped_step`) and
 * `extra_request` where it sent a mutating request no step took.
 *
 * Nonexecutable outputs get exactly one class from their error verdict: `runtime_error` splits by
 * how the sandbox run ended (`syntax_error`, `timeout`, else `runtime_error`; a run that ended
 * without error but sent no request is `no_request`). Executable outputs get a class per kind of
 * mistake: URL and method from their verdicts (`illegal` → hallucinated / illegal, `wrong` →
 * wrong), arguments from theirs (`missing` split by whether the spec requires the argument,
 * `incorrect_value` by whether the value has the expected JSON type: `"50"` for `50` is
 * `wrong_value_type`).
 */
export function classifyFailure(input: {
  verdict: Verdict;
  spec: ApiSpec;
  expected: RequestConfig;
  executionError?: ExecutionFailure | undefined;
  /** A multi-step sample's expected requests, by step, and the program's captured requests, in order (scoring.md §7). */
  steps?: { readonly expected: readonly RequestConfig[]; readonly captured: readonly CapturedRequest[] } | undefined;
}): FailureClass[] {
  const { verdict } = input;
  if (verdict.sample_verdict === 'correct') return [];
  // A multi-step sample that sent something: its first failing step's classes (`skipped_step` where no request took it), and `extra_request` for a mutating request no step took.
  if (verdict.steps && verdict.sample_verdict !== 'nonexecutable') {
    const found = new Set<FailureClass>();
    const first = verdict.first_failed_step;
    const step = first === null || first === undefined ? undefined : verdict.steps[first];
    if (step && step.request === null) found.add('skipped_step');
    else if (step && input.steps?.expected[first!]) for (const c of classifyFailure({ verdict: step.verdict, spec: input.spec, expected: input.steps.expected[first!]! })) found.add(c);
    const extras = (verdict.extra ?? []).flatMap((i) => (input.steps?.captured[i] ? [input.steps.captured[i]!] : []));
    if (extras.some((r) => !READ_METHODS.has(r.method.toLowerCase()))) found.add('extra_request');
    // An extra request illegal on its own (§4 against its own endpoint) says how: an unknown path, method or argument.
    for (const r of extras) {
      const classes = classifyFailure({ verdict: compareRequest(input.spec, { url: r.url, method: r.method }, r), spec: input.spec, expected: { url: r.url, method: r.method } });
      // Where the path or method is unknown, its arguments have nothing to be legal against: the path or method is the mistake.
      const where = classes.filter((c) => c === 'hallucinated_endpoint' || c === 'illegal_method');
      for (const c of where.length > 0 ? where : classes.filter((c) => c === 'illegal_argument')) found.add(c);
    }
    return FAILURE_CLASSES.filter((c) => found.has(c));
  }
  if (verdict.sample_verdict === 'nonexecutable') {
    switch (verdict.error_verdict) {
      case 'timeout':
        return ['timeout'];
      case 'unsatisfiable':
        return ['unsatisfiable'];
      case 'no_request':
        return ['no_request'];
      case 'incomplete_request':
        return ['incomplete'];
      default:
        if (input.executionError === 'syntax') return ['syntax_error'];
        if (input.executionError === 'timeout') return ['timeout'];
        return input.executionError === undefined ? ['no_request'] : ['runtime_error'];
    }
  }
  const found = new Set<FailureClass>();
  if (verdict.url_verdict === 'illegal') found.add('hallucinated_endpoint');
  if (verdict.url_verdict === 'wrong') found.add('wrong_endpoint');
  if (verdict.method_verdict === 'illegal') found.add('illegal_method');
  if (verdict.method_verdict === 'wrong') found.add('wrong_method');
  const endpoint = resolveEndpoint(input.spec, input.expected.url, input.expected.method).endpoint;
  for (const [location, args] of Object.entries(verdict.arguments) as [ArgumentLocation, Verdict['arguments'][ArgumentLocation]][]) {
    for (const [key, r] of Object.entries(args ?? {})) {
      if (r.verdict === 'missing') found.add(isRequired(endpoint, location, key) ? 'missing_required_argument' : 'missing_argument');
      else if (r.verdict === 'illegal') found.add('illegal_argument');
      else if (r.verdict === 'unnecessary') found.add('unnecessary_argument');
      else if (r.verdict === 'incorrect_value') found.add(jsonType(r.actual) === jsonType(r.expected) ? 'wrong_value' : 'wrong_value_type');
    }
  }
  return FAILURE_CLASSES.filter((c) => found.has(c));
}

export type FailureCounts = Record<FailureClass, number>;

/** How many outputs carry each class, for the run and per API (APIs in name order). */
export function countFailures(items: readonly { readonly api: string; readonly failures: readonly FailureClass[] }[]): { counts: FailureCounts; per_api: Record<string, FailureCounts> } {
  const count = (list: typeof items): FailureCounts => {
    const out = Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 0])) as FailureCounts;
    for (const item of list) for (const c of item.failures) out[c]++;
    return out;
  };
  const per_api: Record<string, FailureCounts> = {};
  for (const api of [...new Set(items.map((i) => i.api))].sort()) per_api[api] = count(items.filter((i) => i.api === api));
  return { counts: count(items), per_api };
}
