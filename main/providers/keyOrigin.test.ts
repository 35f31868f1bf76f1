import { describe, expect, it } from 'vitest';
import { keyRefusal } from './http.js';
import { PROVIDER_NAMES, PROVIDERS } from './registry.js';

/**
 * One key-origin rule (issue 35): every factory that takes a key refuses a base URL its key may not
 * go to with the line `keyRefusal` gives, the one the service shows before a run or job is queued;
 * before, the service and each factory spelt the rule and its message on their own.
 */
describe('the key-origin rule', () => {
  const keyed = PROVIDER_NAMES.filter((name) => PROVIDERS[name].key !== 'none' && PROVIDERS[name].modelIs === 'name');

  it.each(keyed)('%s refuses to send its key elsewhere, in the one line', async (name) => {
    const entry = PROVIDERS[name];
    const elsewhere = 'http://203.0.113.7:8080/v1';
    const line = keyRefusal(elsewhere, entry.label, entry.keyHost);
    expect(line).toMatch(/^the .+ key is sent only (to https:\/\/\S+ or|over https or to) a server on this machine, not to http:\/\/203\.0\.113\.7:8080$/);
    await expect(entry.create({ model: 'm', baseUrl: elsewhere, apiKey: 'sk-test' })).rejects.toThrow(line!);
  });

  it('lets a key go to the official host over https and to this machine, never to plain http elsewhere', () => {
    expect(keyRefusal('https://api.openai.com/v1', 'OpenAI', 'api.openai.com')).toBeUndefined();
    expect(keyRefusal('http://127.0.0.1:8080', 'OpenAI', 'api.openai.com')).toBeUndefined();
    expect(keyRefusal('https://api.openai.com.evil.example/v1', 'OpenAI', 'api.openai.com')).toMatch(/not to https:\/\/api\.openai\.com\.evil\.example$/);
    expect(keyRefusal('https://llm.internal.example', 'server')).toBeUndefined();
    expect(keyRefusal('http://llm.internal.example', 'OpenAI-compatible server (llama-server)')).toBe('the OpenAI-compatible server key is sent only over https or to a server on this machine, not to http://llm.internal.example');
  });
});
