import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readGgufFileInfo } from 'node-llama-cpp';
import { describe, expect, it } from 'vitest';
import { craftedHeader } from '../../test/support/gguf.js';
import { encodeGguf, GgufFormatError, readGgufEntries, readGgufFileEntries, readGgufMetadata, GGUF_TYPE } from './index.js';

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
    // Cut short, it either runs past its end or declares more than is left.
    for (const cut of [30, 45, 60]) expect(() => readGgufEntries(data.subarray(0, cut))).toThrow(GgufFormatError);
    expect(() => readGgufEntries(data.subarray(0, 60))).toThrow(/^the GGUF header runs past the end of the file \(byte \d+ of 60\)$/);
    // The beginning of a longer file: read more, not refused.
    expect(() => readGgufEntries(data.subarray(0, 45), data.byteLength)).toThrow(RangeError);
  });

  it('refuses a header whose declared counts the file could not hold, before allocating for them (a 160 MB sparse file claiming 2^40 items)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-gguf-'));
    const cases: [string, Uint8Array, RegExp][] = [
      ['array', craftedHeader({ kind: 'array', count: 2n ** 40n }), /^metadata entry "tokenizer\.ggml\.tokens" declares 1099511627776 items, more than the file's remaining \d+ bytes could hold$/],
      ['string array', craftedHeader({ kind: 'array', itemType: GGUF_TYPE.string, count: 2n ** 25n }), /declares 33554432 items, more than the file's remaining \d+ bytes could hold$/],
      // Within the file's bytes (u8 items), but past what any tokenizer holds and near V8's limit.
      ['long array', craftedHeader({ kind: 'array', count: 100_000_000n }), /^metadata entry "tokenizer\.ggml\.tokens" declares 100000000 items, more than the 16777216 allowed$/],
      ['string', craftedHeader({ kind: 'string', count: 2n ** 62n }), /^the string of "tokenizer\.ggml\.tokens" declares \d+ items, more than the file's remaining/],
      ['entries', craftedHeader({ kind: 'entries', count: 2n ** 40n }), /^the header declares 1099511627776 items, more than the file's remaining \d+ bytes could hold$/],
      ['nesting', craftedHeader({ kind: 'nested', count: 1n }), /nests arrays more than 4 deep$/],
      // Within the file, but a header of 70 MB: node-llama-cpp's reader would copy gigabytes to read it.
      ['big header', craftedHeader({ kind: 'string', count: 70n * 2n ** 20n }), /^the GGUF header takes more than 64 MB \(a model's takes a few MB\)$/],
    ];
    for (const [name, head, message] of cases) {
      const file = path.join(dir, `${name}.gguf`);
      fs.writeFileSync(file, head);
      fs.truncateSync(file, 160 * 2 ** 20); // sparse: 160 MB that take no disk
      expect(() => readGgufFileEntries(file), name).toThrow(GgufFormatError);
      expect(() => readGgufFileEntries(file), name).toThrow(message);
    }
    fs.rmSync(dir, { recursive: true });
  });
});
