import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { encodeGguf, readGgufEntries, readGgufFileEntries, readGgufMetadata, GGUF_TYPE } from './index.js';

const concat = (chunks: Uint8Array[]): Uint8Array => Buffer.concat(chunks);

describe('gguf', () => {
  // Entries read from one file and copied into another by their raw bytes, as test models copy a tokenizer.
  const source = readGgufEntries(
    concat(
      encodeGguf(
        [
          { key: 'general.architecture', type: 'string', value: 'llama' },
          { key: 'llama.block_count', type: 'u32', value: 2 },
        ],
        [],
      ),
    ),
  );

  it('reads back what it writes: scalars, strings and copied entries, in order', () => {
    const data = concat(
      encodeGguf(
        [
          ...source,
          { key: 'llama.rope.freq_base', type: 'f32', value: 10000 },
          { key: 'tokenizer.ggml.add_bos_token', type: 'bool', value: true },
          { key: 'general.name', type: 'string', value: 'naïve — ünïcode' },
        ],
        [],
      ),
    );
    const entries = readGgufEntries(data);
    expect(entries.map((e) => e.key)).toEqual(['general.architecture', 'llama.block_count', 'llama.rope.freq_base', 'tokenizer.ggml.add_bos_token', 'general.name']);
    expect(entries.map((e) => e.type)).toEqual([GGUF_TYPE.string, GGUF_TYPE.u32, GGUF_TYPE.f32, GGUF_TYPE.bool, GGUF_TYPE.string]);
    const metadata = readGgufMetadata(data);
    expect(metadata.get('llama.block_count')).toBe(2);
    expect(metadata.get('llama.rope.freq_base')).toBe(10000);
    expect(metadata.get('tokenizer.ggml.add_bos_token')).toBe(true);
    expect(metadata.get('general.name')).toBe('naïve — ünïcode');
  });

  it('writes files node-llama-cpp reads: metadata, tensor shapes and 32-byte aligned offsets', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-gguf-'));
    const file = path.join(dir, 'tiny.gguf');
    const odd = new Uint8Array(4 * 5).fill(7); // 20 bytes: the next tensor must start on the next 32-byte boundary
    const half = new Uint8Array(2 * 3 * 2).fill(1);
    fs.writeFileSync(file, concat(encodeGguf([...source, { key: 'general.alignment', type: 'u32', value: 32 }], [
      { name: 'a.weight', dims: [5], type: 'f32', data: odd },
      { name: 'b.weight', dims: [3, 2], type: 'f16', data: half },
    ])));
    const info = await readGgufFileInfo(file, { readTensorInfo: true });
    expect(info.metadata.general.architecture).toBe('llama');
    expect((info.metadata as unknown as { llama: { block_count: number } }).llama.block_count).toBe(2);
    const tensors = info.fullTensorInfo ?? [];
    expect(tensors.map((t) => [t.name, t.dimensions.map(Number), Number(t.offset)])).toEqual([
      ['a.weight', [5], 0],
      ['b.weight', [3, 2], 32],
    ]);
    // The data section starts aligned, and each tensor's bytes sit at their offset.
    const bytes = fs.readFileSync(file);
    const dataStart = bytes.length - 32 - 32;
    expect(dataStart % 32).toBe(0);
    expect([...bytes.subarray(dataStart, dataStart + 20)]).toEqual([...odd]);
    expect([...bytes.subarray(dataStart + 32, dataStart + 44)]).toEqual([...half]);
    expect(readGgufFileEntries(file).map((e) => e.key)).toEqual(['general.architecture', 'llama.block_count', 'general.alignment']);
    fs.rmSync(dir, { recursive: true });
  });

  it('rejects what is not GGUF, and a header cut short, with a message', () => {
    expect(() => readGgufEntries(new TextEncoder().encode('PK\u0003\u0004 not a model at all'))).toThrow(/not a GGUF file/);
    const data = concat(encodeGguf(source, []));
    for (const cut of [30, 45, 60]) expect(() => readGgufEntries(data.subarray(0, cut))).toThrow(RangeError);
  });
});
