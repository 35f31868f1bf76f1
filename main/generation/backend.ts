import type { CompletionPrompt } from '../api/prompt.js';

/** What a run needs from wherever the model lives: completions, one slot per parallel sequence. */
export interface GenerationBackend extends AsyncDisposable {
  /** Describes the model and where it runs, for the run's manifest. */
  readonly manifest: Record<string, unknown>;
  readonly slots: number;
  /** A slot's generator; slots run concurrently, each one sample at a time. */
  slot(index: number): SlotGenerator;
  /** Hosted models and servers: tokens, cost, model versions and servers over the run so far (merged into its manifest). */
  totals?(): Record<string, unknown>;
  /** The user cancelled the run: stop what it left at the provider (a pending batch); a line saying what happened, if anything did. */
  cancelRemote?(): Promise<string | undefined>;
}

export interface SlotGenerator {
  generate(request: { prompt: CompletionPrompt; api: string; seed: number }): Promise<Generation>;
}

export interface SamplingOptions {
  readonly temperature: number;
  readonly topK: number;
  readonly topP: number;
  readonly maxTokens: number;
}

// --- what a backend gives back for one sample (every backend alike: local, servers, hosted) ---

/** Where constrained decoding overrode the model, for the sample inspector. */
export type Intervention =
  | {
      readonly kind: 'replaced';
      readonly step: number;
      /** The model's pick and the token taken instead; `p` is the probability among the model's top 64 (null outside it). */
      readonly model: { readonly token: number; readonly text: string; readonly p: number | null };
      readonly chosen: { readonly token: number; readonly text: string; readonly p: number | null };
      /** How the replacement was found: among the top 64, or by sampling under the full mask. */
      readonly via: 'top' | 'mask';
    }
  | { readonly kind: 'closed'; readonly step: number; readonly text: string }
  /** A multi-step program's text cut back to where it last parsed as a whole program (its tokens from `step` on: `text`). */
  | { readonly kind: 'cut'; readonly step: number; readonly text: string };

export type StopReason = 'eos' | 'snippet' | 'limit' | 'timeout' | 'unsatisfiable';

/** What a hosted or server output adds to its Generation record (stored with the output, shown in the inspector). */
export interface ProviderCall {
  readonly provider: string;
  readonly model: string;
  readonly modelVersion: string | null;
  readonly requestIds: readonly string[];
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** null where the price table has no entry for the model. */
  readonly costUsd: number | null;
  readonly server: string | null;
  /** Chat replies: the reply as received and how its code was taken from it. */
  readonly reply?: string;
  readonly extraction?: string;
  /** What the provider reported around this output without failing it (a batch's second result line for it). */
  readonly notes?: readonly string[];
}

export interface Generation {
  /** The text generated after the prompt (with the closing text of a `closed` intervention). */
  readonly text: string;
  readonly tokens: number;
  readonly stop: StopReason;
  readonly interventions: readonly Intervention[];
  readonly promptTokens: number;
  /** Prompt tokens found in the sequence's state from the previous sample and not evaluated again. */
  readonly reusedPromptTokens: number;
  readonly promptMs: number;
  readonly generateMs: number;
  /** Time spent in the constraint (check, mask, resampling) — the overhead of constrained decoding. */
  readonly constraintMs: number;
  /** Sequences decoded in one batch per step, on average (1: this one alone; see StepGate). */
  readonly batched: number;
  /** Of generateMs, the time spent waiting for the engine's logits (see Decoder.waitedMs); absent where the engine does not say. */
  readonly decodeMs?: number;
  /** The text of each generated token, in order: the sample inspector's token trace. */
  readonly trace?: readonly string[];
  /** Hosted models and servers: request ids, model version, tokens and cost (providers/backend.ts). */
  readonly provider?: ProviderCall;
}
