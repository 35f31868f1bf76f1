import fs from 'node:fs';
import { WapiiError } from '../api/result.js';
import { BUNDLED_VOCABULARIES, writeTestModel, type BundledVocabulary, type TestModelShape } from '../generation/index.js';

/** The tokenizers a test model is written on (from node-llama-cpp's llama.cpp source). */
export const TEST_MODEL_VOCABULARIES: readonly BundledVocabulary[] = BUNDLED_VOCABULARIES;
export type { BundledVocabulary as TestModelVocabulary, TestModelShape };

/**
 * `wapii make-test-model`: a random-weight GGUF model on a real tokenizer, for tests and
 * benchmarks; its size in bytes. Not a method of the contract, on purpose: it writes a file
 * wherever its caller says, which no client of `wapii serve` or of the app may make the server do.
 */
export function makeTestModel(vocabulary: BundledVocabulary, out: string, shape: TestModelShape): { sizeBytes: number } {
  try {
    writeTestModel(vocabulary, out, shape);
  } catch (error) {
    throw new WapiiError('bad_input', (error as Error).message);
  }
  return { sizeBytes: fs.statSync(out).size };
}
