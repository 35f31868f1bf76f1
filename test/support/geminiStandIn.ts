import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in saw in one request, and what was wrong with it (empty when nothing). */
export interface SeenRequest {
  readonly path: string;
  readonly model: string;
  readonly key: string | undefined;
  readonly body: GeminiRequestBody;
  /** The endpoints the prompt asks for (`- GET /path (summary)` lines). */
  readonly asked: readonly string[];
  readonly prompt: string;
  readonly problems: readonly string[];
  readonly at: number;
}

export interface GeminiRequestBody {
  readonly contents?: { role?: string; parts?: { text?: string }[] }[];
  readonly systemInstruction?: { parts?: { text?: string }[] };
  readonly generationConfig?: { responseMimeType?: string; responseJsonSchema?: unknown; responseSchema?: unknown; maxOutputTokens?: number };
}

export interface Reply {
  readonly status?: number;
  readonly headers?: Record<string, string>;
  readonly body?: unknown;
  /** Never answer (the request hangs until the server closes). */
  readonly hang?: boolean;
}

export type Responder = (request: SeenRequest, index: number) => Reply;

/** A successful generateContent answer carrying `text`. */
export function textReply(text: string, finishReason = 'STOP'): Reply {
  return {
    body: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason, index: 0 }],
      usageMetadata: { promptTokenCount: 1000, candidatesTokenCount: Math.ceil(text.length / 4), totalTokenCount: 1000 + Math.ceil(text.length / 4) },
      modelVersion: 'stand-in',
    },
  };
}

export const samplesReply = (samples: readonly unknown[]): Reply => textReply(JSON.stringify({ samples }));

/** What Gemini answers when a safety filter stops the candidate: no text, finishReason SAFETY. */
export const safetyReply = (): Reply => ({
  body: {
    candidates: [{ finishReason: 'SAFETY', index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }] }],
    usageMetadata: { promptTokenCount: 1000, totalTokenCount: 1000 },
  },
});

export const errorReply = (status: number, message: string, headers: Record<string, string> = {}): Reply => ({
  status,
  headers,
  body: { error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : 'INTERNAL' } },
});

/**
 * A local stand-in for the Gemini API (generativelanguage.googleapis.com), for the SDK's base URL
 * to point at. It checks every request it receives — the model in the path, the API key header,
 * JSON output with a response schema of the samples format, the asked endpoints in the prompt —
 * records what it saw, and answers what the test's responder says.
 */
export async function startGeminiStandIn(options: { key: string; model: string; respond: Responder }): Promise<{ url: string; requests: SeenRequest[]; respond: { current: Responder }; close: () => Promise<void> }> {
  const requests: SeenRequest[] = [];
  const respond = { current: options.respond };
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const problems: string[] = [];
      const match = /^\/v1beta\/models\/([^/:]+):generateContent$/.exec(req.url ?? '');
      if (req.method !== 'POST') problems.push(`method ${req.method}`);
      if (!match) problems.push(`path ${req.url}`);
      const model = match?.[1] ?? '';
      if (model !== options.model) problems.push(`model ${model}, expected ${options.model}`);
      const key = req.headers['x-goog-api-key'];
      const keyText = Array.isArray(key) ? key[0] : key;
      if (keyText !== options.key) problems.push('wrong or missing x-goog-api-key header');
      let body: GeminiRequestBody = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as GeminiRequestBody;
      } catch {
        problems.push('body is not JSON');
      }
      const config = body.generationConfig ?? {};
      if (config.responseMimeType !== 'application/json') problems.push(`responseMimeType ${config.responseMimeType}`);
      const schema = config.responseJsonSchema as { properties?: { samples?: { items?: { properties?: Record<string, unknown>; required?: string[] } } }; required?: string[] } | undefined;
      const item = schema?.properties?.samples?.items;
      if (!schema?.required?.includes('samples') || !item?.properties?.['task'] || !item.properties['config'] || !item.required?.includes('config')) problems.push('no response schema of {"samples": [{"task", "config"}]}');
      const prompt = (body.contents ?? []).flatMap((c) => c.parts ?? []).map((p) => p.text ?? '').join('\n');
      const system = (body.systemInstruction?.parts ?? []).map((p) => p.text ?? '').join('\n');
      if (!/Bearer <token>/.test(system)) problems.push('the instructions do not ask for placeholder credentials');
      if (!/OpenAPI specification/.test(prompt)) problems.push('no spec in the prompt');
      const asked = [...prompt.matchAll(/^- ([A-Z]+ \/\S*)/gm)].map((m) => m[1] ?? '');
      if (asked.length === 0) problems.push('no endpoint asked for in the prompt');
      const seen: SeenRequest = { path: req.url ?? '', model, key: keyText, body, asked, prompt, problems, at: Date.now() };
      requests.push(seen);
      const reply = respond.current(seen, requests.length - 1);
      if (reply.hang) {
        hanging.add(res);
        return;
      }
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
      res.end(JSON.stringify(reply.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    respond,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
