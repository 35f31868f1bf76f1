import { ApiError, FinishReason, GoogleGenAI, type GenerateContentResponse } from '@google/genai';
import { boundedFetch, quote, usageFrom } from '../generation/providers/http.js';
import { SYNTHESIS_TIMEOUT_MS } from './openai.js';
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
  /** For the whole request, its answer's body included (default SYNTHESIS_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Default ANSWER_CAP_BYTES. */
  readonly maxAnswerBytes?: number;
  /** Under the SDK (tests). */
  readonly fetch?: typeof fetch;
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
    // The time limit is boundedFetch's, body included; the SDK's own (headers only) is a backstop behind it.
    httpOptions: { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), timeout: (options.timeoutMs ?? SYNTHESIS_TIMEOUT_MS) + 10_000 },
  });
  const maxOutputTokens = options.maxOutputTokens ?? 32_768;
  return {
    name: 'gemini',
    model,
    contextTokens: options.contextTokens ?? 1_048_576,
    maxOutputTokens,
    async generate(request: SynthesisRequest): Promise<ProviderAnswer> {
      let retryAfter: string | null = null;
      // The key travels in a header on every call: never after a redirect to another origin. The
      // SDK reads the body itself, so it gets it read already, under one time limit and size cap.
      const keyFetch = boundedFetch(sameOriginFetch(options.fetch ?? fetch), { defaultTimeoutMs: SYNTHESIS_TIMEOUT_MS, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.maxAnswerBytes !== undefined ? { maxAnswerBytes: options.maxAnswerBytes } : {}) });
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
          // The SDK puts the whole error body in the message: the key is taken out of all of it before it is cut.
          const whole = quote(error.message, options.apiKey, Number.MAX_SAFE_INTEGER);
          const detail = quote(/"message"\s*:\s*"([^"]*)/.exec(whole)?.[1] ?? whole, undefined);
          throw new ProviderError(`Gemini answered ${error.status}: ${detail}`, error.status, isRetryableStatus(error.status), parseRetryAfter(retryAfter));
        }
        if (request.signal?.aborted) throw error;
        throw new ProviderError(`cannot reach Gemini: ${quote(error instanceof Error ? error.message : String(error), options.apiKey)}`, undefined, true);
      }
      const { finish, reason } = finishOf(response);
      const usage = response.usageMetadata;
      return {
        text: response.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('') ?? '',
        finish,
        ...(reason ? { finishReason: reason } : {}),
        usage: usageFrom('Gemini generateContent', { input: [['usageMetadata.promptTokenCount', usage?.promptTokenCount]], output: [['usageMetadata.candidatesTokenCount', usage?.candidatesTokenCount], ['usageMetadata.thoughtsTokenCount', usage?.thoughtsTokenCount]] }, 'none'),
      };
    },
    async [Symbol.asyncDispose]() {},
  };
}
