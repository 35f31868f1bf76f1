import { getLlama, LlamaGrammarEvaluationState, type Llama, type LlamaGrammar, type LlamaModel } from 'node-llama-cpp';

/**
 * llama.cpp's own grammar engine on a vocabulary-only model (no weights): does a grammar accept
 * a text, token by token, as a constrained sampler would see it? node-llama-cpp keeps the
 * per-token check internal (its sampler binding), so this reaches for it directly.
 */
export interface GrammarBinding {
  canBeNextTokenForGrammarEvaluationState(state: unknown, token: number): boolean;
  acceptGrammarEvaluationStateToken(state: unknown, token: number): void;
}

export async function loadVocabModel(file: string): Promise<{ llama: Llama; model: LlamaModel }> {
  const llama = await getLlama({ gpu: false, build: 'never', logLevel: 'error' as never });
  const model = await llama.loadModel({ modelPath: file, vocabOnly: true });
  return { llama, model };
}

export const grammarBinding = (llama: Llama): GrammarBinding => (llama as unknown as { _bindings: { AddonSampler: GrammarBinding } })._bindings.AddonSampler;

/** A fresh evaluation state of a grammar, as the binding takes it. */
export const grammarState = (model: LlamaModel, grammar: LlamaGrammar): unknown => (new LlamaGrammarEvaluationState({ model, grammar }) as unknown as { _state: unknown })._state;

export function grammarAccepts(llama: Llama, model: LlamaModel, grammar: LlamaGrammar, text: string): boolean {
  const binding = grammarBinding(llama);
  const state = grammarState(model, grammar);
  for (const token of model.tokenize(text)) {
    if (!binding.canBeNextTokenForGrammarEvaluationState(state, token)) return false;
    binding.acceptGrammarEvaluationStateToken(state, token);
  }
  return true;
}
