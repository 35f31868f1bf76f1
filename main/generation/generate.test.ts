import fs from 'node:fs';
import type { LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { ConstraintMatcher, decodeTokens, TokenConstraint, tokenBytes, vocabularyFromGguf } from '../constraints/index.js';
import { loadSpec } from '../openapi/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { hasVocabBundle, vocabFile } from '../../test/support/vocab.js';
import type { Decoder, Position } from './decoder.js';
import { generate, maskBias } from './generate.js';

const maskOf = (size: number, allowed: number[]): Uint32Array => {
  const mask = new Uint32Array(Math.ceil(size / 32));
  for (const id of allowed) mask[id >>> 5]! |= 1 << (id & 31);
  return mask;
};

describe('maskBias', () => {
  it('boosts the allowed tokens when they are the fewer, so the rest cannot be sampled', () => {
    const bias = maskBias(maskOf(100, [3, 31, 32, 99]), 100);
    expect(bias.allowed).toBe(4);
    expect([...bias.keys]).toEqual([3, 31, 32, 99]);
    expect([...bias.values].every((v) => v >= 1000)).toBe(true);
  });

  it('forbids the others when most tokens are allowed, leaving the logits of the allowed ones untouched', () => {
    const allowed = Array.from({ length: 100 }, (_, i) => i).filter((i) => i !== 5 && i !== 64);
    const bias = maskBias(maskOf(100, allowed), 100);
    expect(bias.allowed).toBe(98);
    expect([...bias.keys]).toEqual([5, 64]);
    expect([...bias.values]).toEqual([-Infinity, -Infinity]);
  });

  it('ignores mask bits past the vocabulary, and reports an empty mask as nothing allowed', () => {
    const mask = maskOf(64, [40, 63]);
    expect(maskBias(mask, 41).keys).toEqual(Uint32Array.from([40]));
    expect(maskBias(new Uint32Array(4), 100).allowed).toBe(0);
  });
});

describe('maskBias against a token-by-token reference', () => {
  it('gives the same side, keys in order and count on random masks of every density', () => {
    let seed = 42;
    const random = (): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (const size of [1, 31, 32, 33, 100, 1000, 4099]) {
      for (const density of [0, 0.01, 0.3, 0.5, 0.51, 0.9, 1]) {
        const allowed = Array.from({ length: size }, (_, i) => i).filter(() => random() < density);
        const mask = maskOf(size + 64, allowed);
        // Bits past the vocabulary (in its last word and beyond) must be ignored: set them all.
        for (let i = size; i < mask.length * 32; i++) mask[i >>> 5]! |= 1 << (i & 31);
        const bias = maskBias(mask, size);
        const boost = allowed.length <= size / 2;
        const expected = boost ? allowed : Array.from({ length: size }, (_, i) => i).filter((i) => !allowed.includes(i));
        expect(bias.allowed, `${size} ${density}`).toBe(allowed.length);
        expect([...bias.keys], `${size} ${density}`).toEqual(expected);
        expect(bias.values.every((v) => v === (boost ? 1000 : -Infinity))).toBe(true);
      }
    }
  });
});

describe.runIf(hasVocabBundle)('generate at the token limit', () => {
  it('leaves out a character begun in bytes and not finished, which the constraint never read', async () => {
    const vocabulary = vocabularyFromGguf(vocabFile('qwen2'));
    const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    const prefix = "axios.get('https://api.harbor.example/v2/shipments', { headers: { Authorization: 'Bearer ";
    const constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(loaded.value, ['axios']));
    expect(constraint.state.feed(prefix).ok).toBe(true);
    // The model's one token: the first byte of an "é" (C3 A9), which a header value takes.
    const c3 = vocabulary.text.findIndex((_, id) => tokenBytes(vocabulary, id).length === 1 && tokenBytes(vocabulary, id)[0] === 0xc3) as Token;
    const position: Position = { pick: async () => c3, top: async () => [], pickWith: async () => c3 };
    const decoder = { step: async <T>(_: Token[], choose: (p: Position) => Promise<T>): Promise<T> => choose(position), batched: 1, waitedMs: 0 };
    const sequence = { compareContextTokens: () => ({ firstDifferentIndex: 0 }), nextTokenIndex: 0, eraseContextTokenRanges: async () => undefined };
    const model = { isEogToken: () => false };
    const options = { maxTokens: 1, decode: (t: readonly Token[]) => decodeTokens(vocabulary, t), greedy: false, stepDeadlineMs: 60_000 };
    const result = await generate(sequence as unknown as LlamaContextSequence, model as unknown as LlamaModel, decoder as unknown as Decoder, [1 as Token], options, constraint);
    expect(result.stop).toBe('limit');
    expect(constraint.pendingBytes.length).toBe(1);
    expect(result.text).not.toContain('\uFFFD');
    // The text closes the call as the constraint's language has it.
    const check = ConstraintMatcher.create(loaded.value, ['axios']);
    expect(check.feed(prefix + result.text).ok).toBe(true);
    expect(check.isComplete()).toBe(true);
  });
});
