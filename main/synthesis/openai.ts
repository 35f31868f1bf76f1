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
}

interface ChatResponse {
  readonly choices?: readonly { readonly message?: { readonly content?: string | null; readonly refusal?: string | null }; readonly finish_reason?: string | null }[];
  readonly usage?: { readonly prompt_tokens?: number; readonly completion_tokens?: number };
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
      let response: Response;
      try {
        response = await doFetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}) },
          body: JSON.stringify(body),
          ...(request.signal ? { signal: request.signal } : {}),
        });
      } catch (error) {
        if (request.signal?.aborted || error instanceof ProviderError) throw error;
        throw new ProviderError(`cannot reach ${endpoint}: ${error instanceof Error ? error.message : String(error)}`, undefined, true);
      }
      const text = await response.text();
      let parsed: ChatResponse | undefined;
      try {
        parsed = JSON.parse(text) as ChatResponse;
      } catch {
        parsed = undefined;
      }
      if (!response.ok || !parsed || parsed.error) {
        const message = typeof parsed?.error === 'string' ? parsed.error : (parsed?.error?.message ?? text.slice(0, 200));
        throw new ProviderError(`${endpoint} answered ${response.status}: ${message}`, response.status, isRetryableStatus(response.status), parseRetryAfter(response.headers.get('retry-after')));
      }
      const choice = parsed.choices?.[0];
      const finish = finishOf(choice?.finish_reason, choice?.message?.refusal);
      return {
        text: choice?.message?.content ?? '',
        finish,
        ...(finish !== 'stop' ? { finishReason: choice?.message?.refusal ? `refusal: ${choice.message.refusal}` : String(choice?.finish_reason) } : {}),
        usage: { inputTokens: parsed.usage?.prompt_tokens ?? 0, outputTokens: parsed.usage?.completion_tokens ?? 0 },
      };
    },
    async [Symbol.asyncDispose]() {},
  };
}
