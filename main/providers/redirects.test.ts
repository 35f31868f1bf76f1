import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { anthropicMessages } from './anthropic.js';
import { FatalProviderError } from './errors.js';
import { geminiGenerate } from './gemini.js';
import { openAiChat } from './openai.js';
import { openAiCompatible } from './openaiCompatible.js';
import type { ModelProvider } from './types.js';

const KEY = 'sk-stand-in-DO-NOT-LEAK';
const ANSWER = { choices: [{ message: { content: '{"samples": []}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 1 } };
const servers: http.Server[] = [];

/** A server on 127.0.0.1 answering with `handle`; it records the authorization header of each request. */
async function serve(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<{ url: string; auth: (string | undefined)[] }> {
  const auth: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    auth.push(req.headers.authorization);
    req.resume();
    req.on('end', () => handle(req, res));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, auth };
}

const ask = { kind: 'chat', system: 's', messages: [{ role: 'user', content: 'u' }] } as const;
const options = { maxTokens: 8, temperature: 0, jsonSchema: { name: 'samples', schema: {} } };
const signal = new AbortController().signal;
const NO_RETRY = { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 };
/** Every provider that sends a key, pointed at a server on this machine: the one redirect policy of the wing holds for each. */
const CALLERS: readonly { name: string; make: (url: string) => ModelProvider; answer: unknown }[] = [
  { name: 'OpenAI', make: (url) => openAiChat({ baseUrl: url, model: 'm', apiKey: KEY, retry: NO_RETRY }), answer: ANSWER },
  { name: 'an OpenAI-compatible server', make: (url) => openAiCompatible({ baseUrl: url, model: 'm', apiKey: KEY, retry: NO_RETRY }), answer: ANSWER },
  { name: 'Anthropic', make: (url) => anthropicMessages({ baseUrl: url, model: 'm', apiKey: KEY, retry: NO_RETRY }), answer: { content: [{ type: 'text', text: '{}' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } } },
  { name: 'Gemini', make: (url) => geminiGenerate({ baseUrl: url, model: 'm', apiKey: KEY, retry: NO_RETRY }), answer: { candidates: [{ content: { parts: [{ text: '{}' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 } } },
];

afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())));
});

describe.each(CALLERS)('a call to $name carrying a key', ({ make, answer }) => {
  it('does not follow a redirect to another origin: the key never reaches it, and the error names the origin', async () => {
    const other = await serve((_req, res) => res.end(JSON.stringify(answer)));
    const first = await serve((req, res) => res.writeHead(307, { location: `${other.url}${req.url}` }).end());
    const failed = await make(first.url)
      .generate(ask, options, signal)
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(failed).toBeInstanceOf(FatalProviderError);
    expect(failed).toMatchObject({ retryable: false, status: 307, message: expect.stringContaining(`a redirect to ${other.url}; a request carrying a key never leaves its origin`) });
    expect(first.auth.length).toBe(1);
    expect(other.auth).toEqual([]);
  });

  it('follows a redirect within its origin, keeping method and body', async () => {
    const server = await serve((req, res) => {
      if (!req.url?.startsWith('/moved')) return res.writeHead(308, { location: `/moved${req.url}` }).end();
      res.end(JSON.stringify(req.method === 'POST' ? answer : {}));
    });
    const output = await make(server.url).generate(ask, options, signal);
    expect(output.text).toMatch(/^\{/);
    expect(server.auth.length).toBe(2);
  });
});
