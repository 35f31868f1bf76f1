import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Llama, LlamaModel, Token } from 'node-llama-cpp';
import { ConstraintMatcher, decodeTokens, reconcileVocabulary, TokenConstraint, vocabularyFromGguf, type Vocabulary } from '../../main/constraints/index.js';
import { loadVocabModel } from '../support/llama.js';
import { hasVocabBundle, vocabFile } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

/**
 * The constraint reads token texts from the GGUF metadata; the model's text comes from llama.cpp's
 * detokenizer. They must agree on every token, or a constraint passes text the model never wrote.
 */
describe.skipIf(!hasVocabBundle)('vocabulary texts agree with llama.cpp detokenization', () => {
  for (const name of ['qwen2', 'llama-spm', 'deepseek-coder', 'starcoder'] as const) {
    describe(name, () => {
      let llama: Llama;
      let model: LlamaModel;
      let vocabulary: Vocabulary;
      beforeAll(async () => {
        ({ llama, model } = await loadVocabModel(vocabFile(name)));
        vocabulary = reconcileVocabulary(vocabularyFromGguf(vocabFile(name)), { isControl: (id) => model.isSpecialToken(id as Token), isEndOfGeneration: (id) => model.isEogToken(id as Token) });
      });
      afterAll(async () => {
        await model?.dispose();
        await llama?.dispose();
      });

      it('every whole-text token reads the same as llama.cpp writes it after another token', () => {
        // After an anchor token, so SentencePiece does not drop a leading space as it does at the start of a text.
        const anchor = model.tokenize('x', false);
        const before = model.detokenize(anchor);
        const mismatches: string[] = [];
        let compared = 0;
        for (let id = 0; id < vocabulary.text.length; id++) {
          const text = vocabulary.text[id];
          if (text === null || text === '' || text === undefined) continue;
          const written = model.detokenize([...anchor, id as Token]);
          compared++;
          // StarCoder's detokenizer tidies text (clean_up_tokenization_spaces: " ." -> "."); the token
          // still writes the space, and a run scores the bytes (decodeTokens), not the tidied text.
          if (name === 'starcoder' && written === before + text.replace(/^ (?=[.,!?])/, '')) {
            expect(decodeTokens(vocabulary, [...anchor, id])).toBe(before + text);
            continue;
          }
          if (written !== before + text && mismatches.length < 10) mismatches.push(`${id}: ${JSON.stringify(text)} vs ${JSON.stringify(written.slice(before.length))}`);
        }
        expect(compared).toBeGreaterThan(vocabulary.text.length * 0.7);
        expect(mismatches).toEqual([]);
      });
    });
  }

  it('a token that begins with a byte-order mark keeps it, and may not enter a URL', async () => {
    const vocabulary = vocabularyFromGguf(vocabFile('qwen2'));
    const bom = vocabulary.text.findIndex((t) => t !== null && t.startsWith('\uFEFF') && t.length > 1);
    expect(bom).toBeGreaterThan(0);
    const { specs } = await loadWapiiBench();
    const constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(specs.get('slack')!));
    expect(constraint.state.feed("axios.post('https:")).toEqual({ ok: true });
    expect(constraint.check(bom)).toBe(false);
  });
});
