import { describe, expect, it } from 'vitest';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';
import { openAiCompatible } from './openaiCompatible.js';
import { poolProvider } from './pool.js';

const NO_RETRY = { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 };
const options = { maxTokens: 16, temperature: 0 };
const signal = new AbortController().signal;

describe('a pool of OpenAI-compatible servers', () => {
  it('shares requests by free slots and names the server of each output', async () => {
    const a = await startCompletionStandIn(async () => (await new Promise((r) => setTimeout(r, 20)), { text: 'a' }));
    const b = await startCompletionStandIn(async () => (await new Promise((r) => setTimeout(r, 20)), { text: 'b' }));
    try {
      const pool = poolProvider([a, b].map((s) => openAiCompatible({ baseUrl: s.url, model: 'm', concurrency: 2, retry: NO_RETRY })));
      expect(pool.concurrency).toBe(4);
      const outputs = await Promise.all(Array.from({ length: 8 }, () => pool.generate({ kind: 'completion', text: 'x' }, options, signal)));
      // Four at a time over two servers of two slots each: both take requests.
      expect(a.received.length).toBeGreaterThan(0);
      expect(b.received.length).toBeGreaterThan(0);
      expect(a.received.length + b.received.length).toBe(8);
      for (const o of outputs) expect(o.server).toBe(o.text === 'a' ? a.url : b.url);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("a server that dies hands its requests to the others: every request is answered", async () => {
    const a = await startCompletionStandIn(() => ({ text: 'a' }));
    // b takes two requests (its two slots), then goes away with them in flight.
    let bClosed: Promise<void> | undefined;
    const b = await startCompletionStandIn((_r, n) => {
      if (n === 2) bClosed ??= b.close();
      return new Promise(() => undefined);
    });
    try {
      const pool = poolProvider([b, a].map((s) => openAiCompatible({ baseUrl: s.url, model: 'm', concurrency: 2, retry: NO_RETRY })));
      const outputs = await Promise.all(Array.from({ length: 10 }, () => pool.generate({ kind: 'completion', text: 'x' }, options, signal)));
      expect(outputs.map((o) => o.text)).toEqual(Array(10).fill('a'));
      expect(outputs.every((o) => o.server === a.url)).toBe(true);
      expect(b.received.length).toBeGreaterThan(0);
      await bClosed;
    } finally {
      await a.close();
    }
  });

  it('fails a request only when every server failed it', async () => {
    const a = await startCompletionStandIn(() => ({ status: 503, message: 'Loading model' }));
    try {
      const pool = poolProvider([openAiCompatible({ baseUrl: a.url, model: 'm', retry: NO_RETRY }), openAiCompatible({ baseUrl: 'http://127.0.0.1:9', model: 'm', retry: NO_RETRY })], { cooldownMs: 10 });
      await expect(pool.generate({ kind: 'completion', text: 'x' }, options, signal)).rejects.toThrow(/^every server of the pool failed this sample; the last: /);
    } finally {
      await a.close();
    }
  });

  it("sends a grammar in the engine's own field: llama-server `grammar`, vLLM `structured_outputs`", async () => {
    const llama = await startCompletionStandIn(() => ({ text: 'x' }), { engine: 'llama-server' });
    const vllm = await startCompletionStandIn(() => ({ text: 'x' }), { engine: 'vllm' });
    try {
      await openAiCompatible({ baseUrl: llama.url, model: 'm' }).generate({ kind: 'completion', text: 'x' }, { ...options, grammar: 'root ::= "x"' }, signal);
      await openAiCompatible({ baseUrl: vllm.url, model: 'm' }).generate({ kind: 'completion', text: 'x' }, { ...options, grammar: 'root ::= "x"' }, signal);
      expect(llama.received[0]!.body['grammar']).toBe('root ::= "x"');
      expect(llama.received[0]!.body['structured_outputs']).toBeUndefined();
      expect(vllm.received[0]!.body['structured_outputs']).toEqual({ grammar: 'root ::= "x"' });
      expect(vllm.received[0]!.body['grammar']).toBeUndefined();
    } finally {
      await llama.close();
      await vllm.close();
    }
  });
});
