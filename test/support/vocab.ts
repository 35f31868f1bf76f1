import { bundledVocabulary, bundledVocabularyAvailable, type BundledVocabulary } from '../../main/generation/index.js';

export const hasVocabBundle = bundledVocabularyAvailable();

/** A real tokenizer from node-llama-cpp's llama.cpp bundle (see main/generation/vocabularies.ts). */
export const vocabFile = (name: BundledVocabulary): string => bundledVocabulary(name);

/** The token ids a mask (a bitset, see TokenConstraint.mask) allows, in order. */
export function allowedTokens(mask: Uint32Array): number[] {
  const ids: number[] = [];
  mask.forEach((word, w) => {
    for (let bit = 0; bit < 32; bit++) if (word & (1 << bit)) ids.push(w * 32 + bit);
  });
  return ids;
}
