import { InsufficientMemoryError } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { withFewerUntilItFits } from './local.js';

// The fallback for default parallel sequences; node-llama-cpp's own memory check raises the error.
describe('opening a context with the default number of sequences', () => {
  const opener = (fits: number) => {
    const tried: number[] = [];
    const open = async (n: number): Promise<number> => {
      tried.push(n);
      if (n > fits) throw new InsufficientMemoryError(`A context size of 1024 with ${n} sequences is too large for the available VRAM`);
      return n;
    };
    return { tried, open };
  };

  it('takes the default where it fits, without a second try', async () => {
    const { tried, open } = opener(8);
    expect(await withFewerUntilItFits(8, open)).toBe(8);
    expect(tried).toEqual([8]);
  });

  it('halves the sequences while their caches do not fit', async () => {
    const { tried, open } = opener(3);
    expect(await withFewerUntilItFits(8, open)).toBe(2);
    expect(tried).toEqual([8, 4, 2]);
  });

  it('passes on the error when even one sequence does not fit, and any other error at once', async () => {
    const none = opener(0);
    await expect(withFewerUntilItFits(8, none.open)).rejects.toThrow(/with 1 sequences is too large/);
    expect(none.tried).toEqual([8, 4, 2, 1]);
    let calls = 0;
    await expect(
      withFewerUntilItFits(8, async () => {
        calls++;
        throw new Error('the model file is corrupt');
      }),
    ).rejects.toThrow('the model file is corrupt');
    expect(calls).toBe(1);
  });
});
