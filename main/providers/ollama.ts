import pLimit from 'p-limit';
import { ProviderError, requestJson, UnusableAnswerError, usageFrom, type HttpOptions } from './http.js';
import type { GenerateOptions, ModelProvider, ProviderOutput } from './types.js';

export const OLLAMA_BASE_URL = 'http://127.0.0.1:11434';

export interface OllamaOptions extends HttpOptions {
  readonly model: string;
  /** Default http://127.0.0.1:11434. */
  readonly baseUrl?: string;
  /** Requests in flight at once (Ollama serves OLLAMA_NUM_PARALLEL per model; default 4). */
  readonly concurrency?: number;
}

/** What /api/generate and /api/chat answer with `stream: false`. */
interface OllamaAnswer {
  readonly model?: string;
  readonly response?: unknown;
  readonly message?: { readonly role?: string; readonly content?: unknown };
  readonly done_reason?: string;
  readonly prompt_eval_count?: unknown;
  readonly eval_count?: unknown;
}

/** Sampling as Ollama's `options` name it; a JSON Schema as its `format`. */
const requestOptions = (o: GenerateOptions): Record<string, unknown> => ({
  stream: false,
  options: {
    temperature: o.temperature,
    num_predict: o.maxTokens,
    ...(o.topP !== undefined ? { top_p: o.topP } : {}),
    ...(o.topK !== undefined && o.topK > 0 ? { top_k: o.topK } : {}),
    ...(o.seed !== undefined ? { seed: o.seed } : {}),
    ...(o.stop?.length ? { stop: [...o.stop] } : {}),
  },
  ...(o.jsonSchema ? { format: o.jsonSchema.schema } : {}),
});

/**
 * Ollama's native API (a server on this machine or the network, no key): completion prompts to
 * base models through /api/generate with `raw: true` (no template around the text, so the model
 * continues the starter code as written), chat through /api/chat, a JSON Schema answer through
 * `format`, the models it has through /api/tags.
 */
export function ollama(options: OllamaOptions): ModelProvider {
  const base = (options.baseUrl ?? OLLAMA_BASE_URL).replace(/\/+$/, '').replace(/\/api$/, '');
  const origin = new URL(base).origin;
  const concurrency = options.concurrency ?? 4;
  const limit = pLimit(concurrency);
  const tags = async (signal: AbortSignal, http: HttpOptions = options): Promise<string[]> => {
    const answer = await requestJson(`${base}/api/tags`, { method: 'GET', headers: {} }, signal, http);
    const models = (answer.body as { models?: unknown }).models;
    return (Array.isArray(models) ? models : []).map((m: { name?: unknown }) => m?.name).filter((name): name is string => typeof name === 'string').sort();
  };
  const outputOf = (body: unknown, where: string, text: unknown): ProviderOutput => {
    const parsed = body as OllamaAnswer;
    if (typeof text !== 'string') throw new UnusableAnswerError(`${where} answered without its text`);
    return {
      text,
      finish: parsed.done_reason === 'length' ? 'length' : parsed.done_reason === 'stop' || parsed.done_reason === undefined ? 'stop' : 'other',
      ...(parsed.done_reason !== undefined && parsed.done_reason !== 'stop' ? { finishReason: String(parsed.done_reason).slice(0, 60) } : {}),
      // A prompt Ollama had cached reports no prompt_eval_count: a count it leaves out is 0.
      usage: usageFrom(where, { input: [['prompt_eval_count', parsed.prompt_eval_count]], output: [['eval_count', parsed.eval_count]] }, 'none'),
      requestIds: [],
      ...(typeof parsed.model === 'string' && parsed.model ? { modelVersion: parsed.model } : {}),
      server: origin,
    };
  };
  return {
    name: 'ollama',
    model: options.model,
    capabilities: { logits: false, constraints: 'none', completion: true, chat: true, prefill: false, batch: false, listsModels: true, jsonSchema: true },
    concurrency,
    describe: { provider: 'ollama', baseUrl: origin, api: 'generate/chat' },
    generate: (prompt, o, signal) =>
      limit(async () => {
        if (prompt.kind === 'completion') {
          const where = `${base}/api/generate`;
          const answer = await requestJson(where, { method: 'POST', headers: {}, body: { model: options.model, prompt: prompt.text, raw: true, ...requestOptions(o) } }, signal, options);
          return outputOf(answer.body, where, (answer.body as OllamaAnswer).response);
        }
        const where = `${base}/api/chat`;
        const messages = [...(prompt.system ? [{ role: 'system', content: prompt.system }] : []), ...prompt.messages.map((m) => ({ role: m.role, content: m.content }))];
        const answer = await requestJson(where, { method: 'POST', headers: {}, body: { model: options.model, messages, ...requestOptions(o) } }, signal, options);
        return outputOf(answer.body, where, (answer.body as OllamaAnswer).message?.content);
      }),
    check: async (signal) => {
      const names = await tags(signal, { ...options, retry: { retries: 1, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
      // Ollama names a model by tag; `llama3` is `llama3:latest`.
      if (!names.includes(options.model) && !names.includes(`${options.model}:latest`)) {
        throw new ProviderError(`${origin} has no model "${options.model.slice(0, 80)}" (it has ${names.length === 0 ? 'none' : names.slice(0, 5).join(', ')}): pull it first (ollama pull ${options.model.slice(0, 80)})`, 404, false);
      }
    },
    listModels: (signal) => tags(signal),
  };
}
