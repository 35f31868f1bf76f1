import pLimit from 'p-limit';
import { assertKeyOrigin, requestIds, requestJson, UnusableAnswerError, usageFrom, type HttpOptions } from './http.js';
import type { ModelProvider, ProviderOutput } from './types.js';

export const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';
export const ANTHROPIC_VERSION = '2023-06-01';

export interface AnthropicOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseUrl?: string;
  readonly concurrency?: number;
}

interface MessagesAnswer {
  readonly id?: string;
  readonly model?: string;
  readonly content?: readonly { readonly type?: string; readonly text?: string }[];
  readonly stop_reason?: string | null;
  readonly usage?: { readonly input_tokens?: unknown; readonly output_tokens?: unknown };
}

/**
 * Anthropic's messages API (`x-api-key` and `anthropic-version`). The reply can be prefilled: a
 * chat prompt's `prefill` goes as the assistant's turn, and the model continues it, as a local
 * chat model continues the starter code.
 */
export function anthropicMessages(options: AnthropicOptions): ModelProvider {
  const base = (options.baseUrl ?? ANTHROPIC_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
  assertKeyOrigin(base, 'Anthropic', 'api.anthropic.com');
  const headers = { 'x-api-key': options.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  const concurrency = options.concurrency ?? 8;
  const limit = pLimit(concurrency);
  return {
    name: 'anthropic',
    model: options.model,
    capabilities: { logits: false, constraints: 'none', completion: false, chat: true, prefill: true, batch: false, listsModels: true, jsonSchema: false },
    concurrency,
    describe: { provider: 'anthropic', baseUrl: new URL(base).origin, api: 'messages', anthropicVersion: ANTHROPIC_VERSION },
    generate: (prompt, generateOptions, signal) =>
      limit(async (): Promise<ProviderOutput> => {
        const messages = prompt.kind === 'chat' ? [...prompt.messages, ...(prompt.prefill ? [{ role: 'assistant' as const, content: prompt.prefill.replace(/\s+$/, '') }] : [])] : [{ role: 'user' as const, content: prompt.text }];
        const body = {
          model: options.model,
          max_tokens: generateOptions.maxTokens,
          ...(prompt.kind === 'chat' && prompt.system ? { system: prompt.system } : {}),
          messages,
          temperature: Math.min(1, generateOptions.temperature),
          ...(generateOptions.topK !== undefined && generateOptions.temperature > 0 && generateOptions.topK > 0 ? { top_k: generateOptions.topK } : {}),
          ...(generateOptions.stop?.length ? { stop_sequences: generateOptions.stop.filter((s) => s.trim() !== '') } : {}),
        };
        const answer = await requestJson(`${base}/v1/messages`, { method: 'POST', headers, body }, signal, options);
        const parsed = answer.body as MessagesAnswer;
        if (!Array.isArray(parsed.content)) throw new UnusableAnswerError(`${base}/v1/messages answered without content`);
        // Prefill ending in whitespace is refused by the API: it was trimmed, and the model's text is given back after the full prefill.
        const trimmed = prompt.kind === 'chat' && prompt.prefill ? prompt.prefill.slice(prompt.prefill.replace(/\s+$/, '').length) : '';
        let text = parsed.content.filter((c) => c?.type === 'text' && typeof c.text === 'string').map((c) => c.text ?? '').join('');
        if (trimmed && text.startsWith(trimmed)) text = text.slice(trimmed.length);
        else if (trimmed) text = text.replace(/^\s+/, '');
        return {
          text,
          finish: parsed.stop_reason === 'max_tokens' ? 'length' : parsed.stop_reason === 'end_turn' || parsed.stop_reason === 'stop_sequence' ? 'stop' : 'other',
          usage: usageFrom(`${base}/v1/messages`, { input: [['usage.input_tokens', parsed.usage?.input_tokens]], output: [['usage.output_tokens', parsed.usage?.output_tokens]] }, 'both'),
          requestIds: requestIds(typeof parsed.id === 'string' ? parsed.id : undefined, answer.headers.get('request-id')),
          ...(typeof parsed.model === 'string' && parsed.model ? { modelVersion: parsed.model } : {}),
        };
      }),
    check: async (signal) => {
      await requestJson(`${base}/v1/models/${encodeURIComponent(options.model)}`, { method: 'GET', headers }, signal, { ...options, retry: { retries: 1, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
    },
    listModels: async (signal) => {
      const answer = await requestJson(`${base}/v1/models?limit=1000`, { method: 'GET', headers }, signal, options);
      return ((answer.body as { data?: { id?: string }[] }).data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string').sort();
    },
  };
}
