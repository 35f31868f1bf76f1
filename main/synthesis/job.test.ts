import { describe, expect, it } from 'vitest';
import { loadSpec } from '../openapi/index.js';
import { ProviderError } from '../providers/errors.js';
import type { ModelProvider } from '../providers/types.js';
import { runSynthesisJob, type JobSink } from './job.js';

const SPEC = `openapi: 3.0.0
info: { title: t, version: '1' }
servers: [{ url: 'https://api.test' }]
paths:
${Array.from({ length: 12 }, (_, i) => `  /items${i}:\n    get:\n      responses: { '200': { description: ok } }`).join('\n')}
`;

describe('runSynthesisJob', () => {
  it('starts no further request once the sink cannot store, and fails only when those in flight are over', async () => {
    const loaded = await loadSpec(SPEC, 'items.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    const spec = loaded.value;
    let asked = 0;
    let recorded = 0;
    const provider: ModelProvider = {
      name: 'openai',
      model: 'm',
      capabilities: { logits: false, constraints: 'none', completion: false, chat: true, prefill: false, batch: false, listsModels: false, jsonSchema: true },
      concurrency: 2,
      describe: {},
      contextTokens: 100_000,
      maxOutputTokens: 1_000,
      generate: async () => {
        asked++;
        await new Promise((r) => setTimeout(r, 5));
        throw new ProviderError('refused', 400, false);
      },
      check: async () => {},
    };
    const sink: JobSink = {
      accept: async () => {},
      fail: () => {
        if (++recorded === 2) throw new Error('disk full');
      },
      usage: () => {},
      retry: () => {},
      progress: () => {},
    };
    const plan = { targets: [{ api: 'items', spec, specText: SPEC, endpoints: spec.endpoints }], samplesPerEndpoint: 1, batchSize: 1, concurrency: 2, retry: { retries: 0, minDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 1 } };
    await expect(runSynthesisJob(provider, plan, sink)).rejects.toThrow('disk full');
    const after = asked;
    await new Promise((r) => setTimeout(r, 50));
    expect(asked).toBe(after);
    expect(asked).toBeLessThanOrEqual(3);
  });
});
