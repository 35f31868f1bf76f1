import { DEFAULT_CLIENT } from '../api/clients.js';
import type { RequestConfig, SampleFields } from '../api/schemas.js';
import type { HttpClient } from '../api/setup.js';
import type { Executor } from '../execution/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { setupFor, setupSampleOf } from '../prompt/index.js';
import { statisticsPerApi, type CompatMode, type Statistics } from '../scoring/index.js';
import { evaluateCode, evaluateStepsCode, stepsOf, type CodeEvaluation } from './evaluate.js';

export interface CodeSample {
  /** Position in the dataset file; codes are named after it. */
  readonly index: number;
  readonly api: string;
  readonly config: RequestConfig;
  readonly task?: string;
  /** The sample's other fields: with its own starter code, its code is read and run as upstream's real-world pipeline does (see Setup). */
  readonly fields?: SampleFields;
}

export interface ScoredCode {
  readonly index: number;
  readonly api: string;
  readonly code: string;
  readonly evaluation: CodeEvaluation;
}

export interface CodeScores {
  readonly samples: readonly ScoredCode[];
  readonly statistics: Statistics;
  readonly perApi: Readonly<Record<string, Statistics>>;
}

/**
 * Scores one program per sample (as many at once as the executor has sandboxes) and aggregates
 * the statistics for the run and per API. Results keep the samples' order.
 */
export async function scoreCodes(input: {
  samples: readonly CodeSample[];
  codes: ReadonlyMap<number, string>;
  specs: ReadonlyMap<string, ApiSpec>;
  executor: Pick<Executor, 'run' | 'size'>;
  compat?: CompatMode;
  /** The client the programs' setup calls (default axios); with `fetch`, extraction looks for `fetch(` too. */
  client?: HttpClient;
  onProgress?: (done: number, total: number) => void;
}): Promise<CodeScores> {
  const todo = input.samples.filter((s) => input.codes.has(s.index));
  let done = 0;
  const scored: ScoredCode[] = await Promise.all(
    todo.map(async (sample) => {
      const spec = input.specs.get(sample.api);
      if (!spec) throw new Error(`bug: no spec for ${sample.api}`);
      const code = input.codes.get(sample.index) ?? '';
      // Code files of the fixed starter are read as they always were (the call searched from the start).
      const client = input.client ?? DEFAULT_CLIENT;
      const own = setupSampleOf({ ...sample, task: sample.task ?? '' });
      const setup = own.starter_code === undefined && client === DEFAULT_CLIENT ? undefined : setupFor(own, 'full', { client });
      const steps = stepsOf(sample.fields);
      const evaluation = steps ? await evaluateStepsCode(code, steps, spec, input.executor, input.compat ?? 'default') : await evaluateCode(code, sample.config, spec, input.executor, input.compat ?? 'default', setup);
      input.onProgress?.(++done, todo.length);
      return { index: sample.index, api: sample.api, code, evaluation };
    }),
  );
  return { samples: scored, ...statisticsPerApi(scored.map((s) => ({ api: s.api, verdict: s.evaluation.verdict }))) };
}
