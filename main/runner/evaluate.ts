import type { RequestConfig } from '../api/schemas.js';
import type { Setup } from '../api/setup.js';
import { extractInvocation, normalizeCaptured, type CapturedRequest, type CutRule, type Execution, type Executor, type RunRule } from '../execution/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { compareRequest, expectedOnly, type CompatMode, type ErrorVerdict, type Verdict } from '../scoring/index.js';

/** Everything that happened to one generated program on its way to a verdict. */
export interface CodeEvaluation {
  readonly verdict: Verdict;
  /** Which extraction rule cut the call and which program ran it (see RunRule), or why nothing could be extracted. */
  readonly extraction: { readonly rule: CutRule; readonly call: string; readonly runs: RunRule } | { readonly error: string };
  readonly execution?: Pick<Execution, 'console' | 'error' | 'durationMs'> & { readonly requests: number };
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
  for (const [marker, error] of GENERATION_MARKERS) {
    if (text.trimEnd().endsWith(marker)) return { verdict: expectedOnly(spec, expected, error), extraction: { error: `generation ended in ${error}` } };
  }
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
