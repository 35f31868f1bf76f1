import path from 'node:path';
import { getLlama, LlamaCompletion, LlamaLogLevel, type GbnfJsonObjectSchema, type Llama, type LlamaGrammar, type LlamaModel } from 'node-llama-cpp';
import type { GenerateOptions, ModelProvider, ProviderOutput, ProviderPrompt } from './types.js';

export interface LocalModelOptions {
  readonly modelFile: string;
  /** Context size; default the model's training context, at most 16k. */
  readonly contextSize?: number;
  /** Answers are decoded one at a time (one sequence); this is what callers may queue at once. */
  readonly concurrency?: number;
  /** `cpu`: no GPU even where one is found (the runs' `--gpu cpu`). */
  readonly gpu?: 'auto' | 'cpu';
}

/**
 * The one way node-llama-cpp is started for a GGUF model, for runs (main/generation's runtime) and
 * for whole answers here: on the GPU it detects (CUDA, Vulkan, Metal), else the CPU; never building
 * llama.cpp from source (that needs a toolchain and minutes; the prebuilt binaries cover the
 * platforms).
 */
export function openLlama(gpu: 'auto' | 'cpu' = 'auto'): Promise<Llama> {
  return getLlama({ gpu: gpu === 'cpu' ? false : 'auto', build: 'never', logLevel: LlamaLogLevel.error, progressLogs: false });
}

/** A GGUF model loaded with as many layers offloaded as fit; a file that does not load disposes the runtime and says which. */
export async function loadGguf(llama: Llama, modelFile: string): Promise<LlamaModel> {
  try {
    return await llama.loadModel({ modelPath: modelFile, gpuLayers: llama.gpu ? 'auto' : 0 });
  } catch (e) {
    await llama.dispose();
    throw new Error(`cannot load ${modelFile}: ${(e as Error).message}`);
  }
}

/** A chat prompt as text a model continues: its system text, then each turn, then where the reply starts. */
const textOf = (prompt: ProviderPrompt): string =>
  prompt.kind === 'completion' ? prompt.text : [prompt.system, ...prompt.messages.map((m) => (m.role === 'user' ? m.content : `Answer:\n${m.content}`))].filter((t) => t !== undefined && t !== '').join('\n\n') + `\n\nAnswer${prompt.prefill !== undefined ? '' : ' (JSON)'}:\n${prompt.prefill ?? ''}`;

/**
 * A local GGUF model as a ModelProvider, offline, for the callers that want whole answers
 * (synthesis, a plain completion). A JSON Schema answer is decoded under a grammar made from its
 * bounded form (llama.createGrammarForJsonSchema), so whatever the model would say, what comes
 * out is JSON valid against it. A run's constrained decoding does not come here: it masks tokens
 * itself (main/generation/local.ts, the `logits` capability).
 */
export async function localModel(options: LocalModelOptions): Promise<ModelProvider> {
  const llama = await openLlama(options.gpu);
  const model = await loadGguf(llama, options.modelFile);
  const contextSize = options.contextSize ?? Math.min(model.trainContextSize, 16_384);
  // A context that does not fit (memory) must not leave the loaded model behind: each retry would load another.
  const context = await model.createContext({ contextSize, sequences: 1 }).catch(async (error: unknown) => {
    await model.dispose();
    throw error;
  });
  const grammars = new Map<string, Promise<LlamaGrammar>>();
  let queue: Promise<unknown> = Promise.resolve();
  const name = path.basename(options.modelFile);
  const answer = async (prompt: ProviderPrompt, o: GenerateOptions, signal: AbortSignal): Promise<ProviderOutput> => {
    const schema = o.jsonSchema ? (o.jsonSchema.bounded ?? o.jsonSchema.schema) : undefined;
    let grammar: Promise<LlamaGrammar> | undefined;
    if (schema) {
      const key = JSON.stringify(schema);
      grammar = grammars.get(key);
      // The bounded schema is written in the subset node-llama-cpp's JSON-schema grammar takes.
      if (!grammar) grammars.set(key, (grammar = llama.createGrammarForJsonSchema(schema as unknown as GbnfJsonObjectSchema)));
    }
    const sequence = context.getSequence();
    const completion = new LlamaCompletion({ contextSequence: sequence });
    try {
      const text = textOf(prompt);
      const result = await completion.generateCompletionWithMeta(text, {
        ...(grammar ? { grammar: await grammar } : {}),
        maxTokens: Math.min(o.maxTokens, Math.floor(contextSize / 2)),
        temperature: o.temperature,
        ...(o.topK !== undefined ? { topK: o.topK } : {}),
        ...(o.topP !== undefined ? { topP: o.topP } : {}),
        seed: o.seed ?? 1,
        ...(o.stop?.length ? { customStopTriggers: [...o.stop] } : {}),
        signal,
      });
      return {
        text: result.response,
        finish: result.metadata.stopReason === 'maxTokens' ? 'length' : 'stop',
        usage: { inputTokens: model.tokenize(text).length, outputTokens: model.tokenize(result.response).length },
        requestIds: [],
      };
    } finally {
      completion.dispose();
      sequence.dispose();
    }
  };
  return {
    name: 'local',
    model: name,
    capabilities: { logits: true, constraints: 'tokens', completion: true, chat: true, prefill: true, batch: false, listsModels: false, jsonSchema: true },
    concurrency: options.concurrency ?? 1,
    describe: { provider: 'local', modelFile: name },
    contextTokens: contextSize,
    maxOutputTokens: Math.min(4096, Math.floor(contextSize / 2)),
    generate: (prompt, o, signal) => {
      // One context, one sequence: answers take turns.
      const next = queue.then(() => answer(prompt, o, signal));
      queue = next.catch(() => undefined);
      return next;
    },
    check: async () => {},
    dispose: async () => {
      await context.dispose();
      await model.dispose();
    },
  };
}
