import MiniSearch from 'minisearch';
import type { ApiSpec, Endpoint, HttpMethod } from '../openapi/index.js';
import { identifiedEntities, pathParameterCoverage } from './identified.js';
import { terms } from './terms.js';

/** The fields an endpoint is indexed under. */
export type EndpointField = 'method' | 'path' | 'operationId' | 'summary' | 'description' | 'parameters';
export const ENDPOINT_FIELDS: readonly EndpointField[] = ['method', 'path', 'operationId', 'summary', 'description', 'parameters'];

export interface RetrievalConfig {
  readonly name: string;
  /** `code`: identifiers split, stopwords dropped, stemmed (terms.ts); `plain`: MiniSearch's own word split, lower-cased. */
  readonly analyzer: 'code' | 'plain';
  readonly boost: Readonly<Partial<Record<EndpointField, number>>>;
  readonly bm25: { readonly k: number; readonly b: number; readonly d: number };
  /** Index the HTTP method as the verbs tasks use for it ("list", "create", "remove"...). */
  readonly methodVerbs: boolean;
  /**
   * Rescoring by path parameters (identified.ts): each path parameter whose entity the task
   * names by identifier adds `matched`, each other one subtracts `unmatched`, in units of the
   * best BM25 score. Zero for both leaves BM25's order.
   */
  readonly pathParameters: { readonly matched: number; readonly unmatched: number };
}

/** MiniSearch's defaults over every field, unboosted: the baseline the tuned index is measured against. */
export const PLAIN_BM25: RetrievalConfig = {
  name: 'plain BM25',
  analyzer: 'plain',
  boost: {},
  bm25: { k: 1.2, b: 0.7, d: 0.5 },
  methodVerbs: false,
  pathParameters: { matched: 0, unmatched: 0 },
};

/**
 * The default: identifiers split and stemmed, the fields that name an endpoint (summary,
 * operationId, path) weighted over prose, the method indexed with the verbs that ask for it,
 * and path parameters checked against what the task names by identifier. k and b are the
 * textbook BM25 values (1.2, 0.75), not fitted.
 */
export const TUNED_BM25: RetrievalConfig = {
  name: 'tuned BM25',
  analyzer: 'code',
  boost: { method: 1.5, path: 2, operationId: 2, summary: 3, description: 1, parameters: 0.7 },
  bm25: { k: 1.2, b: 0.75, d: 0.5 },
  methodVerbs: true,
  pathParameters: { matched: 0.3, unmatched: 0.3 },
};

/**
 * How tasks ask for each method. Domain knowledge of HTTP, not of any dataset: a task that
 * "creates" something is a POST in every REST API.
 */
const METHOD_VERBS: Readonly<Record<HttpMethod, string>> = {
  get: 'get list retrieve fetch return show find search read view look lookup check obtain',
  post: 'post create add new send make insert upload invite start submit publish',
  put: 'put update replace set change modify edit',
  patch: 'patch update modify change edit partially partial set',
  delete: 'delete remove cancel clear erase destroy trash unset',
  head: 'head check exists',
  options: 'options',
  trace: 'trace',
};

interface EndpointDocument {
  readonly id: number;
  readonly method: string;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly parameters: string;
}

function documentOf(endpoint: Endpoint, id: number, config: RetrievalConfig): EndpointDocument {
  const names = [
    ...endpoint.parameters.map((p) => p.name),
    ...(endpoint.requestBody?.contents.flatMap((c) => c.properties.map((p) => p.name)) ?? []),
  ];
  return {
    id,
    method: config.methodVerbs ? `${endpoint.method} ${METHOD_VERBS[endpoint.method]}` : endpoint.method,
    path: endpoint.path,
    operationId: endpoint.operationId ?? '',
    summary: endpoint.summary ?? '',
    description: endpoint.description ?? '',
    parameters: [...new Set(names)].join(' '),
  };
}

export interface RankedEndpoint {
  readonly endpoint: Endpoint;
  readonly score: number;
}

/** BM25 over one spec's endpoints (MiniSearch's BM25+). */
export class EndpointIndex {
  readonly #search: MiniSearch<EndpointDocument>;
  readonly #endpoints: readonly Endpoint[];
  readonly #config: RetrievalConfig;

  constructor(spec: ApiSpec, config: RetrievalConfig = TUNED_BM25) {
    this.#endpoints = spec.endpoints;
    this.#config = config;
    const analyzer =
      config.analyzer === 'code'
        ? { tokenize: (text: string) => terms(text), processTerm: (term: string) => term }
        : {};
    this.#search = new MiniSearch<EndpointDocument>({
      fields: [...ENDPOINT_FIELDS],
      idField: 'id',
      ...analyzer,
      searchOptions: { ...analyzer, combineWith: 'OR', boost: { ...config.boost }, bm25: { ...config.bm25 } },
    });
    this.#search.addAll(spec.endpoints.map((e, i) => documentOf(e, i, config)));
  }

  get config(): RetrievalConfig {
    return this.#config;
  }

  /**
   * Every endpoint that shares a term with the task, best first; ties keep spec order, so a
   * ranking is the same on every run.
   */
  rank(task: string): RankedEndpoint[] {
    const hits = this.#search.search(task);
    const best = hits.reduce((m, r) => Math.max(m, r.score), 0) || 1;
    const weights = this.#config.pathParameters;
    const entities = identifiedEntities(task);
    return hits
      .map((r) => {
        const id = r.id as number;
        const coverage = pathParameterCoverage(this.#endpoints[id] as Endpoint, entities);
        return { id, score: r.score / best + weights.matched * coverage.matched - weights.unmatched * coverage.unmatched };
      })
      .sort((a, b) => b.score - a.score || a.id - b.id)
      .map((r) => ({ endpoint: this.#endpoints[r.id] as Endpoint, score: r.score }));
  }

  /** The top k endpoints for a task. */
  retrieve(task: string, k: number): Endpoint[] {
    return this.rank(task).slice(0, k).map((r) => r.endpoint);
  }
}
