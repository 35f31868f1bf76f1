import { describe, expect, it } from 'vitest';
import { hasVocabBundle } from '../../test/support/vocab.js';
import { cachedTestModel } from '../generation/index.js';
import { DEFAULT_PRICES, PROVIDER_NAMES, PROVIDERS, providerEntry } from './registry.js';

/**
 * The registry is the one list of providers: what it says of each must be what its factory makes,
 * since New run, synthesis and the CLI decide from the entry without making the provider.
 */
describe('the provider registry', () => {
  it.each(PROVIDER_NAMES.filter((name) => PROVIDERS[name].modelIs === 'name'))('%s: the provider its factory makes has the capabilities its entry declares', async (name) => {
    const entry = PROVIDERS[name];
    const provider = await entry.create({ model: 'm', baseUrl: 'http://127.0.0.1:9', ...(entry.keyVariables.length > 0 ? { apiKey: 'k-0123456789' } : {}) });
    expect(provider.name).toBe(name);
    expect(provider.capabilities).toEqual(entry.capabilities);
  });

  it.runIf(hasVocabBundle)('local: the loaded model has the capabilities its entry declares, and answers to a JSON Schema with JSON valid against it', async () => {
    const provider = await PROVIDERS.local.create({ model: cachedTestModel('qwen2') });
    try {
      expect(provider.capabilities).toEqual(PROVIDERS.local.capabilities);
      const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'], additionalProperties: false } as const;
      const out = await provider.generate({ kind: 'chat', system: 'count', messages: [{ role: 'user', content: 'one number' }] }, { maxTokens: 24, temperature: 0.8, seed: 3, jsonSchema: { name: 'n', schema } }, new AbortController().signal);
      // Whatever the random model says, the grammar holds it to the schema (unless the token limit cuts it).
      if (out.finish === 'stop') expect(Number.isInteger((JSON.parse(out.text) as { n: unknown }).n)).toBe(true);
      expect(out.usage.inputTokens).toBeGreaterThan(0);
    } finally {
      await provider.dispose?.();
    }
  }, 60_000);

  it('names the providers there are for a name it does not know, and prices each provider by its own prefix', () => {
    expect(providerEntry('nope')).toEqual({ ok: false, message: `no provider "nope": one of ${PROVIDER_NAMES.join(', ')}` });
    expect(providerEntry('constructor').ok).toBe(false);
    expect(DEFAULT_PRICES['openai/gpt-4o']).toEqual({ input: 2.5, output: 10, batchInput: 1.25, batchOutput: 5 });
    expect(Object.keys(DEFAULT_PRICES).every((key) => PROVIDER_NAMES.some((name) => key.startsWith(`${name}/`)))).toBe(true);
  });
});
