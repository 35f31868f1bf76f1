import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { openAiProvider } from './openai.js';
import { ProviderError } from './provider.js';

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

const ask = { system: 's', user: 'u', schema: {}, boundedSchema: {} };

afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise<void>((resolve) => (s.closeAllConnections(), s.close(() => resolve())));
});

describe('an OpenAI-compatible call carrying a key', () => {
  it('does not follow a redirect to another origin: the key never reaches it, and the error names the origin', async () => {
    const other = await serve((_req, res) => res.end(JSON.stringify(ANSWER)));
    const first = await serve((req, res) => res.writeHead(307, { location: `${other.url}${req.url}` }).end());
    const provider = openAiProvider({ baseUrl: first.url, model: 'm', apiKey: KEY });
    const failed = await provider.generate(ask).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ProviderError);
    expect(failed).toMatchObject({ retryable: false, status: 307, message: expect.stringContaining(`redirected to another origin (${other.url})`) });
    expect(first.auth).toEqual([`Bearer ${KEY}`]);
    expect(other.auth).toEqual([]);
  });

  it('follows a redirect within its origin, keeping method and body', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/v1/chat/completions') return res.writeHead(308, { location: '/v2/chat/completions' }).end();
      res.end(JSON.stringify(req.method === 'POST' ? ANSWER : {}));
    });
    const answer = await openAiProvider({ baseUrl: server.url, model: 'm', apiKey: KEY }).generate(ask);
    expect(answer.text).toBe('{"samples": []}');
    expect(server.auth).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  });
});
