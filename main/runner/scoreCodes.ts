import type { RequestConfig } from '../api/schemas.js';
import type { Sandbox } from '../execution/index.js';
import type { ApiSpec } from '../openapi/index.js';
import { computeStatistics, type CompatMode, type Statistics } from '../scoring/index.js';
import { evaluateCode, type CodeEvaluation } from './evaluate.js';

export interface CodeSample {
  /** Position in the dataset file; codes are named after it. */
  readonly index: number;
  readonly api: string;
  readonly config: RequestConfig;
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

/** Scores one program per sample and aggregates the statistics for the run and per API. */
export function scoreCodes(input: {
  samples: readonly CodeSample[];
  codes: ReadonlyMap<number, string>;
  specs: ReadonlyMap<string, ApiSpec>;
  sandbox: Sandbox;
  compat?: CompatMode;
  onProgress?: (done: number, total: number) => void;
}): CodeScores {
  const scored: ScoredCode[] = [];
  const todo = input.samples.filter((s) => input.codes.has(s.index));
  for (const [i, sample] of todo.entries()) {
    const spec = input.specs.get(sample.api);
    if (!spec) throw new Error(`bug: no spec for ${sample.api}`);
    const code = input.codes.get(sample.index) ?? '';
    scored.push({ index: sample.index, api: sample.api, code, evaluation: evaluateCode(code, sample.config, spec, input.sandbox, input.compat ?? 'default') });
    input.onProgress?.(i + 1, todo.length);
  }
  const perApi: Record<string, Statistics> = {};
  for (const api of [...new Set(scored.map((s) => s.api))].sort()) {
    perApi[api] = computeStatistics(scored.filter((s) => s.api === api).map((s) => s.evaluation.verdict));
  }
  return { samples: scored, statistics: computeStatistics(scored.map((s) => s.evaluation.verdict)), perApi };
}
