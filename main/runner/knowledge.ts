import { isDeepStrictEqual } from 'node:util';
import type { RequestConfig } from '../api/schemas.js';
import { resolveEndpoint, type ApiSpec, type Endpoint } from '../openapi/index.js';
import { knowledgeLines, type KnowledgeCondition, type KnowledgeFacts } from '../prompt/index.js';
import { EndpointIndex } from '../retrieval/index.js';

interface KnowledgeSample {
  readonly index: number;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
}

const sameEndpoint = (a: Endpoint | undefined, b: Endpoint | undefined): boolean => a !== undefined && b !== undefined && a.method === b.method && a.path === b.path;

/**
 * Gathers what each sample's knowledge condition draws on: its expected endpoint, an example
 * from another sample of `pool` (the whole dataset) on that endpoint, the endpoints retrieved
 * for its task; then the prompt lines. The example is the first such sample in dataset order
 * whose request differs from the sample's own, so a sample never sees its own answer.
 */
export function withKnowledge<S extends KnowledgeSample>(samples: readonly S[], pool: readonly KnowledgeSample[], specs: ReadonlyMap<string, ApiSpec>, condition: KnowledgeCondition): (S & { knowledge: string[] })[] {
  const indexes = new Map<string, EndpointIndex>();
  const expected = new Map<KnowledgeSample, Endpoint | undefined>();
  const endpointOf = (s: KnowledgeSample, spec: ApiSpec): Endpoint | undefined => {
    if (!expected.has(s)) expected.set(s, resolveEndpoint(spec, s.config.url, s.config.method).endpoint);
    return expected.get(s);
  };
  return samples.map((sample) => {
    const spec = specs.get(sample.api);
    if (!spec) throw new Error(`bug: no spec for ${sample.api}`);
    const endpoint = endpointOf(sample, spec);
    let retrieved: Endpoint[] = [];
    if (condition.retrieved !== undefined) {
      let index = indexes.get(sample.api);
      if (!index) indexes.set(sample.api, (index = new EndpointIndex(spec)));
      retrieved = index.retrieve(sample.task, condition.retrieved);
    }
    const example = condition.parts.includes('example')
      ? pool.find((o) => o.api === sample.api && o.index !== sample.index && !isDeepStrictEqual(o.config, sample.config) && sameEndpoint(endpointOf(o, spec), endpoint))
      : undefined;
    const facts: KnowledgeFacts = { spec, endpoint, example, retrieved };
    return { ...sample, knowledge: knowledgeLines(condition, facts) };
  });
}
