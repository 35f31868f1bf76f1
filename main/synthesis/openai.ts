import { fetchAnswer, failureLine, quote, UnusableAnswerError, usageFrom } from '../generation/providers/http.js';
import { sameOriginFetch } from './sameOrigin.js';
import { isRetryableStatus, parseRetryAfter, ProviderError, type FinishKind, type ProviderAnswer, type SynthesisProvider, type SynthesisRequest } from './provider.js';

export interface OpenAiOptions {
  /** `http://127.0.0.1:8080`, `https://api.openai.com/v1`, ...; `/v1` is added when missing. */
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly contextTokens?: number;
  readonly maxOutputTokens?: number;
  readonly fetch?: typeof fetch;
  /** For the whole request, its answer's body included (default SYNTHESIS_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  /** Default ANSWER_CAP_BYTES. */
  readonly maxAnswerBytes?: number;
}

/** A synthesis answer runs to tens of thousands of tokens, not streamed: minutes, as Gemini's. */
export const SYNTHESIS_TIMEOUT_MS = 600_000;

interface ChatResponse {
  readonly choices?: readonly { readonly message?: { readonly content?: string | null; readonly refusal?: string | null }; readonly finish_reason?: string | null }[];
  readonly usage?: { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown };
  readonly error?: { readonly message?: string } | string;
}

const finishOf = (reason: string | null | undefined, refusal: string | null | undefined): FinishKind =>
  refusal ? 'blocked' : reason === 'length' ? 'length' : reason === 'content_filter' ? 'blocked' : reason === 'stop' || reason == null ? 'stop' : 'other';

/**
 * Any OpenAI-compatible chat server (OpenAI, vLLM, llama-server): one POST /v1/chat/completions
 * per request, the answer's JSON Schema as `response_format` (OpenAI and vLLM constrain by it,
 * llama-server turns it into a grammar).
 */
export function openAiProvider(options: OpenAiOptions): SynthesisProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const endpoint = /\/v1$/.test(base) ? `${base}/chat/completions` : `${base}/v1/chat/completions`;
  // With a key, a redirect is followed only within the endpoint's origin (the key is a header).
  const doFetch = options.apiKey ? sameOriginFetch(options.fetch ?? fetch) : (options.fetch ?? fetch);
  const maxOutputTokens = options.maxOutputTokens ?? 16_384;
  return {
    name: 'openai',
    model: options.model,
    contextTokens: options.contextTokens ?? 128_000,
    maxOutputTokens,
    async generate(request: SynthesisRequest): Promise<ProviderAnswer> {
      const body = {
        model: options.model,
        messages: [
          { role: 'system', content: request.system },
          { role: 'user', content: request.user },
        ],
        max_tokens: maxOutputTokens,
        response_format: { type: 'json_schema', json_schema: { name: 'wapiibench_samples', schema: request.schema } },
      };
      // One time limit for the request and its body, one cap on the answer's size (the provider HTTP layer's).
      const { response, text } = await fetchAnswer(
        endpoint,
        { method: 'POST', headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) }, body: JSON.stringify(body) },
        request.signal,
        { fetch: doFetch, defaultTimeoutMs: SYNTHESIS_TIMEOUT_MS, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.maxAnswerBytes !== undefined ? { maxAnswerBytes: options.maxAnswerBytes } : {}) },
      );
      let parsed: ChatResponse | undefined;
      try {
        parsed = JSON.parse(text) as ChatResponse;
      } catch {
        parsed = undefined;
      }
      if (!response.ok || (parsed && typeof parsed === 'object' && parsed.error)) {
        throw new ProviderError(failureLine(endpoint, response.status, text, options.apiKey), response.status, isRetryableStatus(response.status), parseRetryAfter(response.headers.get('retry-after')));
      }
      if (!parsed || typeof parsed !== 'object') throw new UnusableAnswerError(`${endpoint} answered ${response.status} with something that is not a JSON object: ${quote(text, options.apiKey, 120) || '(empty)'}`, response.status);
      const choice = Array.isArray(parsed.choices) ? parsed.choices[0] : undefined;
      const finish = finishOf(choice?.finish_reason, choice?.message?.refusal);
      return {
        text: choice?.message?.content ?? '',
        finish,
        ...(finish !== 'stop' ? { finishReason: choice?.message?.refusal ? `refusal: ${choice.message.refusal}` : String(choice?.finish_reason) } : {}),
        usage: usageFrom(endpoint, { input: [['usage.prompt_tokens', parsed.usage?.prompt_tokens]], output: [['usage.completion_tokens', parsed.usage?.completion_tokens]] }, 'none'),
      };
    },
    async [Symbol.asyncDispose]() {},
  };
}
