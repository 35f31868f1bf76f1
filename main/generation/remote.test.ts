import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { completionPrompt } from '../prompt/index.js';
import { constrainerFor } from '../runner/index.js';
import { remoteBackend } from './remote.js';

let spec: ApiSpec;
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});

/** A server that answers every request with `text`, cut by the token limit. */
const answering = (text: string): typeof fetch => (async () => new Response(JSON.stringify({ choices: [{ text, finish_reason: 'length' }], usage: { completion_tokens: 9 } }))) as typeof fetch;
const prompt = completionPrompt({ api: 'harbor', task: 'task', config: { method: 'get', url: 'https://api.harbor.example/v2/me' } }, 'full');

describe('remote backend, constrained', () => {
  it('closes an invocation the token limit cut, as the local backend does, and records it', async () => {
    const backend = remoteBackend({ url: 'http://x', model: 'm', parallel: 1, temperature: 1, topK: 0, topP: 1, maxTokens: 9, constrainBy: constrainerFor(new Map([['harbor', spec]])), fetch: answering("get('https://api.harbor.example/v2/shipments', { params: { limit: 2") });
    const g = await backend.slot(0).generate({ prompt, api: 'harbor', seed: 1 });
    expect(g.text).toBe("get('https://api.harbor.example/v2/shipments', { params: { limit: 2}});");
    expect(g.interventions).toEqual([{ kind: 'closed', step: 9, text: '}});' }]);
    expect(g.stop).toBe('limit');
  });

  it('leaves a complete invocation, and text outside the language, as they are', async () => {
    const done = "get('https://api.harbor.example/v2/me');\nconsole.log(1);";
    for (const text of [done, "fetch('https://elsewhere.example/x'"]) {
      const backend = remoteBackend({ url: 'http://x', model: 'm', parallel: 1, temperature: 1, topK: 0, topP: 1, maxTokens: 9, constrainBy: constrainerFor(new Map([['harbor', spec]])), fetch: answering(text) });
      const g = await backend.slot(0).generate({ prompt, api: 'harbor', seed: 1 });
      expect(g.text).toBe(text);
      expect(g.interventions).toEqual([]);
    }
  });
});
