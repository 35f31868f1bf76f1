import pLimit from 'p-limit';
import { assertKeyOrigin, requestIds, requestJson, UnusableAnswerError, usageFrom, type HttpOptions } from './http.js';
import type { ChatMessage, GenerateOptions, ModelProvider, ProviderOutput, ProviderPrompt } from './types.js';

export const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface OpenAiChatOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey: string;
  /** Default https://api.openai.com/v1; a loopback URL for a stand-in. */
  readonly baseUrl?: string;
  readonly concurrency?: number;
}

interface ChatCompletion {
  readonly id?: string;
  readonly model?: string;
  readonly choices?: readonly { readonly message?: { readonly content?: string | null; readonly refusal?: string | null }; readonly finish_reason?: string | null }[];
  readonly usage?: { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown };
}

/** `/v1` added to a bare origin, trailing slashes dropped. */
export const v1Base = (url: string): string => {
  const base = url.replace(/\/+$/, '');
  return /\/v1$/.test(base) ? base : `${base}/v1`;
};

/** The messages of a chat prompt (a completion prompt is one user message). */
export const messagesOf = (prompt: ProviderPrompt): readonly ChatMessage[] => (prompt.kind === 'chat' ? prompt.messages : [{ role: 'user', content: prompt.text }]);

/** The messages as OpenAI's chat API takes them: the system text as the first message. */
const openAiMessages = (prompt: ProviderPrompt): readonly { role: string; content: string }[] => [...(prompt.kind === 'chat' && prompt.system ? [{ role: 'system', content: prompt.system }] : []), ...messagesOf(prompt)];

/** A JSON Schema the answer must follow, as OpenAI, vLLM and llama-server take it (llama-server makes a grammar of it). */
export const responseFormat = (options: GenerateOptions): Record<string, unknown> => (options.jsonSchema ? { response_format: { type: 'json_schema', json_schema: { name: options.jsonSchema.name, schema: options.jsonSchema.schema } } } : {});

/** The body of a chat completion request, as OpenAI's Batch API lines carry it too. */
export function chatBody(model: string, prompt: ProviderPrompt, options: GenerateOptions, tokensField: 'max_tokens' | 'max_completion_tokens'): Record<string, unknown> {
  return {
    model,
    messages: openAiMessages(prompt),
    [tokensField]: options.maxTokens,
    temperature: options.temperature,
    ...(options.topP !== undefined && options.temperature > 0 ? { top_p: options.topP } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.stop?.length ? { stop: options.stop.slice(0, 4) } : {}),
    ...responseFormat(options),
  };
}

/**
 * A chat completion's answer as a ProviderOutput. `requireUsage`: OpenAI always reports usage, so
 * its absence is refused (the spending cap counts it); a server of your own may leave it out.
 */
export function chatOutput(body: unknown, headers: Headers | undefined, where: string, requireUsage: boolean): ProviderOutput {
  const parsed = (body ?? {}) as ChatCompletion;
  const choice = Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
  if (!choice?.message || typeof choice.message !== 'object') throw new UnusableAnswerError(`${where} answered without choices[0].message`);
  if (choice.message.content != null && typeof choice.message.content !== 'string') throw new UnusableAnswerError(`${where} answered a choices[0].message.content that is not text`);
  const refusal = typeof choice.message.refusal === 'string' && choice.message.refusal !== '' ? choice.message.refusal : undefined;
  const finish = refusal || choice.finish_reason === 'content_filter' ? 'blocked' : choice.finish_reason === 'length' ? 'length' : choice.finish_reason === 'stop' || choice.finish_reason == null ? 'stop' : 'other';
  return {
    text: choice.message.content ?? '',
    finish,
    ...(finish !== 'stop' ? { finishReason: refusal ? `refusal: ${refusal.slice(0, 200)}` : String(choice.finish_reason) } : {}),
    usage: usageFrom(where, { input: [['usage.prompt_tokens', parsed.usage?.prompt_tokens]], output: [['usage.completion_tokens', parsed.usage?.completion_tokens]] }, requireUsage ? 'both' : 'none'),
    requestIds: requestIds(typeof parsed.id === 'string' ? parsed.id : undefined, headers?.get('x-request-id')),
    ...(typeof parsed.model === 'string' && parsed.model ? { modelVersion: parsed.model } : {}),
  };
}

/** OpenAI's chat completions API (Bearer key). The answer's `model` is the dated snapshot that served it. */
export function openAiChat(options: OpenAiChatOptions): ModelProvider {
  const base = v1Base(options.baseUrl ?? OPENAI_BASE_URL);
  assertKeyOrigin(base, 'OpenAI', 'api.openai.com');
  const headers = { authorization: `Bearer ${options.apiKey}` };
  const concurrency = options.concurrency ?? 8;
  const limit = pLimit(concurrency);
  return {
    name: 'openai',
    model: options.model,
    capabilities: { logits: false, constraints: 'none', completion: false, chat: true, prefill: false, batch: true, listsModels: true, jsonSchema: true },
    concurrency,
    describe: { provider: 'openai', baseUrl: new URL(base).origin, api: 'chat/completions' },
    generate: (prompt, generateOptions, signal) =>
      limit(async () => {
        const answer = await requestJson(`${base}/chat/completions`, { method: 'POST', headers, body: chatBody(options.model, prompt, generateOptions, 'max_completion_tokens') }, signal, options);
        return chatOutput(answer.body, answer.headers, `${base}/chat/completions`, true);
      }),
    check: async (signal) => {
      await requestJson(`${base}/models/${encodeURIComponent(options.model)}`, { method: 'GET', headers }, signal, { ...options, retry: { retries: 1, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
    },
    listModels: async (signal) => {
      const answer = await requestJson(`${base}/models`, { method: 'GET', headers }, signal, options);
      return ((answer.body as { data?: { id?: string }[] }).data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').sort();
    },
  };
}
