import { describe, expect, it } from 'vitest';
import { maskBias } from './generate.js';

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
