import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { completionPrompt } from '../prompt/index.js';
import { anthropicMessages } from './anthropic.js';
import { providerBackend } from '../generation/providerBackend.js';
import { geminiGenerate } from './gemini.js';
import { ProviderError, UnusableAnswerError } from './http.js';
import { openAiChat } from './openai.js';
import { openAiBatch } from './openaiBatch.js';
import { openAiCompatible } from './openaiCompatible.js';
import { poolProvider } from './pool.js';
import type { ModelProvider, ProviderOutput } from './types.js';

/**
 * Provider hardening (issue 36, items 1-5), each against a stand-in on 127.0.0.1 that records and
 * checks what it receives, through the one provider HTTP layer that runs and synthesis share.
 */

const KEY = 'sk-proj-Zq7LmN2pR5tV8wX1yB4cD6fG9hJ3kM0nP2qS5uW8xA1zC4eF7gH0jK3';
const NO_RETRY = { retries: 0, minDelayMs: 0, maxDelayMs: 0, maxRetryAfterMs: 0 };
const signal = new AbortController().signal;
const chat = { kind: 'chat' as const, messages: [{ role: 'user' as const, content: 'write the call' }] };
const options = { maxTokens: 16, temperature: 0 };
// What a synthesis job asks (synthesis/job.ts): a system text, the prompt, and a JSON Schema the answer must follow.
const synthesisAsk = { kind: 'chat' as const, system: 's', messages: [{ role: 'user' as const, content: 'u' }] };
const synthesisOptions = { maxTokens: 64, temperature: 1, jsonSchema: { name: 'wapiibench_samples', schema: { type: 'object' } } };

interface Seen {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

type Handler = (seen: Seen, res: http.ServerResponse, n: number) => void;

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A stand-in that records every request (and whether its answer's connection was dropped before the end). */
async function standIn(handler: Handler): Promise<{ url: string; seen: Seen[]; dropped: () => number }> {
  const seen: Seen[] = [];
  let dropped = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      seen.push(s);
      res.on('close', () => {
        if (!res.writableFinished) dropped++;
      });
      handler(s, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, dropped: () => dropped };
}

const json = (res: http.ServerResponse, body: unknown, status = 200): void => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
const chatAnswer = (usage: Record<string, unknown>, text = 'x'): unknown => ({ id: 'c1', model: 'gpt-4o-2024-08-06', choices: [{ message: { content: text }, finish_reason: 'stop' }], usage });

describe('usage that is not a count of tokens is refused, by every provider (item 1)', () => {
  const cases: { name: string; path: RegExp; body: unknown; call: (url: string) => Promise<unknown> }[] = [
    { name: 'OpenAI chat, completion_tokens -1e9', path: /^\/v1\/chat\/completions$/, body: chatAnswer({ prompt_tokens: 10, completion_tokens: -1e9 }), call: (url) => openAiChat({ model: 'gpt-4o', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(chat, options, signal) },
    { name: 'OpenAI chat, prompt_tokens "lots"', path: /^\/v1\/chat\/completions$/, body: chatAnswer({ prompt_tokens: 'lots', completion_tokens: 3 }), call: (url) => openAiChat({ model: 'gpt-4o', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(chat, options, signal) },
    { name: 'OpenAI chat, no usage at all', path: /^\/v1\/chat\/completions$/, body: chatAnswer({}), call: (url) => openAiChat({ model: 'gpt-4o', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(chat, options, signal) },
    { name: 'Anthropic, output_tokens 2.5', path: /^\/v1\/messages$/, body: { id: 'm', content: [{ type: 'text', text: 'x' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 2.5 } }, call: (url) => anthropicMessages({ model: 'claude-haiku-4-5', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(chat, options, signal) },
    { name: 'Gemini, candidatesTokenCount 1e300', path: /:generateContent$/, body: { candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1e300 } }, call: (url) => geminiGenerate({ model: 'gemini-2.5-flash', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(chat, options, signal) },
    { name: 'an OpenAI-compatible server, completion_tokens -5', path: /^\/v1\/completions$/, body: { choices: [{ text: 'x' }], usage: { prompt_tokens: 1, completion_tokens: -5 } }, call: (url) => openAiCompatible({ model: 'm', baseUrl: url, retry: NO_RETRY }).generate({ kind: 'completion', text: 'x' }, options, signal) },
    { name: 'synthesis through an OpenAI server, prompt_tokens "lots"', path: /^\/v1\/chat\/completions$/, body: chatAnswer({ prompt_tokens: 'lots', completion_tokens: 3 }, '{"samples":[]}'), call: (url) => openAiChat({ model: 'm', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(synthesisAsk, synthesisOptions, signal) },
    { name: 'synthesis through Gemini, promptTokenCount -1', path: /:generateContent$/, body: { candidates: [{ content: { parts: [{ text: '{"samples":[]}' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: -1, candidatesTokenCount: 3 } }, call: (url) => geminiGenerate({ model: 'gemini-2.5-pro', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(synthesisAsk, synthesisOptions, signal) },
  ];
  it.each(cases)('$name', async ({ path, body, call }) => {
    const server = await standIn((s, res) => (path.test(s.path) ? json(res, body) : json(res, { error: { message: `unexpected ${s.method} ${s.path}` } }, 404)));
    const failed = await call(server.url).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(server.seen.map((s) => s.path)).toEqual([expect.stringMatching(path)]);
    expect(failed).toBeInstanceOf(UnusableAnswerError);
    expect(String((failed as Error).message)).toMatch(/usage|TokenCount/);
  });

  const prompt = completionPrompt({ api: 'harbor', task: 'task', config: { method: 'get', url: 'https://api.harbor.example/v2/me' } }, 'full');

  it('the spending cap holds whatever a provider hands on: a lying output fails and is counted at its most, so the cap trips', async () => {
    const usages = [{ inputTokens: 10, outputTokens: -1e9 }, { inputTokens: Number.NaN, outputTokens: 3 }];
    let n = 0;
    const lying: ModelProvider = {
      name: 'openai',
      model: 'gpt-4o',
      capabilities: { logits: false, constraints: 'none', completion: true, chat: true, prefill: false, batch: false, listsModels: false, jsonSchema: false },
      concurrency: 1,
      describe: {},
      generate: async (): Promise<ProviderOutput> => ({ text: 'x', finish: 'stop', usage: usages[n++ % 2]!, requestIds: [] }),
      check: async () => undefined,
    };
    for (const cap of [0.000001, 1]) {
      const stops: string[] = [];
      const backend = providerBackend(lying, { temperature: 0, topK: 0, topP: 1, maxTokens: 8, price: { input: 1, output: 1 }, spendingCapUsd: cap, onFatal: (m) => stops.push(m) });
      await expect(backend.slot(0).generate({ prompt, api: 'harbor', seed: 1 })).rejects.toThrow(/not a count of tokens/);
      await expect(backend.slot(0).generate({ prompt, api: 'harbor', seed: 1 })).rejects.toThrow(cap < 0.001 ? /^stopped at the spending cap of \$0\.00 .* and 1 unusable answer counted at their most\)/ : /not a count of tokens/);
      expect(stops.length > 0).toBe(cap < 0.001);
      const spent = Number(backend.totals().costUsd ?? Number.NaN);
      expect(Number.isFinite(spent) && spent > 0).toBe(true);
    }
  });

  it('a hosted model whose every answer claims -1e9 output tokens: the first answer trips a $0.000001 cap, no second request goes out', async () => {
    const server = await standIn((s, res) => (s.headers.authorization === `Bearer ${KEY}` && s.path === '/v1/chat/completions' ? json(res, chatAnswer({ prompt_tokens: 10, completion_tokens: -1e9 })) : json(res, { error: { message: 'unexpected' } }, 400)));
    const stops: string[] = [];
    const backend = providerBackend(openAiChat({ model: 'gpt-4o', apiKey: KEY, baseUrl: server.url, retry: NO_RETRY }), { temperature: 0, topK: 0, topP: 1, maxTokens: 8, promptStyle: 'chat', price: { input: 2.5, output: 10 }, spendingCapUsd: 0.000001, onFatal: (m) => stops.push(m) });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await backend.slot(0).generate({ prompt, api: 'harbor', seed: i }).then(() => 'ok', (e: unknown) => String(e)));
    expect(results[0]).toMatch(/usage\.completion_tokens: -1000000000, not a count of tokens/);
    expect(results.slice(1).every((r) => /stopped at the spending cap/.test(r))).toBe(true);
    expect(server.seen).toHaveLength(1);
    expect(JSON.parse(server.seen[0]!.body)).toMatchObject({ model: 'gpt-4o', max_completion_tokens: 8 });
    expect(new Set(stops).size).toBe(1);
  });
});

describe('a key echoed in an error body is taken out before the body is cut (item 2)', () => {
  const echoes: { name: string; status: number; type: string; body: string }[] = [
    // The key starts at character 141: a cut to 200 first keeps 59 of its 60 characters.
    { name: 'plain text, the whole key straddling the cut', status: 500, type: 'text/plain', body: `${'upstream failed; '.repeat(7)}Authorization: Bearer ${KEY} was refused by the upstream proxy` },
    { name: 'JSON error.message quoting the key', status: 400, type: 'application/json', body: JSON.stringify({ error: { message: `bad request with header authorization=Bearer ${KEY}` } }) },
    { name: 'a piece of the key', status: 502, type: 'text/plain', body: `proxy: token ${KEY.slice(7, 33)}… not accepted` },
  ];
  const leaks = (message: string): string[] => {
    const found: string[] = [];
    for (let i = 0; i + 8 <= KEY.length; i++) if (message.includes(KEY.slice(i, i + 8))) found.push(KEY.slice(i, i + 8));
    return found;
  };
  const callers: { name: string; call: (url: string) => Promise<unknown> }[] = [
    { name: 'a run (OpenAI chat)', call: (url) => openAiChat({ model: 'gpt-4o', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(chat, options, signal) },
    { name: 'a run (OpenAI-compatible server with a key)', call: (url) => openAiCompatible({ model: 'm', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate({ kind: 'completion', text: 'x' }, options, signal) },
    { name: 'synthesis (OpenAI)', call: (url) => openAiChat({ model: 'm', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(synthesisAsk, synthesisOptions, signal) },
    { name: 'synthesis (Gemini)', call: (url) => geminiGenerate({ model: 'gemini-2.5-pro', apiKey: KEY, baseUrl: url, retry: NO_RETRY }).generate(synthesisAsk, synthesisOptions, signal) },
  ];
  for (const caller of callers) {
    it.each(echoes)(`${caller.name}: $name`, async ({ status, type, body }) => {
      const server = await standIn((_s, res) => void res.writeHead(status, { 'content-type': type }).end(body));
      const failed = await caller.call(server.url).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(server.seen).toHaveLength(1);
      // The key went where it belongs (its header), and only there.
      expect([server.seen[0]!.headers.authorization, server.seen[0]!.headers['x-goog-api-key']]).toContain(caller.name.includes('Gemini') ? KEY : `Bearer ${KEY}`);
      expect(failed).toBeInstanceOf(ProviderError);
      const message = (failed as Error).message;
      expect(message).toMatch(String(status));
      expect(message).toContain('<key>');
      expect(leaks(message)).toEqual([]);
    });
  }
});

describe('an answer is read under one size cap and one time limit (item 3)', () => {
  /** 200 and a body that never ends, written in 64 KiB chunks as fast as the socket takes them (as a 300 MB answer would be). */
  const endless: Handler = (_s, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":[{"message":{"content":"');
    const chunk = 'x'.repeat(65_536);
    const pump = (): void => {
      while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
    };
    pump();
  };

  it.each([
    { name: 'a run (OpenAI-compatible chat), the 8 MiB default', cap: undefined, call: (url: string, cap?: number) => openAiCompatible({ model: 'm', baseUrl: url, retry: NO_RETRY, ...(cap ? { maxAnswerBytes: cap } : {}) }).generate(chat, options, signal) },
    { name: 'a run (OpenAI chat), a 256 KiB cap', cap: 262_144, call: (url: string, cap?: number) => openAiChat({ model: 'gpt-4o', apiKey: KEY, baseUrl: url, retry: NO_RETRY, ...(cap ? { maxAnswerBytes: cap } : {}) }).generate(chat, options, signal) },
    { name: 'synthesis (OpenAI), a 256 KiB cap', cap: 262_144, call: (url: string, cap?: number) => openAiChat({ model: 'm', apiKey: KEY, baseUrl: url, retry: NO_RETRY, ...(cap ? { maxAnswerBytes: cap } : {}) }).generate(synthesisAsk, synthesisOptions, signal) },
    { name: 'synthesis (Gemini), a 256 KiB cap', cap: 262_144, call: (url: string, cap?: number) => geminiGenerate({ model: 'gemini-2.5-pro', apiKey: KEY, baseUrl: url, retry: NO_RETRY, ...(cap ? { maxAnswerBytes: cap } : {}) }).generate(synthesisAsk, synthesisOptions, signal) },
  ])('$name: a larger answer is refused in one line, unread past the cap', async ({ cap, call }) => {
    const server = await standIn(endless);
    const failed = await call(server.url, cap).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(UnusableAnswerError);
    expect((failed as Error).message).toMatch(new RegExp(`answered more than ${cap ? '256 KiB' : '8 MiB'}; refused`));
    expect((failed as Error).message).not.toContain('\n');
    expect(server.seen).toHaveLength(1);
    // The client dropped the connection rather than reading on.
    await expect.poll(() => server.dropped(), { timeout: 5000 }).toBe(1);
  });

  /** Headers at once, then one byte at a time, never finishing. */
  const trickle: Handler = (_s, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices":');
    const timer = setInterval(() => res.write(' '), 20);
    res.on('close', () => clearInterval(timer));
  };

  it('a run: a trickling body is cut at the time limit and not asked again, however many retries the policy allows', async () => {
    const server = await standIn(trickle);
    const provider = openAiCompatible({ model: 'm', baseUrl: server.url, timeoutMs: 300, retry: { retries: 4, minDelayMs: 10, maxDelayMs: 20, maxRetryAfterMs: 20 } });
    const failed = await provider.generate({ kind: 'completion', text: 'x' }, options, signal).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(UnusableAnswerError);
    expect((failed as Error).message).toMatch(/answered 200 but did not finish its answer within 0\.3 s/);
    expect(server.seen).toHaveLength(1);
  });

  it.each([
    { name: 'synthesis (OpenAI)', call: (url: string) => openAiChat({ model: 'm', apiKey: KEY, baseUrl: url, retry: NO_RETRY, timeoutMs: 300 }).generate(synthesisAsk, synthesisOptions, signal) },
    { name: 'synthesis (Gemini)', call: (url: string) => geminiGenerate({ model: 'gemini-2.5-pro', apiKey: KEY, baseUrl: url, retry: NO_RETRY, timeoutMs: 300 }).generate(synthesisAsk, synthesisOptions, signal) },
  ])('$name: a trickling body is cut at the time limit', async ({ call }) => {
    const server = await standIn(trickle);
    const failed = await call(server.url).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ProviderError);
    expect((failed as Error).message).toMatch(/did not finish its answer within 0\.3 s/);
    expect(server.seen).toHaveLength(1);
  });
});

describe('a pool member whose answer cannot be used hands the sample on (item 4)', () => {
  it.each([
    { name: '200 with a body that is not JSON', bad: (res: http.ServerResponse) => void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>gateway</html>') },
    { name: '200 with JSON that has no choices', bad: (res: http.ServerResponse) => json(res, { ok: true }) },
    { name: '200 with usage that lies', bad: (res: http.ServerResponse) => json(res, { choices: [{ text: 'bad' }], usage: { prompt_tokens: 'lots', completion_tokens: 1 } }) },
  ])('$name: every sample is answered by the healthy member, and the bad one is cooled down', async ({ bad }) => {
    const good = await standIn((s, res) => (s.path === '/v1/completions' ? json(res, { choices: [{ text: 'good' }], usage: { prompt_tokens: 1, completion_tokens: 1 } }) : json(res, {}, 404)));
    const broken = await standIn((_s, res) => bad(res));
    const pool = poolProvider([broken, good].map((s) => openAiCompatible({ baseUrl: s.url, model: 'm', concurrency: 2, retry: NO_RETRY })), { cooldownMs: 60_000 });
    const outputs = await Promise.all(Array.from({ length: 12 }, () => pool.generate({ kind: 'completion', text: 'x' }, options, signal)));
    expect(outputs.map((o) => o.text)).toEqual(Array(12).fill('good'));
    expect(outputs.every((o) => o.server === good.url)).toBe(true);
    for (const s of [...good.seen, ...broken.seen]) expect(JSON.parse(s.body)).toMatchObject({ model: 'm', prompt: 'x' });
    // It was tried, then left out for its cool-down: most samples never reached it.
    expect(broken.seen.length).toBeGreaterThan(0);
    expect(broken.seen.length).toBeLessThan(12);
    expect(good.seen).toHaveLength(12);
  });
});

describe('a batch result file with two lines for one custom_id (item 5)', () => {
  it('keeps the first line and says so on the output', async () => {
    let customId = '';
    const server = await standIn((s, res) => {
      if (s.headers.authorization !== `Bearer ${KEY}`) return json(res, { error: { message: 'bad key' } }, 401);
      if (s.method === 'POST' && s.path === '/v1/files') {
        customId = /"custom_id":"([^"]+)"/.exec(s.body)?.[1] ?? '';
        return json(res, customId && s.body.includes('name="purpose"') ? { id: 'file-in' } : { error: { message: 'no batch input' } }, customId ? 200 : 400);
      }
      if (s.method === 'POST' && s.path === '/v1/batches') {
        const body = JSON.parse(s.body) as { input_file_id?: string; endpoint?: string };
        return body.input_file_id === 'file-in' && body.endpoint === '/v1/chat/completions' ? json(res, { id: 'batch_1', status: 'validating' }) : json(res, { error: { message: 'bad batch' } }, 400);
      }
      if (s.method === 'GET' && s.path === '/v1/batches/batch_1') return json(res, { id: 'batch_1', status: 'completed', output_file_id: 'file-out' });
      if (s.method === 'GET' && s.path === '/v1/files/file-out/content') {
        const line = (text: string, requestId: string): string => JSON.stringify({ custom_id: customId, response: { status_code: 200, request_id: requestId, body: chatAnswer({ prompt_tokens: 5, completion_tokens: 2 }, text) } });
        return void res.writeHead(200, { 'content-type': 'application/jsonl' }).end(`${line('first', 'req_1')}\n${line('second', 'req_2')}\n`);
      }
      json(res, { error: { message: `unexpected ${s.method} ${s.path}` } }, 404);
    });
    const batch = openAiBatch({ model: 'gpt-4o-mini', apiKey: KEY, baseUrl: server.url, pollMs: 10, gatherMs: 10, retry: NO_RETRY });
    const output = await batch.generate(chat, options, signal);
    expect(server.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /v1/files', 'POST /v1/batches', 'GET /v1/batches/batch_1', 'GET /v1/files/file-out/content']);
    expect(output.text).toBe('first');
    expect(output.requestIds).toContain('req_1');
    expect(output.requestIds).not.toContain('req_2');
    expect(output.notes).toEqual([`batch batch_1 has 2 result lines for this request (custom_id ${customId}); the first was kept`]);
  });
});
