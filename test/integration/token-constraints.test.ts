import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConstraintMatcher, declaredNames, hasBit, TokenConstraint, tokenBytes, vocabularyFromGguf, type Vocabulary } from '../../main/constraints/index.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { oracleProgram } from '../../main/prompt/index.js';
import { hasWapiiBench } from '../support/paths.js';
import { seededRandom } from '../support/random.js';
import { allowedTokens, hasVocabBundle, vocabFile } from '../support/vocab.js';
import { loadWapiiBench } from '../support/wapiibench.js';

const DECLARATIONS = 'const token = process.env.API_TOKEN, userId = 42;\nconst ids = [1, 2];\n';

describe.runIf(hasWapiiBench && hasVocabBundle)('token-level constraints on real vocabularies', () => {
  let samples: SampleDraft[];
  let specs: Map<string, ApiSpec>;
  beforeAll(async () => {
    ({ samples, specs } = await loadWapiiBench());
  });

  // Thousands of random walks in all: every step checks the mask against `check` on its allowed
  // tokens and on random others, every 10th walk on the whole vocabulary at one step; every walk
  // then follows the shortest completion, one character token at a time, to a complete invocation.
  const WALKS = 1500;
  it.each(['qwen2', 'llama-spm'] as const)('%s: masks agree with check, and random walks end by the shortest completion', (name) => {
    const vocabulary: Vocabulary = vocabularyFromGguf(fs.readFileSync(vocabFile(name)));
    // Every character of a shortest completion must be a token of its own, or a walk could not follow it.
    const singles = new Map<string, number>();
    vocabulary.text.forEach((t, id) => {
      if (t !== null && [...t].length === 1 && !singles.has(t)) singles.set(t, id);
    });
    // A character no token holds (a rare CJK one), to write byte by byte wherever the mask allows its first byte.
    const byteToken = new Map<number, number>();
    vocabulary.text.forEach((_, id) => {
      const b = tokenBytes(vocabulary, id);
      if (b.length === 1 && !byteToken.has(b[0]!)) byteToken.set(b[0]!, id);
    });
    const rare = '\u9c7b';
    expect(vocabulary.text.some((t) => t?.includes(rare))).toBe(false);
    const rareBytes = [...new TextEncoder().encode(rare)].map((b) => byteToken.get(b)!);
    let rareWritten = 0;
    const rand = seededRandom(name === 'qwen2' ? 7 : 11);
    const quotes = ['single', 'double', 'backtick'] as const;
    let steps = 0;
    let fullComparisons = 0;
    const tokensOf = new Map<string, TokenConstraint>();
    for (let walk = 0; walk < WALKS; walk++) {
      const sample = samples[Math.floor(rand() * samples.length)]!;
      const oracle = oracleProgram(sample, walk % 2 === 0 ? 'full' : 'argument', quotes[walk % 3]!);
      // Declarations before the call give the walks references to take (and to complete).
      const starter = DECLARATIONS + oracle.starter;
      const program = DECLARATIONS + oracle.program;
      // One TokenConstraint per API, reset per walk, as a run keeps it (masks memoised across walks).
      let tokens = tokensOf.get(sample.api);
      if (!tokens) tokensOf.set(sample.api, (tokens = new TokenConstraint(vocabulary, ConstraintMatcher.create(specs.get(sample.api)!, declaredNames(starter)))));
      tokens.reset();
      expect(tokens.state.feed(starter).ok).toBe(true);
      let truth = program.slice(starter.length);
      const fullAt = walk % 10 === 0 ? Math.floor(rand() * 12) : -1;
      const length = 4 + Math.floor(rand() * 26);
      for (let step = 0; step < length && !(step > 0 && tokens.state.isComplete()); step++) {
        const mask = tokens.mask();
        const allowed = allowedTokens(mask);
        expect(allowed.length).toBeGreaterThan(0);
        const where = `walk ${walk} step ${step} (${sample.api})`;
        if (step === fullAt) {
          for (let id = 0; id < vocabulary.text.length; id++) if (tokens.check(id) !== hasBit(mask, id)) expect.fail(`${where}: token ${id} ${JSON.stringify(vocabulary.text[id])}`);
          fullComparisons++;
        } else {
          for (const id of allowed.filter(() => rand() < 40 / allowed.length)) expect(tokens.check(id), `${where}: token ${id} ${JSON.stringify(vocabulary.text[id])}`).toBe(true);
          for (let i = 0; i < 40; i++) {
            const id = Math.floor(rand() * vocabulary.text.length);
            expect(tokens.check(id), `${where}: token ${id} ${JSON.stringify(vocabulary.text[id])}`).toBe(hasBit(mask, id));
          }
        }
        // Where a string takes it, now and then the rare character, byte by byte: each byte's mask allows the next.
        if (hasBit(mask, rareBytes[0]!) && rand() < 0.2) {
          for (const id of rareBytes) {
            expect(hasBit(tokens.mask(), id), `${where}: the rare character's byte ${id}`).toBe(true);
            expect(tokens.advance(id)).toBe(true);
          }
          expect(tokens.pendingBytes.length).toBe(0);
          truth = '';
          rareWritten++;
          steps++;
          continue;
        }
        // Follow the ground truth by its longest allowed token half of the time; else a random allowed token.
        const follow = allowed.filter((id) => vocabulary.text[id] && truth.startsWith(vocabulary.text[id]!)).sort((a, b) => vocabulary.text[b]!.length - vocabulary.text[a]!.length)[0];
        const pick = follow !== undefined && rand() < 0.5 ? follow : allowed[Math.floor(rand() * allowed.length)]!;
        const text = vocabulary.text[pick] ?? '';
        truth = truth.startsWith(text) && text !== '' ? truth.slice(text.length) : '';
        expect(tokens.advance(pick)).toBe(true);
        steps++;
      }
      // A character begun in bytes is finished first (each byte's token is among the allowed, the lowest ids of both vocabularies).
      for (let i = 0; i < 3 && tokens.pendingBytes.length > 0; i++) expect(tokens.advance(allowedTokens(tokens.mask())[0]!)).toBe(true);
      expect(tokens.pendingBytes.length, `walk ${walk}: a character left unfinished`).toBe(0);
      const completion = tokens.state.completion();
      expect(completion, `walk ${walk}: no completion`).toBeDefined();
      for (const ch of completion!) {
        const id = singles.get(ch);
        expect(id, `no single-character token for ${JSON.stringify(ch)}`).toBeDefined();
        expect(tokens.advance(id!), `walk ${walk}: completion ${JSON.stringify(completion)} refused at ${JSON.stringify(ch)}`).toBe(true);
      }
      expect(tokens.state.isComplete()).toBe(true);
      expect(tokens.check(vocabulary.eos[0]!)).toBe(true);
    }
    expect(steps).toBeGreaterThan(WALKS * 5);
    expect(rareWritten).toBeGreaterThan(100);
    expect(fullComparisons).toBeGreaterThan(WALKS / 20);
  }, 1_200_000);

  it('forbids end of generation while an invocation is open', () => {
    const vocabulary = vocabularyFromGguf(fs.readFileSync(vocabFile('llama-spm')));
    const tokens = new TokenConstraint(vocabulary, ConstraintMatcher.create(specs.get('slack')!));
    tokens.state.feed("// x\nconst axios = require('axios');\n\naxios.get(");
    expect(tokens.check(vocabulary.eos[0]!)).toBe(false);
    expect(hasBit(tokens.mask(), vocabulary.eos[0]!)).toBe(false);
  });
});
