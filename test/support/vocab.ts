import { bundledVocabulary, bundledVocabularyAvailable, type BundledVocabulary } from '../../main/generation/index.js';

export const hasVocabBundle = bundledVocabularyAvailable();

/** A real tokenizer from node-llama-cpp's llama.cpp bundle (see main/generation/vocabularies.ts). */
export const vocabFile = (name: BundledVocabulary): string => bundledVocabulary(name);
