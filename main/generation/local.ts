import type { LlamaContext, LlamaContextSequence } from 'node-llama-cpp';
import { ConstraintMatcher, TokenConstraint, vocabularyFromGguf, type Vocabulary } from '../constraints/index.js';
import type { ApiSpec } from '../openapi/index.js';
import type { GenerationBackend, SamplingOptions, SlotGenerator } from './backend.js';
import { Decoder } from './decoder.js';
import { generate } from './generate.js';
import type { Runtime } from './runtime.js';

export interface LocalOptions extends SamplingOptions {
  readonly parallel: number;
  /** Context per sequence, in tokens (prompt + completion). */
  readonly contextSize: number;
  /** The specs to constrain by, per API; absent for unconstrained runs. */
  readonly constrainBy?: ReadonlyMap<string, ApiSpec>;
  readonly stepDeadlineMs: number;
}

/**
 * A local GGUF model (node-llama-cpp): one context with a sequence per slot, so the slots'
 * tokens are decoded in shared batches; each slot keeps its prompt state, so the prompt head all
 * samples share is evaluated once per slot. Constrained slots keep one TokenConstraint per API,
 * so memoised masks carry over from sample to sample.
 */
export async function localBackend(runtime: Runtime, options: LocalOptions): Promise<GenerationBackend> {
  const context: LlamaContext = await runtime.model.createContext({
    contextSize: options.contextSize * options.parallel,
    sequences: options.parallel,
    threads: runtime.info.threads,
    batchSize: Math.min(512, options.contextSize),
  });
  const vocabulary: Vocabulary | undefined = options.constrainBy ? vocabularyFromGguf(runtime.info.modelFile) : undefined;
  const slots: SlotGenerator[] = [];
  for (let i = 0; i < options.parallel; i++) slots.push(localSlot(runtime, context.getSequence(), options, vocabulary));
  return {
    manifest: { engine: 'node-llama-cpp', ...runtime.info, contextSize: options.contextSize, parallel: options.parallel },
    slots: options.parallel,
    slot: (index) => slots[index]!,
    async [Symbol.asyncDispose]() {
      await context.dispose();
    },
  };
}

function localSlot(runtime: Runtime, sequence: LlamaContextSequence, options: LocalOptions, vocabulary: Vocabulary | undefined): SlotGenerator {
  const constraints = new Map<string, TokenConstraint>();
  const constraintFor = (api: string): TokenConstraint | undefined => {
    const spec = options.constrainBy?.get(api);
    if (!spec || !vocabulary) return undefined;
    let constraint = constraints.get(api);
    if (!constraint) constraints.set(api, (constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(spec))));
    constraint.reset();
    return constraint;
  };
  return {
    async generate({ prompt, api, seed }) {
      const constraint = options.constrainBy ? constraintFor(api) : undefined;
      if (options.constrainBy && !constraint) throw new Error(`no spec to constrain ${api} by`);
      if (constraint) {
        const primed = constraint.state.feed(prompt.text);
        if (!primed.ok) throw new Error(`the prompt does not open an invocation the constraints accept (${primed.reason})`);
      }
      const tokens = runtime.model.tokenize(prompt.text, false);
      const bos = runtime.model.tokens.bos;
      const promptTokens = bos !== null && runtime.model.tokens.shouldPrependBosToken ? [bos, ...tokens] : tokens;
      using decoder = new Decoder(sequence, runtime.model, { temperature: options.temperature, topK: options.topK, topP: options.topP, seed });
      return await generate(sequence, runtime.model, decoder, promptTokens, { maxTokens: options.maxTokens, greedy: options.temperature <= 0, stepDeadlineMs: options.stepDeadlineMs }, constraint);
    },
  };
}
