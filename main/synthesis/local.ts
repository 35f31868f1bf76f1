import { LlamaCompletion, type GbnfJsonObjectSchema } from 'node-llama-cpp';
import { loadRuntime, type GpuChoice, type Runtime } from '../generation/index.js';
import type { ProviderAnswer, SynthesisProvider, SynthesisRequest } from './provider.js';

export interface LocalSynthesisOptions {
  readonly modelFile: string;
  readonly gpu?: GpuChoice;
  /** Context size; default the model's training context, at most 16k. */
  readonly contextSize?: number;
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
  readonly seed?: number;
}

/**
 * A local GGUF model through node-llama-cpp, offline. The answer is decoded under a grammar made
 * from the bounded answer schema (llama.createGrammarForJsonSchema), so whatever the model would
 * say, what comes out is JSON valid against it. The model is loaded by the generation stage's
 * `loadRuntime` (device and thread choice); decoding here is plain JSON, not the constrained-code
 * loop of main/generation, so it uses node-llama-cpp's LlamaCompletion directly.
 */
export async function localProvider(options: LocalSynthesisOptions): Promise<SynthesisProvider> {
  const runtime: Runtime = await loadRuntime(options.modelFile, { gpu: options.gpu ?? 'auto' });
  const contextSize = options.contextSize ?? Math.min(runtime.model.trainContextSize, 16_384);
  // A context that does not fit (memory) must not leave the loaded model behind: each retry would load another.
  const context = await runtime.model.createContext({ contextSize, sequences: 1 }).catch(async (error: unknown) => {
    await runtime.dispose();
    throw error;
  });
  const maxOutputTokens = options.maxOutputTokens ?? Math.min(4096, Math.floor(contextSize / 2));
  let queue: Promise<unknown> = Promise.resolve();
  const model = runtime.info.modelFile.split(/[\\/]/).pop() ?? runtime.info.modelFile;
  return {
    name: 'local',
    model,
    contextTokens: contextSize,
    maxOutputTokens,
    generate(request: SynthesisRequest): Promise<ProviderAnswer> {
      // One context, one sequence: requests take turns (the job's concurrency is for remote providers).
      const next = queue.then(async () => {
        // The bounded schema is written in the subset node-llama-cpp's JSON-schema grammar takes.
        const grammar = await runtime.llama.createGrammarForJsonSchema(request.boundedSchema as unknown as GbnfJsonObjectSchema);
        const sequence = context.getSequence();
        const completion = new LlamaCompletion({ contextSequence: sequence });
        try {
          const prompt = `${request.system}\n\n${request.user}\n\nAnswer (JSON):\n`;
          const inputTokens = runtime.model.tokenize(prompt).length;
          const result = await completion.generateCompletionWithMeta(prompt, {
            grammar,
            maxTokens: maxOutputTokens,
            temperature: options.temperature ?? 0.7,
            seed: options.seed ?? 1,
            ...(request.signal ? { signal: request.signal } : {}),
          });
          return {
            text: result.response,
            finish: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
            usage: { inputTokens, outputTokens: runtime.model.tokenize(result.response).length },
          } satisfies ProviderAnswer;
        } finally {
          completion.dispose();
          sequence.dispose();
        }
      });
      queue = next.catch(() => undefined);
      return next;
    },
    async [Symbol.asyncDispose]() {
      await context.dispose();
      await runtime.dispose();
    },
  };
}
