/**
 * One interface for every model a run can use (as promptfoo's providers and Inspect's ModelAPI):
 * hosted APIs (OpenAI, Anthropic, Gemini), OpenAI-compatible servers with or without a key, and a
 * pool of such servers. What a provider can do is data (ProviderCapabilities), so a run, the New
 * run page and a repair loop around it ask rather than branch on names. The local GGUF backend
 * (local.ts) decodes token by token and keeps its own slot interface; its capabilities are
 * LOCAL_CAPABILITIES.
 */

export const PROVIDER_NAMES = ['openai', 'anthropic', 'gemini', 'openai-compatible'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

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
}

export const LOCAL_CAPABILITIES: ProviderCapabilities = { logits: true, constraints: 'tokens', completion: true, chat: true, prefill: true, batch: false, listsModels: false };

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
}

/** What the model is asked: text to continue, or a conversation (a repair loop appends turns to it). */
export type ProviderPrompt =
  | { readonly kind: 'completion'; readonly text: string }
  | {
      readonly kind: 'chat';
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
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface ProviderOutput {
  readonly text: string;
  /** `stop`: the model ended (or a stop text); `length`: the token limit cut it. */
  readonly finish: 'stop' | 'length' | 'other';
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
  readonly name: ProviderName;
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
}
