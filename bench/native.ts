import type { LlamaGrammar } from 'node-llama-cpp';
import { grammarBinding, grammarState, loadVocabModel } from '../test/support/llama.js';
import type { NativeGrammar } from './tokens.js';

/** llama.cpp's grammar engine through node-llama-cpp, on a vocabulary-only model, for the baseline. */
export async function nativeGrammar(vocabPath: string): Promise<NativeGrammar> {
  const { llama, model } = await loadVocabModel(vocabPath);
  const binding = grammarBinding(llama);
  return {
    grammar: (text) => llama.createGrammar({ grammar: text }),
    state: (grammar) => grammarState(model, grammar as LlamaGrammar),
    tokenize: (text) => [...model.tokenize(text)].map(Number),
    canBeNext: (state, token) => binding.canBeNextTokenForGrammarEvaluationState(state, token),
    accept: (state, token) => binding.acceptGrammarEvaluationStateToken(state, token),
  };
}
