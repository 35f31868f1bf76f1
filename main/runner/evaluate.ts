import type { RequestConfig } from '../api/schemas.js';
export { stepsOf } from '../api/steps.js';
import type { Setup } from '../api/setup.js';
import { extractInvocation, normalizeCaptured, type CapturedRequest, type CutRule, type Execution, type Executor, type RunRule, type Stub } from '../execution/index.js';
import { endpointUrlPattern, escapeRegExp, type ApiSpec } from '../openapi/index.js';
import { compareRequest, expectedOnly, scoreSteps, type CompatMode, type ErrorVerdict, type Step, type StepsVerdict, type Verdict } from '../scoring/index.js';

/** Everything that happened to one generated program on its way to a verdict. */
export interface CodeEvaluation {
  readonly verdict: Verdict;
  /**
   * Which extraction rule cut the call and which program ran it (see RunRule), or why nothing
   * could be extracted; a multi-step sample's program is not cut (`whole program`).
   */
  readonly extraction: { readonly rule: CutRule | 'whole program'; readonly call: string; readonly runs: RunRule } | { readonly error: string };
  /** `captured`: a multi-step sample's every request, normalised, in order (its verdict's steps point into it). */
  readonly execution?: Pick<Execution, 'console' | 'error' | 'durationMs'> & { readonly requests: number; readonly captured?: readonly CapturedRequest[] };
  /** The request scored (a multi-step sample's first). */
  readonly request?: CapturedRequest;
}

/** Markers the reference appends to code whose constrained generation failed. */
const GENERATION_MARKERS: readonly [string, ErrorVerdict][] = [
  ['//timeout', 'timeout'],
  ['//unsatisfiable_constraints', 'unsatisfiable'],
  ['//unsatisfiable', 'unsatisfiable'],
];

/**
 * Extract → execute → normalise → compare, for one program (scoring.md §2–§4). `default` runs
 * the program as written up to the cut (the call alone where that does not parse; a sample's own
 * starter: upstream's real-world pipeline); `reference` runs only the extracted call after an import.
 * `setup` says where the call starts and what a call run alone runs after (none: the fixed starter).
 */
export async function evaluateCode(text: string, expected: RequestConfig, spec: ApiSpec, executor: Pick<Executor, 'run'>, compat: CompatMode = 'default', setup?: Setup): Promise<CodeEvaluation> {
  const ended = generationError(text);
  if (ended) return { verdict: expectedOnly(spec, expected, ended), extraction: { error: `generation ended in ${ended}` } };
  const extraction = extractInvocation(text, setup, compat);
  if (extraction.status !== 'ok') return { verdict: expectedOnly(spec, expected, extraction.status), extraction: { error: extraction.message } };
  const run = await executor.run(extraction.program, { compat });
  const execution = { console: run.console, durationMs: run.durationMs, requests: run.requests.length, ...(run.error ? { error: run.error } : {}) };
  const first = run.requests[0];
  const cut = { rule: extraction.rule, call: extraction.call, runs: extraction.runs };
  if (run.error || !first) return { verdict: expectedOnly(spec, expected, 'runtime_error'), extraction: cut, execution };
  // A request the transport would refuse, or one past the host's limits, is the program's error, not the run's.
  const normalized = normalizeCaptured(first, compat);
  if (!normalized.ok) return { verdict: expectedOnly(spec, expected, 'runtime_error'), extraction: cut, execution: { ...execution, error: { kind: 'exception', message: normalized.message } } };
  const request = normalized.request;
  return { verdict: compareRequest(spec, expected, request, compat), extraction: cut, execution, request };
}

/** How constrained generation failed, where the program ends in one of the reference's markers. */
function generationError(text: string): ErrorVerdict | undefined {
  const end = text.trimEnd();
  return GENERATION_MARKERS.find(([marker]) => end.endsWith(marker))?.[1];
}

/**
 * A multi-step sample's program evaluated as any program is (see evaluateCode): run whole, scored
 * against its steps (scoring.md §7). Its verdict carries the steps' verdicts and counts, and its
 * execution every request captured; a generation that failed scores every step missing.
 */
export async function evaluateStepsCode(text: string, steps: readonly Step[], spec: ApiSpec, executor: Pick<Executor, 'run'>, compat: CompatMode = 'default'): Promise<CodeEvaluation> {
  const ended = generationError(text);
  if (ended) return { verdict: stepsVerdict(scoreSteps(spec, steps, [], ended, compat)), extraction: { error: `generation ended in ${ended}` } };
  const { verdict, execution, requests } = await evaluateSteps(text, steps, spec, executor, compat);
  const captured = requests.flatMap((r) => (r.ok ? [r.request] : []));
  return { verdict: stepsVerdict(verdict), extraction: { rule: 'whole program', call: '', runs: 'as-written' }, execution: { ...execution, captured }, ...(captured[0] ? { request: captured[0] } : {}) };
}

/** A multi-step verdict in a single sample's shape: its own URL, method and endpoint verdicts are its steps'. */
const stepsVerdict = (verdict: StepsVerdict): Verdict => ({ ...verdict, url_verdict: null, method_verdict: null, endpoint_verdict: null, arguments: {} });

/** Everything that happened to one program of a multi-step sample (scoring.md §7). */
export interface StepsEvaluation {
  readonly verdict: StepsVerdict;
  readonly execution: Pick<Execution, 'console' | 'error' | 'durationMs'> & { readonly requests: number };
  /** Every request it sent, in order, as normalised (a refused one: its reason). */
  readonly requests: readonly ({ readonly ok: true; readonly request: CapturedRequest } | { readonly ok: false; readonly message: string })[];
}

/** What the API answers each step's request, for the sandbox: its method, a pattern of its URL's path template on its server, its stubbed response. */
export function stubsOf(spec: ApiSpec, steps: readonly Step[]): Stub[] {
  return steps.map((step) => {
    // The spec's own pattern of the step's endpoint; a step whose URL the spec does not hold (a check finding) is matched by its URL as written.
    const url = endpointUrlPattern(spec, step.config.url, step.config.params)?.source ?? `^${escapeRegExp(step.config.url.split('?')[0]!)}$`;
    const response: NonNullable<Step['response']> = step.response ?? { status: 200, data: {} };
    return { method: step.config.method, url, status: response.status, ...(response.headers ? { headers: Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k, String(v)])) } : {}), body: JSON.stringify(response.data ?? {}) };
  });
}

/**
 * Runs a multi-step sample's program whole (no cut: scoring.md §7), each request answered from
 * its steps' stubbed responses, and scores every request it sent against the steps.
 */
export async function evaluateSteps(text: string, steps: readonly Step[], spec: ApiSpec, executor: Pick<Executor, 'run'>, compat: CompatMode = 'default'): Promise<StepsEvaluation> {
  const run = await executor.run(text, { compat, stubs: stubsOf(spec, steps) });
  const requests = run.requests.map((raw) => normalizeCaptured(raw, compat));
  const captured = requests.flatMap((r) => (r.ok ? [r.request] : []));
  // A request the transport refused (past the host's limits) is the program's error, as for a single request (§3).
  const error: ErrorVerdict | undefined = run.error ? (run.error.kind === 'timeout' ? 'timeout' : 'runtime_error') : requests.some((r) => !r.ok) ? 'runtime_error' : undefined;
  return {
    verdict: scoreSteps(spec, steps, captured, error, compat),
    execution: { console: run.console, durationMs: run.durationMs, requests: run.requests.length, ...(run.error ? { error: run.error } : {}) },
    requests: requests.map((r) => (r.ok ? { ok: true as const, request: r.request } : { ok: false as const, message: r.message })),
  };
}
