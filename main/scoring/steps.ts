import { clientProfile } from '../api/clients.js';
import { carriedSource, requestValueAt, valueAtPointer } from '../api/steps.js';
import type { CapturedRequest, JsonValue, RequestConfig } from '../api/schemas.js';
import { methodsAt, pathCandidates, type ApiSpec } from '../openapi/index.js';
import { compareRequest, expectedOnly } from './compare.js';
import type { CompatMode, ErrorVerdict, SampleVerdict, StepCounts, StepResult, Verdict } from './verdicts.js';

/** One step of a multi-step sample (scoring.md §7): the request it expects, what the API answers, and the values it carries from earlier answers. */
export interface Step {
  readonly config: RequestConfig;
  readonly response?: { readonly status: number; readonly headers?: Record<string, JsonValue> | undefined; readonly data?: JsonValue | undefined } | undefined;
  /** `<location>.<key path>` in this step's config → `<earlier step index>:<JSON pointer into that step's response>`. */
  readonly carried?: Readonly<Record<string, string>> | undefined;
}

/** A multi-step sample's verdicts: the sample's (§4's names) and its steps' (§7). */
export interface StepsVerdict extends StepCounts {
  readonly sample_verdict: SampleVerdict;
  readonly error_verdict: ErrorVerdict | null;
}

/** A request's path template in the spec, or undefined when its URL matches no path. */
const templateOf = (spec: ApiSpec, url: string, params: Readonly<Record<string, unknown>> | undefined): string | undefined => pathCandidates(spec, url, params ?? {})[0]?.template.path;

/** What a read may repeat and an extra request may be without making the sample wrong. */
export const READ_METHODS: ReadonlySet<string> = new Set(['get', 'head']);

/**
 * Whether a request that took no step is illegal by §4, against its own matched endpoint: its URL
 * matches no path of the spec, its method is not defined there, or an argument is not permitted
 * there.
 */
function illegalAlone(spec: ApiSpec, request: CapturedRequest, compat: CompatMode): boolean {
  const template = templateOf(spec, request.url, request.params);
  if (template === undefined || !methodsAt(spec, template).includes(request.method.toLowerCase() as never)) return true;
  // Against its own URL and method with no argument expected, each argument it sent is unnecessary where the endpoint permits it, illegal where not.
  return compareRequest(spec, { url: request.url, method: request.method }, request, compat).sample_verdict === 'illegal';
}

/** What the captured request sent at `<location>.<key path>` (`data.channel`, `params.project`, `path_params.task_gid`). */
function sentAt(request: CapturedRequest, verdict: Verdict, where: string): JsonValue | undefined {
  const [location, ...path] = where.split('.');
  // A path parameter's value is where the URL had it, as the comparison located it.
  if (location === 'path_params') return verdict.arguments.path_params?.[path.join('.')]?.actual ?? undefined;
  // Header names are case-insensitive, as the comparison reads them.
  if (location === 'headers' && path.length > 0) {
    const name = Object.keys(request.headers).find((k) => k.toLowerCase() === path[0]!.toLowerCase());
    return name === undefined ? undefined : requestValueAt({ headers: { [path[0]!]: request.headers[name]! } }, where);
  }
  return requestValueAt(request, where);
}

const sameJson = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);

/** A path parameter is text in the URL: an integer ID the response held (`77`) is sent as `"77"`. */
const sameText = (a: JsonValue | undefined, b: JsonValue | undefined): boolean => a !== undefined && b !== undefined && a !== null && b !== null && typeof a !== 'object' && typeof b !== 'object' && String(a) === String(b);

/** One carried value of a step: where it goes, where it comes from, what the earlier response held there and what the program sent. */
export interface CarriedValue {
  readonly where: string;
  readonly source: string;
  readonly held: JsonValue | undefined;
  readonly sent: JsonValue | undefined;
  readonly correct: boolean;
}

/**
 * Step i's carried values against what its request sent (`request` null: the step is missing, so
 * none is sent): correct when the program sent what the earlier response held, guessed or not; a
 * path parameter, text in the URL, compared as text.
 */
export function carriedValues(steps: readonly Step[], i: number, request: CapturedRequest | null, verdict: Verdict): CarriedValue[] {
  return Object.entries(steps[i]?.carried ?? {}).map(([where, source]) => {
    const { step: earlier, pointer } = carriedSource(source);
    const from = steps[earlier];
    const held = from?.response ? valueAtPointer(from.response as unknown as JsonValue, pointer) : undefined;
    const sent = request === null ? undefined : sentAt(request, verdict, where);
    // Text where the request can only send text: a path segment, a fetch program's query (scoring.md §2).
    const asText = where.startsWith('path_params.') || (where.startsWith('params.') && request !== null && clientProfile(request.client).queryAsText);
    const correct = request !== null && (asText ? sameText(sent, held) : sameJson(sent, held));
    return { where, source, held, sent, correct };
  });
}

/**
 * Scores what a program sent against a multi-step sample (scoring.md §7). Steps take captured
 * requests in order: step i the first request after the last one an earlier step took whose
 * method and path template are the step's; a step with none is missing, and the next step
 * searches from the same place. A request whose URL matches no path takes no step; requests no
 * step took are extra. `error`: how the program ended when it did not end normally (a timeout, a
 * runtime error); it decides the verdict only when nothing was captured.
 */
export function scoreSteps(spec: ApiSpec, steps: readonly Step[], captured: readonly CapturedRequest[], error?: ErrorVerdict, compat: CompatMode = 'default'): StepsVerdict {
  const templates = captured.map((r) => templateOf(spec, r.url, r.params));
  const results: StepResult[] = [];
  const taken = new Set<number>();
  let from = 0;
  for (const step of steps) {
    const wanted = templateOf(spec, step.config.url, step.config.params);
    const method = step.config.method.toLowerCase();
    let at = -1;
    for (let i = from; i < captured.length; i++) {
      if (templates[i] !== undefined && templates[i] === wanted && captured[i]!.method.toLowerCase() === method) {
        at = i;
        break;
      }
    }
    if (at < 0) {
      results.push({ request: null, verdict: expectedOnly(spec, step.config, 'no_request') });
      continue;
    }
    taken.add(at);
    from = at + 1;
    results.push({ request: at, verdict: compareRequest(spec, step.config, captured[at]!, compat) });
  }
  const extra = captured.map((_, i) => i).filter((i) => !taken.has(i));

  const carried = steps.flatMap((_, i) => carriedValues(steps, i, results[i]!.request === null ? null : captured[results[i]!.request!]!, results[i]!.verdict));
  const carriedTotal = carried.length;
  const carriedCorrect = carried.filter((c) => c.correct).length;

  const stepsCorrect = results.filter((r) => r.verdict.sample_verdict === 'correct').length;
  const missing = results.filter((r) => r.request === null).length;
  const firstFailed = results.findIndex((r) => r.verdict.sample_verdict !== 'correct');
  const counts = { steps: results, steps_total: steps.length, steps_correct: stepsCorrect, steps_missing: missing, extra, extra_requests: extra.length, first_failed_step: firstFailed < 0 ? null : firstFailed, carried_correct: carriedCorrect, carried_total: carriedTotal };
  if (captured.length === 0) return { sample_verdict: 'nonexecutable', error_verdict: error ?? 'no_request', ...counts };
  const illegal = results.some((r) => r.verdict.sample_verdict === 'illegal') || extra.some((i) => illegalAlone(spec, captured[i]!, compat));
  const correct = missing === 0 && stepsCorrect === steps.length && extra.every((i) => READ_METHODS.has(captured[i]!.method.toLowerCase()));
  return { sample_verdict: illegal ? 'illegal' : correct ? 'correct' : 'wrong', error_verdict: null, ...counts };
}
