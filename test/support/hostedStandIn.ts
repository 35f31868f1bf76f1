import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type HostedKind = 'openai' | 'anthropic' | 'gemini';

/** A request as the stand-in received it, and what was wrong with its shape (empty when nothing). */
export interface HostedRequest {
  readonly method: string;
  readonly path: string;
  readonly model: string;
  /** The credential header as sent (Authorization, x-api-key or x-goog-api-key). */
  readonly credential: string | undefined;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
  /** The user's message (the last user turn). */
  readonly prompt: string;
  /** Anthropic: the assistant's prefilled turn, if any. */
  readonly prefill: string | undefined;
  readonly problems: readonly string[];
}

export type HostedReply =
  | { readonly text: string; readonly inputTokens?: number; readonly outputTokens?: number; readonly finish?: 'stop' | 'length' }
  | { readonly status: number; readonly message: string; readonly headers?: Record<string, string>; readonly code?: string }
  | { readonly redirect: string }
  /** Never answers (until the stand-in closes). */
  | { readonly hang: true };

const VERSION: Record<HostedKind, string> = { openai: 'gpt-4o-2024-08-06', anthropic: 'claude-stand-in-20250101', gemini: 'gemini-stand-in-001' };

/**
 * A local stand-in for a hosted model API — OpenAI chat completions, Anthropic messages or Gemini
 * generateContent — on 127.0.0.1. It checks what each request carries (the provider's auth
 * header, the model, the message shape), records it, and answers with the provider's own JSON
 * shape what `reply` scripts. A wrong key is answered 401 as the provider answers it. GET of the
 * model list and of one model answer too (the workbench checks an endpoint before queueing).
 */
export async function startHostedStandIn(options: { kind: HostedKind; key: string; model: string; reply: (request: HostedRequest, n: number) => HostedReply }): Promise<{ url: string; received: HostedRequest[]; close: () => Promise<void> }> {
  const { kind, key, model } = options;
  const received: HostedRequest[] = [];
  const hanging = new Set<http.ServerResponse>();
  const send = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
  const errorBody = (status: number, message: string, code?: string): unknown =>
    kind === 'anthropic'
      ? { type: 'error', error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : 'api_error', message } }
      : kind === 'gemini'
        ? { error: { code: status, message, status: status === 401 ? 'UNAUTHENTICATED' : status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } }
        : { error: { message, type: code ?? 'error', code: code ?? null } };
  const credentialOf = (req: http.IncomingMessage): string | undefined => {
    const h = kind === 'openai' ? req.headers.authorization : kind === 'anthropic' ? req.headers['x-api-key'] : req.headers['x-goog-api-key'];
    return Array.isArray(h) ? h[0] : h;
  };
  const expected = kind === 'openai' ? `Bearer ${key}` : key;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      const credential = credentialOf(req);
      if (credential !== expected) return send(res, 401, errorBody(401, kind === 'openai' ? 'Incorrect API key provided: sk-...wxyz.' : 'invalid x-api-key'), {});
      if (kind === 'anthropic' && req.headers['anthropic-version'] !== '2023-06-01') return send(res, 400, errorBody(400, 'anthropic-version header is required'));
      if (req.method === 'GET') {
        const list = kind === 'gemini' ? { models: [{ name: `models/${model}`, supportedGenerationMethods: ['generateContent'] }] } : { data: [{ id: model, object: 'model' }] };
        if (/\/models\/?(\?.*)?$/.test(url)) return send(res, 200, list);
        if (url.endsWith(`/models/${model}`)) return send(res, 200, kind === 'gemini' ? { name: `models/${model}` } : { id: model, object: 'model' });
        return send(res, 404, errorBody(404, `model not found: ${url}`));
      }
      const problems: string[] = [];
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        problems.push('body is not JSON');
      }
      let askedModel = '';
      let prompt = '';
      let prefill: string | undefined;
      if (kind === 'gemini') {
        const m = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(url);
        if (!m) problems.push(`path ${url}`);
        askedModel = m?.[1] ?? '';
        const contents = body['contents'] as { role?: string; parts?: { text?: string }[] }[] | undefined;
        if (!Array.isArray(contents) || contents.length === 0 || contents.some((c) => !Array.isArray(c.parts))) problems.push('contents is not a list of {role, parts}');
        prompt = (contents?.filter((c) => c.role !== 'model').at(-1)?.parts ?? []).map((p) => p.text ?? '').join('');
        const config = body['generationConfig'] as { maxOutputTokens?: unknown } | undefined;
        if (typeof config?.maxOutputTokens !== 'number') problems.push('no generationConfig.maxOutputTokens');
      } else {
        if (url !== (kind === 'openai' ? '/v1/chat/completions' : '/v1/messages')) problems.push(`path ${url}`);
        askedModel = String(body['model']);
        const messages = body['messages'] as { role?: string; content?: unknown }[] | undefined;
        if (!Array.isArray(messages) || messages.length === 0 || messages.some((m) => typeof m.content !== 'string' || !['user', 'assistant', 'system'].includes(String(m.role)))) problems.push('messages is not a list of {role, content}');
        const turns = messages ?? [];
        prompt = String(turns.filter((m) => m.role === 'user').at(-1)?.content ?? '');
        if (kind === 'anthropic') {
          if (typeof body['max_tokens'] !== 'number') problems.push('no max_tokens');
          if (turns[0]?.role !== 'user') problems.push('the first message is not the user\'s');
          if (turns.at(-1)?.role === 'assistant') prefill = String(turns.at(-1)?.content);
        } else if (typeof body['max_completion_tokens'] !== 'number') problems.push('no max_completion_tokens');
      }
      if (askedModel !== model) problems.push(`model ${askedModel}, expected ${model}`);
      const request: HostedRequest = { method: req.method ?? '', path: url, model: askedModel, credential, headers: req.headers, body, prompt, prefill, problems };
      received.push(request);
      const reply = options.reply(request, received.length);
      if ('hang' in reply) {
        hanging.add(res);
        return;
      }
      if ('redirect' in reply) return void res.writeHead(307, { location: reply.redirect }).end();
      if ('status' in reply) return send(res, reply.status, errorBody(reply.status, reply.message, reply.code), reply.headers);
      const inputTokens = reply.inputTokens ?? Math.ceil(prompt.length / 4);
      const outputTokens = reply.outputTokens ?? Math.ceil(reply.text.length / 4);
      const id = `req_${received.length}`;
      if (kind === 'openai') {
        send(res, 200, { id: `chatcmpl-${received.length}`, object: 'chat.completion', model: VERSION.openai, choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: reply.finish === 'length' ? 'length' : 'stop' }], usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens } }, { 'x-request-id': id });
      } else if (kind === 'anthropic') {
        send(res, 200, { id: `msg_${received.length}`, type: 'message', role: 'assistant', model: VERSION.anthropic, content: [{ type: 'text', text: reply.text }], stop_reason: reply.finish === 'length' ? 'max_tokens' : 'end_turn', usage: { input_tokens: inputTokens, output_tokens: outputTokens } }, { 'request-id': id });
      } else {
        send(res, 200, { candidates: [{ content: { role: 'model', parts: [{ text: reply.text }] }, finishReason: reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP', index: 0 }], usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens }, modelVersion: VERSION.gemini, responseId: id });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const STAND_IN_VERSIONS = VERSION;
