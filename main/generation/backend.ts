import type { CompletionPrompt } from '../prompt/index.js';
import type { Generation } from './generate.js';

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
