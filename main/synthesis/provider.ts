import type { JsonSchema } from '../openapi/index.js';

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

/**
 * A failed call. `retryable` for 429 and 5xx (and lost connections); `retryAfterMs` when the
 * server said how long to wait (`Retry-After`).
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
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

/** `Retry-After`: seconds, or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

export const isRetryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;
