import { describe, expect, it } from 'vitest';
import { StepGate } from './decoder.js';

const settled = async <T>(p: Promise<T>): Promise<T | 'pending'> => Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), 10))]);

describe('StepGate: the sequences in a generation step together', () => {
  it('holds a step until every active sequence has one, then lets them go as one group', async () => {
    const gate = new StepGate();
    gate.join();
    gate.join();
    const first = gate.arrive(0, async (group) => group);
    expect(await settled(first)).toBe('pending');
    const second = gate.arrive(1, async (group) => group);
    expect(await Promise.all([first, second])).toEqual([2, 2]);
  });

  it('lets a group go in sequence-id order, whatever order they arrived in (llama.cpp splits a batch where the ids skip)', async () => {
    const gate = new StepGate();
    for (let i = 0; i < 4; i++) gate.join();
    const went: number[] = [];
    await Promise.all([3, 1, 2, 0].map((id) => gate.arrive(id, async () => went.push(id))));
    expect(went).toEqual([0, 1, 2, 3]);
  });

  it('lets the waiting go when a sequence ends its generation instead of stepping', async () => {
    const gate = new StepGate();
    for (let i = 0; i < 3; i++) gate.join();
    const waiting = [gate.arrive(0, async (group) => group), gate.arrive(1, async (group) => group)];
    expect(await settled(waiting[0]!)).toBe('pending');
    gate.leave();
    expect(await Promise.all(waiting)).toEqual([2, 2]);
  });

  it('never holds a sequence that is alone', async () => {
    const gate = new StepGate();
    gate.join();
    expect(await gate.arrive(0, async (group) => group)).toBe(1);
    expect(await gate.arrive(0, async (group) => group)).toBe(1);
  });
});
