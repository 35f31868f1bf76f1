import type { JsonSchema } from '../openapi/index.js';

/**
 * One interface for every caller of a model (as promptfoo's providers and Inspect's ModelAPI):
 * runs, repair, synthesis and New run's model list. Hosted APIs (OpenAI, Anthropic, Gemini),
 * OpenAI-compatible servers with or without a key and pools of them, Ollama, and a local GGUF
 * model. What a provider can do is data (ProviderCapabilities), so callers ask rather than branch
 * on names; registry.ts names each one. A local model's `logits` capability is what a run's
 * token-level constrained decoding uses (main/generation/local.ts decodes token by token).
 */

export interface ProviderCapabilities {
  /** The model's token probabilities can be read and masked (token-level constrained decoding). */
  readonly logits: boolean;
  /** How a run can be constrained: per token (logits), by a GBNF grammar the server enforces, or not at all. */
  readonly constraints: 'tokens' | 'grammar' | 'none';
  /** Takes a completion prompt (text the model continues). */
  readonly completion: boolean;
  /** Takes chat messages. */
  readonly chat: boolean;
  /** The assistant's reply can be opened with text the model continues (Anthropic; a local chat template). */
  readonly prefill: boolean;
  /** Offers an asynchronous batch API at a lower price (OpenAI's Batch API). */
  readonly batch: boolean;
  /** Lists its models (GET /models). */
  readonly listsModels: boolean;
  /** Its answer can be held to a JSON Schema (synthesis needs this). */
  readonly jsonSchema: boolean;
}

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** What the model is asked: text to continue, or a conversation (a repair loop appends turns to it). */
export type ProviderPrompt =
  | { readonly kind: 'completion'; readonly text: string }
  | {
      readonly kind: 'chat';
      /** Instructions apart from the conversation (a system message, Gemini's systemInstruction). */
      readonly system?: string;
      readonly messages: readonly ChatMessage[];
      /** The start of the model's reply, where the provider can prefill it (capabilities.prefill). */
      readonly prefill?: string;
    };

export interface GenerateOptions {
  readonly maxTokens: number;
  /** 0: greedy. */
  readonly temperature: number;
  readonly topP?: number;
  readonly topK?: number;
  /** Sent where the provider takes one (OpenAI, Gemini, servers). */
  readonly seed?: number;
  readonly stop?: readonly string[];
  /** A GBNF grammar, for providers whose constraints are 'grammar'. */
  readonly grammar?: string;
  /** The answer must be JSON valid against this schema (capabilities.jsonSchema). */
  readonly jsonSchema?: {
    readonly name: string;
    readonly schema: JsonSchema;
    /** The same shape with every string and key bounded, for a model decoded under a grammar made from it. */
    readonly bounded?: JsonSchema;
  };
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ProviderOutput {
  readonly text: string;
  /** `stop`: the model ended (or a stop text); `length`: the token limit cut it; `blocked`: a safety filter or a refusal. */
  readonly finish: 'stop' | 'length' | 'blocked' | 'other';
  /** Why, in the provider's words (`SAFETY`, a refusal), when it did not stop normally. */
  readonly finishReason?: string;
  readonly usage: TokenUsage;
  /** The provider's ids of the requests that produced this output (response id, request-id header). */
  readonly requestIds: readonly string[];
  /** The model version that answered (a dated snapshot name), when the provider says. */
  readonly modelVersion?: string;
  /** Which server answered (a pool), as its origin. */
  readonly server?: string;
  /** What went wrong around this output without failing it (a batch file with two result lines for it), one line each. */
  readonly notes?: readonly string[];
}

export interface ModelProvider {
  /** Its registry name (registry.ts). */
  readonly name: string;
  readonly model: string;
  readonly capabilities: ProviderCapabilities;
  /** Requests in flight at once (p-limit inside the provider). */
  readonly concurrency: number;
  /** For the manifest: where it sends requests (origins only; never a key). */
  readonly describe: Record<string, unknown>;
  /** One answer; throws ProviderError (a fatal one for a bad key or quota) after its retries. */
  generate(prompt: ProviderPrompt, options: GenerateOptions, signal: AbortSignal): Promise<ProviderOutput>;
  /** Cheap call that proves the endpoint answers and the key is accepted (before a run is queued). */
  check(signal: AbortSignal): Promise<void>;
  /**
   * The user cancelled the run: stop the work it left running at the provider (OpenAI's pending
   * batches), which would otherwise finish and be billed. Says what it stopped, one line each;
   * throws a ProviderError naming what it could not. An interrupted run keeps that work for its resume.
   */
  cancel?(signal: AbortSignal): Promise<readonly string[]>;
  /** Model ids the provider lists, where it lists them. */
  listModels?(signal: AbortSignal): Promise<string[]>;
  /** Prompt tokens the model takes, where known (synthesis cuts a spec that does not fit). */
  readonly contextTokens?: number;
  /** The most tokens one answer may take, where the provider sets a limit. */
  readonly maxOutputTokens?: number;
  /** Frees what it holds (a loaded model). */
  dispose?(): Promise<void>;
}
