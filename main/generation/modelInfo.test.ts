import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeHeavyHeader, writeLyingHeader } from '../../test/support/gguf.js';
import { HEADER_HEAP_MB } from './headerInWorker.js';
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

  it('refuses a crafted header with one line and goes on: a count past the file’s bytes, and a header too big for the worker’s heap', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-crafted-'));
    // One array claiming 2^40 entries in a 160 MB sparse file: node-llama-cpp's reader alone allocated until V8 aborted the process.
    const lying = path.join(dir, 'lying.gguf');
    writeLyingHeader(lying);
    await expect(inspectModel(lying, { memory })).rejects.toThrow(/^metadata entry "tokenizer\.ggml\.tokens" declares 1099511627776 items, more than the file's remaining \d+ bytes could hold$/);
    // Every count within the file and the limits, but more strings than the header heap holds.
    const heavy = path.join(dir, 'heavy.gguf');
    writeHeavyHeader(heavy, 4, 16_000_000); // 64 million numbers in a 64 MB header
    await expect(inspectModel(heavy, { memory })).rejects.toThrow(`reading its GGUF header needed more than ${HEADER_HEAP_MB} MB; the header is malformed or declares far more than a model holds`);
    // The process and the next read are fine.
    expect((await inspectModel(file, { memory, contextSize: 1024, sequences: 1 })).metadata.architecture).toBe('llama');
    fs.rmSync(dir, { recursive: true });
  }, 300_000);
});
