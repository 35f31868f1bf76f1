import type { CapturedRequest } from '../api/schemas.js';
import type { RunFailures } from '../api/evaluation.js';
import type { ApiSpec } from '../openapi/index.js';
import { classifyFailure, countFailures, type ExecutionFailure, type FailureClass, type Verdict } from '../scoring/index.js';
import type { OutputRow, RunInput } from '../store/runs.js';
import { stepsOf } from '../api/steps.js';

/** One output's failure classes as the result pages show them, and what to store for it when it had none stored. */
export interface OutputFailures {
  /** In force (an override applied); null when the output cannot be classified (no snapshot or spec to read the expected endpoint from). */
  readonly failures: FailureClass[] | null;
  /** The scorer's classes, computed now for an output stored before they were (to be written back). */
  readonly backfill?: FailureClass[];
}

/**
 * The failure classes of a stored output. The store keeps those of the scorer's verdict (written
 * when the output is scored); an override re-classifies the verdict in force, so a sample a
 * reviewer marks correct carries none, and one marked wrong keeps what its parts say.
 */
export function outputFailures(o: OutputRow, scorer: Verdict | null, inForce: Verdict | null, overridden: boolean, input: RunInput | undefined, spec: ApiSpec | undefined): OutputFailures {
  if (!scorer || !inForce) return { failures: [] };
  const classify = (verdict: Verdict): FailureClass[] | null => {
    if (verdict.sample_verdict === 'correct') return [];
    if (!input || !spec) return null;
    return storedFailureClasses(verdict, o.execution === null ? undefined : JSON.parse(o.execution), spec, input);
  };
  const stored = o.failures === null ? null : (JSON.parse(o.failures) as FailureClass[]);
  const scorerClasses = stored ?? classify(scorer);
  const backfill = stored === null && scorerClasses !== null ? { backfill: scorerClasses } : {};
  return { failures: overridden ? classify(inForce) : scorerClasses, ...backfill };
}

/** A stored output's failure classes from its verdict and execution record (a multi-step sample's read its steps and the requests it sent). */
export function storedFailureClasses(verdict: Verdict, execution: unknown, spec: ApiSpec, sample: Pick<RunInput, 'config' | 'fields'>): FailureClass[] {
  const record = (execution ?? {}) as { error?: { kind: ExecutionFailure }; captured?: CapturedRequest[] };
  const steps = stepsOf(sample.fields);
  return classifyFailure({ verdict, spec, expected: sample.config, executionError: record.error?.kind, ...(steps ? { steps: { expected: steps.map((s) => s.config), captured: record.captured ?? [] } } : {}) });
}

/** Counts per class for the run and per API; unclassified outputs counted apart. */
export function runFailures(outputs: readonly { readonly api: string; readonly failures: readonly FailureClass[] | null }[]): RunFailures {
  const classified = outputs.filter((o): o is { api: string; failures: readonly FailureClass[] } => o.failures !== null);
  return { ...countFailures(classified), unclassified: outputs.length - classified.length };
}
