import { describe, expect, it } from 'vitest';
import type { StateKey } from './matcher.js';
import { StateTable } from './stateTable.js';

describe('StateTable', () => {
  it('answers as a Map does, past its expected size, for every kind of key', () => {
    // A seeded generator: the same keys every run.
    let seed = 7;
    const random = (n: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    const table = new StateTable(64);
    const reference = new Map<StateKey, number>();
    const keys: StateKey[] = [-1, 0, 1, 0x7ffffffd, 0x7ffffffe, 2 ** 40, '3 9', '3 10'];
    // Dense stack numbers, as the matcher gives them, and a stride that lands in one slot of a small table.
    for (let i = 0; i < 3000; i++) keys.push(i, i * 4096, random(1 << 30));
    for (const [i, key] of keys.entries()) {
      table.set(key, i + 1);
      reference.set(key, i + 1);
    }
    for (const key of reference.keys()) expect(table.get(key)).toBe(reference.get(key));
    for (const key of [-2, 2 ** 41, '3', 0.5, 0x7ffffffc - 1]) expect(table.get(key)).toBe(reference.get(key));
    table.clear();
    for (const key of keys) expect(table.get(key)).toBeUndefined();
    table.set(5, 9);
    expect(table.get(5)).toBe(9);
  });
});
