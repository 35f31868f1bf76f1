import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';

/**
 * The one place that reaches into node-llama-cpp's internals (pinned to 3.21.x in package.json).
 * Its public API samples once per position and offers no way to sample the same logits again, and
 * its TokenBias cannot forbid end-of-generation tokens. Constrained decoding needs both: sample
 * the model's own pick, and only when the constraint rejects it, sample again on the same logits
 * with the rejected tokens biased away. So this drives the sequence's batch decoding directly and
 * samples inside its logits callback, as node-llama-cpp's own `evaluate` does.
 */
interface NativeSampler {
  applyConfig(config: Record<string, unknown>): void;
  dispose(): void;
}
type SampleResult = number | [number, number[] | undefined, number | undefined];
interface SequenceInternals {
  _decodeTokens(
    tokens: Token[],
    logits: boolean[],
    priority: number,
    meter: unknown,
    contextShift: unknown,
    mapper: (batchLogitIndex: number) => unknown,
  ): Promise<unknown[]>;
  _tokenMeter: unknown;
  _contextShift: unknown;
  _context: { _ctx: { sampleToken(index: number, sampler: NativeSampler, probabilities?: boolean, confidence?: boolean): Promise<SampleResult> } };
  _resolveSamplerConfig(options: Record<string, unknown>): Record<string, unknown>;
}
interface ModelInternals {
  _llama: { _bindings: { AddonSampler: new (model: unknown) => NativeSampler } };
  _model: unknown;
}

const EVALUATION_PRIORITY = 5; // node-llama-cpp's default

export interface SamplingSettings {
  readonly temperature: number;
  readonly topK: number;
  readonly topP: number;
  readonly seed: number;
}

/** The logits of one position, sampled as often as the caller needs. */
export interface Position {
  /** The token the model picks under the sampling settings. */
  pick(): Promise<Token>;
  /** The model's top `k` tokens with probabilities (softmax at temperature 1 over those k). */
  top(k: number): Promise<{ token: Token; p: number }[]>;
  /** The pick under the settings with `bias` added to the logits (-Infinity forbids a token). */
  pickWith(bias: { keys: Uint32Array; values: Float32Array }): Promise<Token>;
}

export class Decoder implements Disposable {
  private readonly sequence: SequenceInternals;
  private readonly sampler: NativeSampler;
  private readonly base: Record<string, unknown>;

  constructor(
    sequence: LlamaContextSequence,
    model: LlamaModel,
    private readonly settings: SamplingSettings,
  ) {
    const internals = sequence as unknown as Partial<SequenceInternals>;
    const modelInternals = model as unknown as Partial<ModelInternals>;
    if (typeof internals._decodeTokens !== 'function' || typeof internals._resolveSamplerConfig !== 'function' || !internals._context?._ctx || !modelInternals._llama?._bindings?.AddonSampler) {
      throw new Error('this node-llama-cpp version changed the internals constrained decoding relies on; install the version package.json pins (3.21.x)');
    }
    this.sequence = internals as SequenceInternals;
    this.sampler = new modelInternals._llama._bindings.AddonSampler(modelInternals._model);
    this.base = this.config(settings);
  }

  private config(settings: Partial<SamplingSettings> & { tokenBias?: { keys: Uint32Array; values: Float32Array } }): Record<string, unknown> {
    const { tokenBias, ...rest } = { ...this.settings, ...settings };
    const resolved = this.sequence._resolveSamplerConfig({ ...rest });
    return tokenBias ? { ...resolved, tokenBiasKeys: tokenBias.keys, tokenBiasValues: tokenBias.values } : resolved;
  }

  /**
   * Evaluates `tokens` (the prompt, or the last chosen token) and lets `choose` sample the
   * position after the last one; its result is returned once the batch is done.
   */
  async step<T>(tokens: Token[], choose: (position: Position) => Promise<T>): Promise<T> {
    const logits: boolean[] = [];
    logits[tokens.length - 1] = true;
    const ctx = this.sequence._context._ctx;
    const sample = async (index: number, config: Record<string, unknown>, probabilities = false): Promise<SampleResult> => {
      this.sampler.applyConfig(config);
      return probabilities ? ctx.sampleToken(index, this.sampler, true, false) : ctx.sampleToken(index, this.sampler);
    };
    let chosen: { value: T } | undefined;
    await this.sequence._decodeTokens(tokens, logits, EVALUATION_PRIORITY, this.sequence._tokenMeter, this.sequence._contextShift, async (index) => {
      const position: Position = {
        pick: async () => tokenOf(await sample(index, this.base)),
        pickWith: async (tokenBias) => tokenOf(await sample(index, this.config({ tokenBias }))),
        top: async (k) => {
          const result = await sample(index, this.config({ temperature: 1, topK: k, topP: 1 }), true);
          const pairs = Array.isArray(result) ? (result[1] ?? []) : [];
          const out: { token: Token; p: number }[] = [];
          for (let i = 0; i + 1 < pairs.length; i += 2) out.push({ token: pairs[i]! as Token, p: pairs[i + 1]! });
          return out;
        },
      };
      chosen = { value: await choose(position) };
      return null;
    });
    if (!chosen) throw new Error('bug: the decoder produced no logits for the last token');
    return chosen.value;
  }

  [Symbol.dispose](): void {
    this.sampler.dispose();
  }
}

function tokenOf(result: SampleResult): Token {
  const token = Array.isArray(result) ? result[0] : result;
  if (token === -1) throw new Error('llama.cpp failed to sample a token');
  return token as Token;
}
