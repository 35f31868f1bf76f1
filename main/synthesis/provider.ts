import type { JsonSchema } from '../openapi/index.js';

// One error family for runs and synthesis: defined with the provider HTTP layer.
export { isRetryableStatus, parseRetryAfter, ProviderError } from '../generation/providers/errors.js';

export const PROVIDERS = ['gemini', 'openai', 'local'] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** What one request to a provider asks: the prompt, and the shape the answer must have. */
export interface SynthesisRequest {
  readonly system: string;
  readonly user: string;
  /** The JSON Schema of `{"samples": [...]}` for these endpoints. */
  readonly schema: JsonSchema;
  /** A tighter schema with every string and key bounded, for grammar-constrained decoding. */
  readonly boundedSchema: JsonSchema;
  readonly signal?: AbortSignal;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** How a provider's answer ended. `length`: cut at the token limit; `blocked`: refused by a safety filter. */
export type FinishKind = 'stop' | 'length' | 'blocked' | 'other';

export interface ProviderAnswer {
  readonly text: string;
  readonly finish: FinishKind;
  /** Why, in the provider's words (`SAFETY`, `PROHIBITED_CONTENT`, ...), when it did not stop normally. */
  readonly finishReason?: string;
  readonly usage: TokenUsage;
}

/** One interface for Gemini, OpenAI-compatible servers and local GGUF models. */
export interface SynthesisProvider extends AsyncDisposable {
  readonly name: ProviderName;
  readonly model: string;
  /** How many prompt tokens the model takes; a whole spec that does not fit is cut to the asked endpoints. */
  readonly contextTokens: number;
  /** Tokens the answer may take. */
  readonly maxOutputTokens: number;
  generate(request: SynthesisRequest): Promise<ProviderAnswer>;
}
