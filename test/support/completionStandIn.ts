import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the stand-in received it. */
export interface CompletionRequest {
  readonly method: string;
  readonly url: string;
  readonly contentType: string | undefined;
  readonly body: Record<string, unknown>;
  readonly prompt: string;
}

/** A completion, or an error status with the message the server gives. */
export type CompletionReply = { readonly text: string; readonly tokens?: number } | { readonly status: number; readonly message: string };

/**
 * A stand-in for an OpenAI-compatible completion server (llama-server, vLLM): records every
 * request and answers what `reply` says for it (`n` counts the requests, from 1).
 */
export async function startCompletionStandIn(
  reply: (request: CompletionRequest, n: number) => CompletionReply | Promise<CompletionReply>,
  options: { engine?: 'llama-server' | 'vllm' } = {},
): Promise<{ url: string; received: CompletionRequest[]; close: () => Promise<void> }> {
  const received: CompletionRequest[] = [];
  const server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      // The workbench asks /v1/models before it queues a run (and /props, /version to know the engine): a model list, and 404s.
      if (req.method === 'GET') {
        if (req.url === '/v1/models') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'stand-in' }] }));
        if (req.url === '/props' && options.engine === 'llama-server') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ total_slots: 4 }));
        if (req.url === '/version' && options.engine === 'vllm') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ version: '0.11.0' }));
        return void res.writeHead(404).end('not found');
      }
      const body = JSON.parse(data) as Record<string, unknown>;
      const request = { method: req.method!, url: req.url!, contentType: req.headers['content-type'], body, prompt: String(body['prompt']) };
      received.push(request);
      void Promise.resolve(reply(request, received.length)).then((answer) => {
        if (res.destroyed) return;
        res.setHeader('content-type', 'application/json');
        if ('status' in answer) res.writeHead(answer.status).end(JSON.stringify({ error: { message: answer.message } }));
        else res.end(JSON.stringify({ choices: [{ text: answer.text, finish_reason: 'stop' }], usage: { completion_tokens: answer.tokens ?? 17 } }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
