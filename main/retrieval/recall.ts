import type { RequestConfig } from '../api/schemas.js';
import { resolveEndpoint, type ApiSpec, type Endpoint } from '../openapi/index.js';
import { EndpointIndex, TUNED_BM25, type RetrievalConfig } from './endpointIndex.js';

export const RECALL_CUTOFFS = [1, 5, 10] as const;
export type Recall = Record<'1' | '5' | '10', number>;

export interface RetrievalSample {
  readonly index: number;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
}

export interface SampleRank {
  readonly index: number;
  readonly api: string;
  /** 1-based rank of the expected endpoint; null when retrieval did not return it (or its URL names none). */
  readonly rank: number | null;
}

export interface RecallReport {
  readonly retriever: string;
  readonly recall: Recall;
  readonly per_api: Record<string, Recall & { samples: number }>;
  readonly samples: SampleRank[];
}

/** The endpoint a sample's expected request calls, as the scorer resolves it. */
export function expectedEndpoint(spec: ApiSpec, config: RequestConfig): Endpoint | undefined {
  return resolveEndpoint(spec, config.url, config.method).endpoint;
}

/** 1-based position of `expected` in `ranking`, else null. */
export function rankOf(ranking: readonly Endpoint[], expected: Endpoint | undefined): number | null {
  if (!expected) return null;
  const i = ranking.findIndex((e) => e.method === expected.method && e.path === expected.path);
  return i < 0 ? null : i + 1;
}

function recallOf(ranks: readonly SampleRank[]): Recall {
  const at = (k: number): number => (ranks.length === 0 ? 0 : ranks.filter((r) => r.rank !== null && r.rank <= k).length / ranks.length);
  return { '1': at(1), '5': at(5), '10': at(10) };
}

/**
 * Ranks each sample's expected endpoint among its own API's endpoints, retrieved from the task
 * text alone (the expected request never enters the query), and summarises recall@1/5/10.
 */
export function measureRecall(samples: readonly RetrievalSample[], specs: ReadonlyMap<string, ApiSpec>, config: RetrievalConfig = TUNED_BM25): RecallReport {
  const indexes = new Map<string, EndpointIndex>();
  const ranks = samples.map((s): SampleRank => {
    const spec = specs.get(s.api);
    if (!spec) throw new Error(`bug: no spec for ${s.api}`);
    let index = indexes.get(s.api);
    if (!index) indexes.set(s.api, (index = new EndpointIndex(spec, config)));
    const ranking = index.rank(s.task).map((r) => r.endpoint);
    return { index: s.index, api: s.api, rank: rankOf(ranking, expectedEndpoint(spec, s.config)) };
  });
  const apis = [...new Set(samples.map((s) => s.api))].sort();
  const per_api = Object.fromEntries(
    apis.map((api) => {
      const own = ranks.filter((r) => r.api === api);
      return [api, { ...recallOf(own), samples: own.length }];
    }),
  );
  return { retriever: config.name, recall: recallOf(ranks), per_api, samples: ranks };
}
