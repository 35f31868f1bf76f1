import pLimit from 'p-limit';
import { assertKeyOrigin, requestIds, requestJson, UnusableAnswerError, usageFrom, type HttpOptions } from './http.js';
import { messagesOf } from './openai.js';
import type { ModelProvider, ProviderOutput } from './types.js';

export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

/** Finish reasons that mean a filter stopped the answer. */
const BLOCKED: ReadonlySet<string> = new Set(['SAFETY', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION']);

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

/**
 * Gemini's generateContent over plain HTTP (`x-goog-api-key`; the key never goes in the URL, where
 * logs keep it), for runs and synthesis alike. Not through @google/genai: its fetch would follow
 * redirects and read bodies outside the wing's one redirect policy, size cap and time limit.
 */
export function geminiGenerate(options: GeminiOptions): ModelProvider {
  const base = (options.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '').replace(/\/v1beta$/, '');
  assertKeyOrigin(base, 'Gemini', 'generativelanguage.googleapis.com');
  const headers = { 'x-goog-api-key': options.apiKey };
  const model = options.model.replace(/^models\//, '');
  const concurrency = options.concurrency ?? 8;
  const limit = pLimit(concurrency);
  return {
    name: 'gemini',
    model,
    capabilities: { logits: false, constraints: 'none', completion: false, chat: true, prefill: false, batch: false, listsModels: true, jsonSchema: true },
    concurrency,
    describe: { provider: 'gemini', baseUrl: new URL(base).origin, api: 'generateContent' },
    generate: (prompt, generateOptions, signal) =>
      limit(async (): Promise<ProviderOutput> => {
        const body = {
          contents: messagesOf(prompt).map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] })),
          ...(prompt.kind === 'chat' && prompt.system ? { systemInstruction: { parts: [{ text: prompt.system }] } } : {}),
          generationConfig: {
            temperature: generateOptions.temperature,
            maxOutputTokens: generateOptions.maxTokens,
            ...(generateOptions.topP !== undefined && generateOptions.temperature > 0 ? { topP: generateOptions.topP } : {}),
            ...(generateOptions.topK !== undefined && generateOptions.temperature > 0 && generateOptions.topK > 0 ? { topK: generateOptions.topK } : {}),
            ...(generateOptions.seed !== undefined ? { seed: generateOptions.seed } : {}),
            ...(generateOptions.stop?.length ? { stopSequences: generateOptions.stop.slice(0, 5) } : {}),
            // responseJsonSchema (not the OpenAPI-subset responseSchema, which cannot say "any header name").
            ...(generateOptions.jsonSchema ? { responseMimeType: 'application/json', responseJsonSchema: generateOptions.jsonSchema.schema } : {}),
          },
        };
        const where = `${base}/v1beta/models/${encodeURIComponent(model)}:generateContent`;
        const answer = await requestJson(where, { method: 'POST', headers, body }, signal, options);
        const parsed = answer.body as GenerateContentAnswer;
        const usage = (): ProviderOutput['usage'] =>
          // A blocked or empty answer has no candidatesTokenCount: only the prompt's count is always there.
          usageFrom(where, { input: [['usageMetadata.promptTokenCount', parsed.usageMetadata?.promptTokenCount]], output: [['usageMetadata.candidatesTokenCount', parsed.usageMetadata?.candidatesTokenCount], ['usageMetadata.thoughtsTokenCount', parsed.usageMetadata?.thoughtsTokenCount]] }, 'input');
        const blockReason = parsed.promptFeedback?.blockReason;
        if (typeof blockReason === 'string' && blockReason !== '') return { text: '', finish: 'blocked', finishReason: `prompt blocked: ${blockReason}`, usage: usage(), requestIds: requestIds(parsed.responseId) };
        const candidate = Array.isArray(parsed.candidates) ? parsed.candidates[0] : undefined;
        if (!candidate) throw new UnusableAnswerError('no candidate');
        const parts: readonly { readonly text?: string; readonly thought?: boolean }[] = Array.isArray(candidate.content?.parts) ? candidate.content.parts : [];
        const reason = candidate.finishReason;
        const finish = reason === 'MAX_TOKENS' ? 'length' : reason === 'STOP' || reason === undefined ? 'stop' : reason !== undefined && BLOCKED.has(reason) ? 'blocked' : 'other';
        return {
          text: parts.filter((p) => !p?.thought && typeof p?.text === 'string').map((p) => p.text ?? '').join(''),
          finish,
          ...(finish !== 'stop' && reason ? { finishReason: reason } : {}),
          usage: usage(),
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
