import pLimit from 'p-limit';
import { FatalProviderError, mayCarryKey, requestIds, requestJson, UnusableAnswerError, usageFrom, type HttpOptions } from './http.js';
import { messagesOf } from './openai.js';
import type { ModelProvider, ProviderOutput } from './types.js';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

export interface GeminiOptions extends HttpOptions {
  readonly model: string;
  readonly apiKey: string;
  readonly baseUrl?: string;
  readonly concurrency?: number;
}

interface GenerateContentAnswer {
  readonly candidates?: readonly { readonly content?: { readonly parts?: readonly { readonly text?: string; readonly thought?: boolean }[] }; readonly finishReason?: string }[];
  readonly usageMetadata?: { readonly promptTokenCount?: unknown; readonly candidatesTokenCount?: unknown; readonly thoughtsTokenCount?: unknown };
  readonly modelVersion?: string;
  readonly responseId?: string;
  readonly promptFeedback?: { readonly blockReason?: string };
}

/** Gemini's generateContent (`x-goog-api-key`; the key never goes in the URL, where logs keep it). */
export function geminiGenerate(options: GeminiOptions): ModelProvider {
  const base = (options.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '').replace(/\/v1beta$/, '');
  if (!mayCarryKey(base, 'generativelanguage.googleapis.com')) throw new FatalProviderError(`the Gemini key is sent only to https://generativelanguage.googleapis.com or a server on this machine, not to ${new URL(base).origin}`);
  const headers = { 'x-goog-api-key': options.apiKey };
  const model = options.model.replace(/^models\//, '');
  const concurrency = options.concurrency ?? 8;
  const limit = pLimit(concurrency);
  return {
    name: 'gemini',
    model,
    capabilities: { logits: false, constraints: 'none', completion: false, chat: true, prefill: false, batch: false, listsModels: true },
    concurrency,
    describe: { provider: 'gemini', baseUrl: new URL(base).origin, api: 'generateContent' },
    generate: (prompt, generateOptions, signal) =>
      limit(async (): Promise<ProviderOutput> => {
        const body = {
          contents: messagesOf(prompt).map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
          generationConfig: {
            temperature: generateOptions.temperature,
            maxOutputTokens: generateOptions.maxTokens,
            ...(generateOptions.topP !== undefined && generateOptions.temperature > 0 ? { topP: generateOptions.topP } : {}),
            ...(generateOptions.topK !== undefined && generateOptions.temperature > 0 && generateOptions.topK > 0 ? { topK: generateOptions.topK } : {}),
            ...(generateOptions.seed !== undefined ? { seed: generateOptions.seed } : {}),
            ...(generateOptions.stop?.length ? { stopSequences: generateOptions.stop.slice(0, 5) } : {}),
          },
        };
        const where = `${base}/v1beta/models/${encodeURIComponent(model)}:generateContent`;
        const answer = await requestJson(where, { method: 'POST', headers, body }, signal, options);
        const parsed = answer.body as GenerateContentAnswer;
        const candidate = Array.isArray(parsed.candidates) ? parsed.candidates[0] : undefined;
        if (!candidate) throw new UnusableAnswerError(`no candidate${parsed.promptFeedback?.blockReason ? `: the prompt was blocked (${parsed.promptFeedback.blockReason})` : ''}`);
        const parts: readonly { readonly text?: string; readonly thought?: boolean }[] = Array.isArray(candidate.content?.parts) ? candidate.content.parts : [];
        return {
          text: parts.filter((p) => !p?.thought && typeof p?.text === 'string').map((p) => p.text ?? '').join(''),
          finish: candidate.finishReason === 'MAX_TOKENS' ? 'length' : candidate.finishReason === 'STOP' ? 'stop' : 'other',
          // A blocked or empty answer has no candidatesTokenCount: only the prompt's count is always there.
          usage: usageFrom(where, { input: [['usageMetadata.promptTokenCount', parsed.usageMetadata?.promptTokenCount]], output: [['usageMetadata.candidatesTokenCount', parsed.usageMetadata?.candidatesTokenCount], ['usageMetadata.thoughtsTokenCount', parsed.usageMetadata?.thoughtsTokenCount]] }, 'input'),
          requestIds: requestIds(parsed.responseId),
          ...(parsed.modelVersion ? { modelVersion: parsed.modelVersion } : {}),
        };
      }),
    check: async (signal) => {
      await requestJson(`${base}/v1beta/models/${encodeURIComponent(model)}`, { method: 'GET', headers }, signal, { ...options, retry: { retries: 1, minDelayMs: 200, maxDelayMs: 1000, maxRetryAfterMs: 2000 } });
    },
    listModels: async (signal) => {
      const answer = await requestJson(`${base}/v1beta/models?pageSize=1000`, { method: 'GET', headers }, signal, options);
      const models = (answer.body as { models?: { name?: string; supportedGenerationMethods?: string[] }[] }).models ?? [];
      return models
        .filter((m) => m.supportedGenerationMethods?.includes('generateContent') ?? true)
        .map((m) => m.name?.replace(/^models\//, ''))
        .filter((id): id is string => typeof id === 'string')
        .sort();
    },
  };
}
