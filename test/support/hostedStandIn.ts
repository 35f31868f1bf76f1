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
export async function startHostedStandIn(options: {
  kind: HostedKind;
  key: string;
  model: string;
  reply: (request: HostedRequest, n: number) => HostedReply;
  /** OpenAI's Batch API: how many status polls a batch answers `in_progress` before `completed`. */
  batchPolls?: number;
}): Promise<{ url: string; received: HostedRequest[]; batches: StandInBatch[]; close: () => Promise<void> }> {
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
      if (kind === 'openai' && (url.startsWith('/v1/files') || url.startsWith('/v1/batches'))) return void batchRoute(req, url, Buffer.concat(chunks), res);
      if (req.method === 'GET') {
        const list = kind === 'gemini' ? { models: [{ name: `models/${model}`, supportedGenerationMethods: ['generateContent'] }] } : { data: [{ id: model, object: 'model' }] };
        if (/\/models\/?(\?.*)?$/.test(url)) return send(res, 200, list);
        if (url.endsWith(`/models/${model}`)) return send(res, 200, kind === 'gemini' ? { name: `models/${model}` } : { id: model, object: 'model' });
        return send(res, 404, errorBody(404, `model not found: ${url}`));
      }
      let body: Record<string, unknown> = {};
      let parsed = true;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        parsed = false;
      }
      const request = inspect(req.method ?? '', url, credential, req.headers, body, parsed);
      received.push(request);
      const reply = options.reply(request, received.length);
      if ('hang' in reply) {
        hanging.add(res);
        return;
      }
      if ('redirect' in reply) return void res.writeHead(307, { location: reply.redirect }).end();
      if ('status' in reply) return send(res, reply.status, errorBody(reply.status, reply.message, reply.code), reply.headers);
      const answer = answerOf(reply, request.prompt, received.length);
      send(res, 200, answer.body, answer.headers);
    });
  });

  /** What a request carries, checked against the provider's shape. */
  function inspect(method: string, url: string, credential: string | undefined, headers: http.IncomingHttpHeaders, body: Record<string, unknown>, parsed: boolean): HostedRequest {
    const problems: string[] = parsed ? [] : ['body is not JSON'];
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
    return { method, path: url, model: askedModel, credential, headers, body, prompt, prefill, problems };
  }

  /** A scripted text as the provider's answer body. */
  function answerOf(reply: Extract<HostedReply, { text: string }>, prompt: string, n: number): { body: unknown; headers: Record<string, string> } {
    const inputTokens = reply.inputTokens ?? Math.ceil(prompt.length / 4);
    const outputTokens = reply.outputTokens ?? Math.ceil(reply.text.length / 4);
    const id = `req_${n}`;
    if (kind === 'openai') {
      return { headers: { 'x-request-id': id }, body: { id: `chatcmpl-${n}`, object: 'chat.completion', model: VERSION.openai, choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: reply.finish === 'length' ? 'length' : 'stop' }], usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens } } };
    }
    if (kind === 'anthropic') {
      return { headers: { 'request-id': id }, body: { id: `msg_${n}`, type: 'message', role: 'assistant', model: VERSION.anthropic, content: [{ type: 'text', text: reply.text }], stop_reason: reply.finish === 'length' ? 'max_tokens' : 'end_turn', usage: { input_tokens: inputTokens, output_tokens: outputTokens } } };
    }
    return { headers: {}, body: { candidates: [{ content: { role: 'model', parts: [{ text: reply.text }] }, finishReason: reply.finish === 'length' ? 'MAX_TOKENS' : 'STOP', index: 0 }], usageMetadata: { promptTokenCount: inputTokens, candidatesTokenCount: outputTokens, totalTokenCount: inputTokens + outputTokens }, modelVersion: VERSION.gemini, responseId: id } };
  }

  /**
   * OpenAI's Batch API: POST /v1/files (multipart, purpose batch), POST /v1/batches, GET
   * /v1/batches/{id} (in_progress for `batchPolls` polls, then completed, its output written by
   * the script line by line), GET /v1/files/{id}/content.
   */
  const files = new Map<string, string>();
  const batches: StandInBatch[] = [];
  async function batchRoute(req: http.IncomingMessage, url: string, raw: Buffer, res: http.ServerResponse): Promise<void> {
    if (req.method === 'POST' && url === '/v1/files') {
      const form = await new Request('http://stand-in/', { method: 'POST', headers: { 'content-type': String(req.headers['content-type']) }, body: new Uint8Array(raw) }).formData();
      const file = form.get('file');
      if (form.get('purpose') !== 'batch' || !(file instanceof Blob)) return send(res, 400, errorBody(400, 'a batch file needs purpose=batch and a file'));
      const id = `file-in-${files.size + 1}`;
      files.set(id, await file.text());
      return send(res, 200, { id, object: 'file', purpose: 'batch' });
    }
    if (req.method === 'POST' && url === '/v1/batches') {
      const body = JSON.parse(raw.toString('utf8')) as { input_file_id?: string; endpoint?: string; completion_window?: string };
      const input = files.get(body.input_file_id ?? '');
      const problems = [...(input === undefined ? ['unknown input_file_id'] : []), ...(body.endpoint !== '/v1/chat/completions' ? [`endpoint ${body.endpoint}`] : []), ...(body.completion_window !== '24h' ? [`window ${body.completion_window}`] : [])];
      const batch: StandInBatch = { id: `batch_${batches.length + 1}`, lines: (input ?? '').split('\n').filter((l) => l.trim() !== '').length, polls: 0, problems, input: input ?? '', cancelRequests: 0, cancelled: false };
      batches.push(batch);
      return send(res, 200, { id: batch.id, object: 'batch', status: 'validating', input_file_id: body.input_file_id });
    }
    // POST /v1/batches/{id}/cancel: `cancelling` now, `cancelled` (nothing answered) at the next poll.
    const cancel = /^\/v1\/batches\/([^/]+)\/cancel$/.exec(url);
    if (req.method === 'POST' && cancel) {
      const batch = batches.find((b) => b.id === cancel[1]);
      if (!batch) return send(res, 404, errorBody(404, `no batch ${cancel[1]}`));
      batch.cancelRequests++;
      if (!batch.output) batch.cancelled = true;
      return send(res, 200, { id: batch.id, object: 'batch', status: batch.output ? 'completed' : 'cancelling' });
    }
    const poll = /^\/v1\/batches\/([^/]+)$/.exec(url);
    if (req.method === 'GET' && poll) {
      const batch = batches.find((b) => b.id === poll[1]);
      if (!batch) return send(res, 404, errorBody(404, `no batch ${poll[1]}`));
      batch.polls++;
      if (batch.cancelled) return send(res, 200, { id: batch.id, object: 'batch', status: 'cancelled', output_file_id: null, error_file_id: null });
      if (batch.polls <= (options.batchPolls ?? 1)) return send(res, 200, { id: batch.id, object: 'batch', status: 'in_progress' });
      if (!batch.output) {
        const out: string[] = [];
        for (const line of batch.input.split('\n').filter((l) => l.trim() !== '')) {
          const item = JSON.parse(line) as { custom_id?: string; method?: string; url?: string; body?: Record<string, unknown> };
          if (item.method !== 'POST' || item.url !== '/v1/chat/completions' || !item.custom_id) batch.problems.push(`line ${line.slice(0, 80)}`);
          const request = inspect('POST', '/v1/chat/completions', `Bearer ${key}`, {}, item.body ?? {}, true);
          received.push(request);
          const reply = options.reply(request, received.length);
          const response =
            'text' in reply
              ? { status_code: 200, request_id: `req_${received.length}`, body: answerOf(reply, request.prompt, received.length).body }
              : 'status' in reply
                ? { status_code: reply.status, request_id: `req_${received.length}`, body: errorBody(reply.status, reply.message, reply.code) }
                : { status_code: 500, request_id: `req_${received.length}`, body: errorBody(500, 'the stand-in cannot hang or redirect inside a batch') };
          out.push(JSON.stringify({ id: `batch_req_${received.length}`, custom_id: item.custom_id, response, error: null }));
        }
        batch.output = `file-out-${batch.id}`;
        files.set(batch.output, out.join('\n') + '\n');
      }
      return send(res, 200, { id: batch.id, object: 'batch', status: 'completed', output_file_id: batch.output, error_file_id: null });
    }
    const content = /^\/v1\/files\/([^/]+)\/content$/.exec(url);
    if (req.method === 'GET' && content && files.has(content[1]!)) return void res.writeHead(200, { 'content-type': 'application/jsonl' }).end(files.get(content[1]!));
    return send(res, 404, errorBody(404, `not found: ${req.method} ${url}`));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    batches,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const STAND_IN_VERSIONS = VERSION;

/** A batch the stand-in received: its input lines, how often it was polled, what was wrong with it. */
export interface StandInBatch {
  readonly id: string;
  readonly lines: number;
  readonly input: string;
  polls: number;
  output?: string;
  /** POST /v1/batches/{id}/cancel received, how many times. */
  cancelRequests: number;
  /** Cancelled before it completed: it answers nothing. */
  cancelled: boolean;
  readonly problems: string[];
}
