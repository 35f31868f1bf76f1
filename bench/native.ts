import { getLlama, LlamaGrammarEvaluationState, type LlamaGrammar } from 'node-llama-cpp';
import type { NativeGrammar } from './constraints.js';

interface GrammarBinding {
  canBeNextTokenForGrammarEvaluationState(state: unknown, token: number): boolean;
  acceptGrammarEvaluationStateToken(state: unknown, token: number): void;
}

/** llama.cpp's grammar engine through node-llama-cpp, on a vocabulary-only model, for the baseline. */
export async function nativeGrammar(vocabPath: string): Promise<NativeGrammar> {
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath: vocabPath, vocabOnly: true });
  const binding = (llama as unknown as { _bindings: { AddonSampler: GrammarBinding } })._bindings.AddonSampler;
  return {
    grammar: (text) => llama.createGrammar({ grammar: text }),
    state: (grammar) => (new LlamaGrammarEvaluationState({ model, grammar: grammar as LlamaGrammar }) as unknown as { _state: unknown })._state,
    tokenize: (text) => [...model.tokenize(text)].map(Number),
    canBeNext: (state, token) => binding.canBeNextTokenForGrammarEvaluationState(state, token),
    accept: (state, token) => binding.acceptGrammarEvaluationStateToken(state, token),
  };
}
