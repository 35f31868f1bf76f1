import { ApiError, FinishReason, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { sameOriginFetch } from './sameOrigin.js';
import { isRetryableStatus, parseRetryAfter, ProviderError, type FinishKind, type ProviderAnswer, type SynthesisProvider, type SynthesisRequest } from './provider.js';

/** The generally available Pro model (previews are retired on short notice). */
export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-pro';

export interface GeminiOptions {
  readonly apiKey: string;
  readonly model?: string;
  /** The SDK's base URL (httpOptions.baseUrl): a proxy, or a stand-in in tests. */
  readonly baseUrl?: string;
  readonly contextTokens?: number;
  readonly maxOutputTokens?: number;
  readonly timeoutMs?: number;
}

const BLOCKED: ReadonlySet<string> = new Set([FinishReason.SAFETY, FinishReason.PROHIBITED_CONTENT, FinishReason.BLOCKLIST, FinishReason.SPII, FinishReason.RECITATION]);

function finishOf(response: GenerateContentResponse): { finish: FinishKind; reason?: string } {
  const blockReason = response.promptFeedback?.blockReason;
  if (blockReason) return { finish: 'blocked', reason: `prompt blocked: ${blockReason}` };
  const reason = response.candidates?.[0]?.finishReason;
  if (reason === undefined || reason === FinishReason.STOP) return { finish: 'stop' };
  if (reason === FinishReason.MAX_TOKENS) return { finish: 'length', reason };
  if (BLOCKED.has(reason)) return { finish: 'blocked', reason };
  return { finish: 'other', reason };
}

/**
 * Gemini through the official SDK: JSON output constrained by the answer's JSON Schema
 * (`responseJsonSchema`; the older OpenAPI-subset `responseSchema` cannot say "any header name",
 * which `headers`, `params` and `data` need). The SDK's own retries stay off (it ignores
 * `Retry-After`); the job retries, reading `Retry-After` through a fetch wrapper per call.
 */
export function geminiProvider(options: GeminiOptions): SynthesisProvider {
  const model = options.model ?? DEFAULT_GEMINI_MODEL;
  const client = new GoogleGenAI({
    apiKey: options.apiKey,
    httpOptions: { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), timeout: options.timeoutMs ?? 600_000 },
  });
  const maxOutputTokens = options.maxOutputTokens ?? 32_768;
  return {
    name: 'gemini',
    model,
    contextTokens: options.contextTokens ?? 1_048_576,
    maxOutputTokens,
    async generate(request: SynthesisRequest): Promise<ProviderAnswer> {
      let retryAfter: string | null = null;
      // The key travels in a header on every call: never after a redirect to another origin.
      const keyFetch = sameOriginFetch();
      const recordingFetch: typeof fetch = async (input, init) => {
        const response = await keyFetch(input, init);
        retryAfter = response.headers.get('retry-after');
        return response;
      };
      let response: GenerateContentResponse;
      try {
        response = await client.models.generateContent({
          model,
          contents: [{ role: 'user', parts: [{ text: request.user }] }],
          config: {
            systemInstruction: request.system,
            responseMimeType: 'application/json',
            responseJsonSchema: request.schema,
            maxOutputTokens,
            temperature: 1,
            httpOptions: { fetch: recordingFetch },
            ...(request.signal ? { abortSignal: request.signal } : {}),
          },
        });
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        if (error instanceof ApiError) {
          // The SDK puts the whole error body in the message; the first line of its text is enough.
          const detail = /"message"\s*:\s*"([^"]{0,200})/.exec(error.message)?.[1] ?? error.message.slice(0, 200);
          throw new ProviderError(`Gemini answered ${error.status}: ${detail}`, error.status, isRetryableStatus(error.status), parseRetryAfter(retryAfter));
        }
        if (request.signal?.aborted) throw error;
        throw new ProviderError(`cannot reach Gemini: ${error instanceof Error ? error.message : String(error)}`, undefined, true);
      }
      const { finish, reason } = finishOf(response);
      const usage = response.usageMetadata;
      return {
        text: response.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('') ?? '',
        finish,
        ...(reason ? { finishReason: reason } : {}),
        usage: { inputTokens: usage?.promptTokenCount ?? 0, outputTokens: (usage?.candidatesTokenCount ?? 0) + (usage?.thoughtsTokenCount ?? 0) },
      };
    },
    async [Symbol.asyncDispose]() {},
  };
}
