import fs from 'node:fs';

/**
 * GGUF's key/value header, read by hand: the format is a short, fixed binary layout
 * (github.com/ggml-org/ggml/blob/master/docs/gguf.md) and no maintained npm package reads it
 * without pulling in a model runtime. Tensors are never touched.
 */
export const GGUF_MAGIC = 0x46554747; // "GGUF" little-endian

export type GgufValue = number | bigint | boolean | string | GgufValue[];

/** One metadata entry with its type code and its encoded bytes, so it can be copied verbatim. */
export interface GgufEntry {
  readonly key: string;
  readonly type: number;
  readonly value: GgufValue;
  readonly raw: Uint8Array;
}

export const GGUF_TYPE = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 } as const;

/** Every metadata entry of a GGUF file, in file order. */
export function readGgufEntries(data: Uint8Array): GgufEntry[] {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const u32 = (): number => ((at += 4), view.getUint32(at - 4, true));
  const u64 = (): bigint => ((at += 8), view.getBigUint64(at - 8, true));
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a token may begin with U+FEFF: keep it
  const str = (): string => {
    const length = Number(u64());
    // A cut-off header must fail as one (RangeError), not decode to a shorter string.
    if (at + length > data.byteLength) throw new RangeError('GGUF header ends inside a string');
    const s = decoder.decode(data.subarray(at, at + length));
    at += length;
    return s;
  };
  const value = (type: number): GgufValue => {
    switch (type) {
      case 0: return ((at += 1), view.getUint8(at - 1));
      case 1: return ((at += 1), view.getInt8(at - 1));
      case 2: return ((at += 2), view.getUint16(at - 2, true));
      case 3: return ((at += 2), view.getInt16(at - 2, true));
      case 4: return u32();
      case 5: return ((at += 4), view.getInt32(at - 4, true));
      case 6: return ((at += 4), view.getFloat32(at - 4, true));
      case 7: return ((at += 1), view.getUint8(at - 1) !== 0);
      case 8: return str();
      case 9: {
        const itemType = u32();
        const count = Number(u64());
        const items: GgufValue[] = new Array<GgufValue>(count);
        for (let i = 0; i < count; i++) items[i] = value(itemType);
        return items;
      }
      case 10: return u64();
      case 11: return ((at += 8), view.getBigInt64(at - 8, true));
      case 12: return ((at += 8), view.getFloat64(at - 8, true));
      default: throw new Error(`not a GGUF file I can read: unknown value type ${type} at byte ${at}`);
    }
  };
  if (data.byteLength < 24 || view.getUint32(0, true) !== GGUF_MAGIC) throw new Error('not a GGUF file (bad magic)');
  at = 4;
  const version = u32();
  if (version < 2) throw new Error(`GGUF version ${version} is too old`);
  u64(); // tensor count
  const kvCount = Number(u64());
  const entries: GgufEntry[] = [];
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    const type = u32();
    const start = at;
    entries.push({ key, type, value: value(type), raw: data.subarray(start, at) });
  }
  return entries;
}

/** The key/value metadata of a GGUF file's bytes, or of a file on disk (reading only its header), as a map. */
export function readGgufMetadata(source: Uint8Array | string): Map<string, GgufValue> {
  return new Map((typeof source === 'string' ? readGgufFileEntries(source) : readGgufEntries(source)).map((e) => [e.key, e.value]));
}

/**
 * The metadata of a GGUF file on disk without reading its tensors: the header is read in growing
 * chunks until it parses (a tokenizer's entries take a few MB; the weights may take many GB).
 */
export function readGgufFileEntries(file: string): GgufEntry[] {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    for (let length = Math.min(size, 16 * 2 ** 20); ; length = Math.min(size, length * 2)) {
      const head = Buffer.alloc(length);
      fs.readSync(fd, head, 0, length, 0);
      try {
        return readGgufEntries(head);
      } catch (error) {
        if (!(error instanceof RangeError) || length === size) throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}
