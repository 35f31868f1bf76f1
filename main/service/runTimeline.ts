import type { CompareResult, RunSampleDetail } from '../api/evaluation.js';
import type { CapturedRequest, RequestConfig } from '../api/schemas.js';
import { resolveEndpoint, type ApiSpec } from '../openapi/index.js';
import { carriedValues, READ_METHODS, type Step, type Verdict } from '../scoring/index.js';
import { stepsOf } from '../api/steps.js';
import type { RunInput } from '../store/runs.js';

/**
 * A multi-step output as the inspector and Compare read it (scoring.md §7): each step of the
 * sample as the run took it beside the captured request it took, and the captured requests no
 * step took. Built from what was stored — the verdict's steps, the execution's captured requests,
 * the run input's steps — never by scoring again.
 */

type Timeline = NonNullable<RunSampleDetail['timeline']>;
type TimelineArgument = Timeline['steps'][number]['arguments'][number];

/** A multi-step sample's steps as the run took them (its input's fields); undefined for a single request. */
export const inputSteps = (input: Pick<RunInput, 'fields'> | undefined): readonly Step[] | undefined => stepsOf(input?.fields);

/** Every argument of a verdict, per location, expected vs captured (the inspector's table). */
export function argumentsOf(v: Pick<Verdict, 'arguments'> | null): TimelineArgument[] {
  if (!v) return [];
  const out: TimelineArgument[] = [];
  for (const [location, args] of Object.entries(v.arguments)) {
    for (const [key, a] of Object.entries(args ?? {})) out.push({ location, key, expected: a.expected, actual: a.actual, verdict: a.verdict });
  }
  return out;
}

/** The arguments of a sample's requests: its own, or every step's of a multi-step one. */
export const requestArguments = (v: Verdict | null): TimelineArgument[] => (v?.steps ? v.steps.flatMap((s) => argumentsOf(s.verdict)) : argumentsOf(v));

/** `METHOD /template` of a request in the spec, else `METHOD url`. */
export function endpointLabel(spec: ApiSpec | undefined, config: Pick<RequestConfig, 'url' | 'method'>): string {
  const endpoint = spec ? resolveEndpoint(spec, config.url, config.method).endpoint : undefined;
  return endpoint ? `${endpoint.method.toUpperCase()} ${endpoint.path}` : `${config.method.toUpperCase()} ${config.url}`;
}

/**
 * The timeline of a multi-step output; null when the verdict or the input is not a multi-step
 * one (a single request, or an output that failed to generate). `captured`: the execution's
 * requests in order (the verdict's positions index it).
 */
export function timelineOf(verdict: Verdict | null, steps: readonly Step[] | undefined, captured: readonly CapturedRequest[], spec?: ApiSpec): Timeline | null {
  if (!verdict?.steps || !steps) return null;
  const results = verdict.steps;
  const timelineSteps: Timeline['steps'] = steps.map((step, i) => {
    const result = results[i];
    const requestIndex = result?.request ?? null;
    const request = requestIndex === null ? null : (captured[requestIndex] ?? null);
    const stepVerdict = result?.verdict ?? { sample_verdict: 'nonexecutable' as const, error_verdict: 'no_request' as const, url_verdict: null, method_verdict: null, endpoint_verdict: null, arguments: {} };
    // The scorer's own reading of each carried value (held, sent, correct), so the page and the counts agree.
    const carried = carriedValues(steps, i, request, stepVerdict).map((c) => ({ where: c.where, source: c.source, held: c.held ?? null, sent: c.sent ?? null, correct: c.correct }));
    return {
      expected: step.config,
      ...(spec ? { endpoint: endpointLabel(spec, step.config) } : {}),
      response: { status: step.response?.status ?? 200, ...(step.response?.headers ? { headers: step.response.headers } : {}), ...(step.response?.data !== undefined ? { data: step.response.data } : {}) },
      requestIndex,
      request,
      verdict: { sample_verdict: stepVerdict.sample_verdict, error_verdict: stepVerdict.error_verdict, url_verdict: stepVerdict.url_verdict, method_verdict: stepVerdict.method_verdict, endpoint_verdict: stepVerdict.endpoint_verdict, arguments: stepVerdict.arguments },
      arguments: argumentsOf(stepVerdict),
      carried,
    };
  });
  const extra = (verdict.extra ?? []).flatMap((requestIndex) => {
    const request = captured[requestIndex];
    return request ? [{ requestIndex, request, mutating: !READ_METHODS.has(request.method.toLowerCase()) }] : [];
  });
  return {
    steps: timelineSteps,
    extra,
    counts: {
      steps_total: verdict.steps_total ?? steps.length,
      steps_correct: verdict.steps_correct ?? results.filter((r) => r.verdict.sample_verdict === 'correct').length,
      steps_missing: verdict.steps_missing ?? results.filter((r) => r.request === null).length,
      extra_requests: verdict.extra_requests ?? extra.length,
      first_failed_step: verdict.first_failed_step ?? null,
      carried_correct: verdict.carried_correct ?? timelineSteps.reduce((n, s) => n + s.carried.filter((c) => c.correct).length, 0),
      carried_total: verdict.carried_total ?? timelineSteps.reduce((n, s) => n + s.carried.length, 0),
    },
  };
}

/** A step's verdict as Compare shows it: `missing` when no captured request took it. */
export function stepLabel(step: NonNullable<Verdict['steps']>[number] | undefined): string | null {
  if (!step) return null;
  if (step.request === null) return 'missing';
  const v = step.verdict;
  return v.sample_verdict === 'nonexecutable' && v.error_verdict ? `nonexecutable (${v.error_verdict})` : v.sample_verdict;
}

type Change = CompareResult['rows'][number]['changes'][number];
/** The change from the baseline's verdict to another run's, as Compare counts sample verdicts. */
export function changeOf(baseline: string | null, other: string | null | undefined): Change {
  if (other === undefined) return 'absent';
  return other === baseline ? 'same' : other === 'correct' ? 'fixed' : baseline === 'correct' ? 'regressed' : 'changed';
}

/**
 * Compare's per-step rows of a sample the runs share: for each step (the longest run's steps;
 * a sample edited between the runs may have more in one), its endpoint (`endpoints`: the
 * baseline's steps, `METHOD /template`), each run's step verdict
 * (baseline first; null: the run lacks the sample, or it is not a multi-step sample there) and the
 * change from the baseline's. Undefined when no run has steps there.
 */
export function compareSteps(verdicts: readonly (Verdict | null | undefined)[], endpoints: readonly string[] | undefined): NonNullable<CompareResult['rows'][number]['steps']> | undefined {
  const count = Math.max(0, ...verdicts.map((v) => v?.steps?.length ?? 0));
  if (count === 0) return undefined;
  return Array.from({ length: count }, (_, i) => {
    const labels = verdicts.map((v) => (v?.steps ? stepLabel(v.steps[i]) : null));
    return {
      step: i,
      endpoint: endpoints?.[i] ?? '',
      verdicts: labels,
      changes: labels.slice(1).map((l, r) => (verdicts[r + 1] === undefined ? 'absent' : changeOf(labels[0]!, l))),
    };
  });
}
