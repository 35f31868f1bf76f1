import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { loadRuntime } from './runtime.js';
import { writeTestModel } from './testModel.js';

/** A tensor's bytes in a GGUF file: tensors sit one after another, 32-byte aligned, at the end. */
async function tensorBytes(file: string, name: string): Promise<Buffer> {
  const info = await readGgufFileInfo(file, { readTensorInfo: true });
  const tensors = info.fullTensorInfo ?? [];
  const bytes = fs.readFileSync(file);
  const sizes = (t: (typeof tensors)[number]): number => {
    const count = t.dimensions.reduce<number>((a, b) => a * Number(b), 1);
    return t.ggmlType === 8 ? (count / 32) * 34 : t.ggmlType === 1 ? count * 2 : count * 4;
  };
  const last = tensors.at(-1)!;
  const dataStart = bytes.length - Math.ceil((Number(last.offset) + sizes(last)) / 32) * 32;
  const tensor = tensors.find((t) => t.name === name)!;
  return bytes.subarray(dataStart + Number(tensor.offset), dataStart + Number(tensor.offset) + sizes(tensor));
}

describe('test models with q8_0 weights', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-q8-'));
  const f16 = path.join(dir, 'f16.gguf');
  const q8 = path.join(dir, 'q8.gguf');
  writeTestModel('llama-spm', f16, { layers: 1, dim: 64, seed: 3, weights: 'f16' });
  writeTestModel('llama-spm', q8, { layers: 1, dim: 64, seed: 3, weights: 'q8_0' });

  it('hold the same weights as the f16 model of the same seed, to within a quantisation step', async () => {
    const half = new Float32Array(1);
    const toFloat = (h: number): number => {
      const e = (h >> 10) & 0x1f;
      const m = h & 0x3ff;
      half[0] = (h & 0x8000 ? -1 : 1) * (e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15));
      return half[0];
    };
    const a = await tensorBytes(f16, 'blk.0.ffn_down.weight');
    const b = await tensorBytes(q8, 'blk.0.ffn_down.weight');
    expect(b.length / 34).toBe(a.length / 2 / 32);
    let worst = 0;
    for (let block = 0; block < b.length / 34; block++) {
      const d = toFloat(b.readUInt16LE(block * 34));
      expect(d).toBeGreaterThan(0);
      for (let i = 0; i < 32; i++) {
        const exact = toFloat(a.readUInt16LE((block * 32 + i) * 2));
        const quantised = d * b.readInt8(block * 34 + 2 + i);
        worst = Math.max(worst, Math.abs(quantised - exact) / d);
      }
    }
    // Half a step from rounding, plus up to 127 × 2^-10 of a step each from the f16 truncation of
    // the scale and of the reference weight (both files truncate, as llama.cpp's quantiser does).
    expect(worst).toBeLessThanOrEqual(0.5 + 2 * 127 * 2 ** -10);
    expect(worst).toBeGreaterThan(0.4); // a real rounding, not a copy
  });

  it('load in llama.cpp as MOSTLY_Q8_0 and generate', async () => {
    const runtime = await loadRuntime(q8, { gpu: 'cpu' });
    try {
      expect(runtime.info.quantisation).toBe('MOSTLY_Q8_0');
      const context = await runtime.model.createContext({ contextSize: 128 });
      const sequence = context.getSequence();
      const tokens: number[] = [];
      for await (const token of sequence.evaluate(runtime.model.tokenize('axios.get('), { temperature: 0 })) {
        tokens.push(token);
        if (tokens.length === 8) break;
      }
      expect(tokens).toHaveLength(8);
      await context.dispose();
    } finally {
      await runtime.dispose();
    }
  });
});
