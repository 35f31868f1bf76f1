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
  _sequenceId: number;
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

/**
 * Lines up the sequences of one context so that their next tokens are decoded in one batch.
 *
 * node-llama-cpp batches whatever is queued when its dispatch loop looks, and that loop looks
 * again as soon as a batch's logits are sampled: a sequence whose next token comes a moment later
 * misses the batch, and from then on the sequences take turns (measured on the 12×512 test model:
 * 2 sequences made 372 batches of one token out of 384; 4 made batches of 3). The gate holds each
 * sequence's next step until every sequence in the middle of a generation has one, then lets them
 * all go in the same tick, in sequence-id order: llama.cpp gives each sequence its own cache, and
 * then splits a batch wherever the sequence ids do not run consecutively (`split_equal`,
 * sequential), so 4 tokens queued as sequences 3, 1, 2, 0 were decoded as four batches of one.
 * A sequence takes part from its first step to the end of its generation (a decoder's dispose),
 * so one between samples holds nobody up.
 */
export class StepGate {
  private active = 0;
  private waiting: { readonly order: number; readonly start: (group: number) => void }[] = [];

  join(): void {
    this.active++;
  }

  leave(): void {
    this.active--;
    this.release();
  }

  /**
   * Calls `submit` (which queues a sequence's tokens) once every active sequence has arrived, with
   * how many go together; the gate calls them itself, one after another in the order of `order`
   * (the sequence id), since promise callbacks would run the last arrival's last.
   */
  arrive<T>(order: number, submit: (group: number) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        order,
        start: (group) => {
          try {
            submit(group).then(resolve, reject);
          } catch (error) {
            reject(error);
          }
        },
      });
      this.release();
    });
  }

  private release(): void {
    if (this.waiting.length === 0 || this.waiting.length < this.active) return;
    const waiting = this.waiting.sort((a, b) => a.order - b.order);
    this.waiting = [];
    for (const { start } of waiting) start(waiting.length);
  }
}

export class Decoder implements Disposable {
  private readonly sequence: SequenceInternals;
  private readonly sequenceId: number;
  private readonly sampler: NativeSampler;
  private readonly base: Record<string, unknown>;
  private joined = false;
  /** Steps taken, and the sequences decoded alongside summed over them (see `batched`). */
  private steps = 0;
  private together = 0;
  /** Milliseconds from queueing each step's tokens to its logits, summed (see `waitedMs`). */
  private waited = 0;

  constructor(
    sequence: LlamaContextSequence,
    model: LlamaModel,
    private readonly settings: SamplingSettings,
    private readonly gate?: StepGate,
  ) {
    const internals = sequence as unknown as Partial<SequenceInternals>;
    const modelInternals = model as unknown as Partial<ModelInternals>;
    if (typeof internals._decodeTokens !== 'function' || typeof internals._sequenceId !== 'number' || typeof internals._resolveSamplerConfig !== 'function' || !internals._context?._ctx || !modelInternals._llama?._bindings?.AddonSampler) {
      throw new Error('this node-llama-cpp version changed the internals constrained decoding relies on; install the version package.json pins (3.21.x)');
    }
    this.sequence = internals as SequenceInternals;
    this.sequenceId = this.sequence._sequenceId;
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
    let queued = 0;
    const decode = (group: number): Promise<unknown> => {
      this.steps++;
      this.together += group;
      queued = performance.now();
      return this.sequence._decodeTokens(tokens, logits, EVALUATION_PRIORITY, this.sequence._tokenMeter, this.sequence._contextShift, mapper);
    };
    const mapper = async (index: number): Promise<null> => {
      this.waited += performance.now() - queued;
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
    };
    if (this.gate) {
      if (!this.joined) this.gate.join();
      this.joined = true;
      await this.gate.arrive(this.sequenceId, decode);
    } else await decode(1);
    if (!chosen) throw new Error('bug: the decoder produced no logits for the last token');
    return chosen.value;
  }

  /**
   * Milliseconds spent waiting for llama.cpp's logits, from queueing a step's tokens to the
   * sampling callback, summed over the steps so far: the decode itself, plus the dispatch's
   * hand-over. What a step costs beyond it is ours (sampling, the constraint, the gate).
   */
  get waitedMs(): number {
    return this.waited;
  }

  /** How many sequences were decoded together per step, on average (1: this one alone). */
  get batched(): number {
    return this.steps === 0 ? 1 : this.together / this.steps;
  }

  [Symbol.dispose](): void {
    if (this.joined) this.gate?.leave();
    this.joined = false;
    this.sampler.dispose();
  }
}

function tokenOf(result: SampleResult): Token {
  const token = Array.isArray(result) ? result[0] : result;
  if (token === -1) throw new Error('llama.cpp failed to sample a token');
  return token as Token;
}
