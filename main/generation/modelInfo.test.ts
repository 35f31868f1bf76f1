import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { inspectModel } from './modelInfo.js';
import { writeTestModel } from './testModel.js';

describe('inspectModel', () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-fit-')), 'model.gguf');
  writeTestModel('llama-spm', file, { layers: 2, dim: 64, seed: 1, weights: 'f16' });
  // A large machine, so the estimate is not cut to what is free.
  const memory = { ram: async () => ({ total: 64 * 2 ** 30, free: 64 * 2 ** 30 }) };

  it('counts the cache of every parallel sequence, and says for how many', async () => {
    const one = await inspectModel(file, { memory, contextSize: 1024, sequences: 1 });
    const four = await inspectModel(file, { memory, contextSize: 1024, sequences: 4 });
    const eight = await inspectModel(file, { memory, contextSize: 1024, sequences: 8 });
    expect(one.fit.summary).toMatch(/^runs on the CPU: [\d.]+ GiB of 64\.0 GiB free RAM \(1 sequence of 1,024 tokens\)$/);
    expect(four.fit.summary).toMatch(/\(4 sequences of 1,024 tokens\)$/);
    // The weights are paid once and the caches per sequence: each further 4 sequences cost the same.
    const perFour = four.fit.ramBytes - one.fit.ramBytes;
    expect(perFour).toBeGreaterThan(0);
    expect(eight.fit.ramBytes - four.fit.ramBytes).toBeGreaterThan(perFour * 0.9);
  });

  it('refuses a machine whose RAM holds one sequence but not four', async () => {
    const one = await inspectModel(file, { memory, contextSize: 1024, sequences: 1 });
    const four = await inspectModel(file, { memory, contextSize: 1024, sequences: 4 });
    const between = (one.fit.ramBytes + four.fit.ramBytes) / 2;
    const small = { ram: async () => ({ total: between, free: between }) };
    expect((await inspectModel(file, { memory: small, contextSize: 1024, sequences: 1 })).fit.fitsRam).toBe(true);
    const refused = await inspectModel(file, { memory: small, contextSize: 1024, sequences: 4 });
    expect(refused.fit.fitsRam).toBe(false);
    expect(refused.fit.summary).toMatch(/^does not fit: needs [\d.]+ GiB RAM for 4 sequences of 1,024 tokens, [\d.]+ GiB RAM free$/);
  });
});
