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
