import fs from 'node:fs';

/**
 * GGUF's key/value header, read by hand: the format is a short, fixed binary layout
 * (github.com/ggml-org/ggml/blob/master/docs/gguf.md) and no maintained npm package reads it
 * without pulling in a model runtime. Tensors are never touched.
 *
 * A model file is untrusted input: every count it declares (entries, array items, string bytes,
 * tensors, dimensions) is checked against what the file's remaining bytes could hold before
 * anything is allocated for it, so a small or sparse file cannot ask for 2^40 items.
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

/** A file whose header is malformed or declares more than the file holds: refused as it is, never read further. */
export class GgufFormatError extends Error {
  override readonly name = 'GgufFormatError';
}

/**
 * The most items one metadata array may declare. The largest tokenizers hold about 260,000 tokens
 * and 500,000 merges; a JavaScript array of 2^24 numbers already takes 128 MB, and V8 aborts the
 * process (it does not throw) past about 134 million elements.
 */
export const GGUF_MAX_ARRAY_ITEMS = 2 ** 24;
/**
 * The most bytes a header (metadata and tensor infos) may take. The largest real ones, a
 * 262k-token vocabulary with its scores and merges, take about 20 MB; node-llama-cpp's reader
 * copies what it has read on every 4 MB it adds, so a header of H MB costs it about H²/8 MB of copying.
 */
export const GGUF_MAX_HEADER_BYTES = 64 * 2 ** 20;
/** Arrays of arrays: the format allows them, llama.cpp reads none; a few levels leave room. */
const MAX_ARRAY_DEPTH = 4;
/** GGML_MAX_DIMS. */
const MAX_TENSOR_DIMS = 4;

/** The fewest bytes a value of each type takes: a string or array is at least its length field. */
const MIN_BYTES: Readonly<Record<number, number>> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 8: 8, 9: 12, 10: 8, 11: 8, 12: 8 };
/** A key/value pair: key length, type, the smallest value. */
const MIN_ENTRY_BYTES = 8 + 4 + 1;
/** A tensor info: name length, dimension count, type, offset. */
const MIN_TENSOR_BYTES = 8 + 4 + 4 + 8;

interface Header {
  readonly entries: GgufEntry[];
  readonly tensorCount: number;
}

/** Exactly `n` bytes of the file from `at` (a view, valid until the next call), or RangeError when they were not read. */
type ByteSource = (at: number, n: number) => Uint8Array;

const bufferSource =
  (data: Uint8Array): ByteSource =>
  (at, n) => {
    if (at + n > data.byteLength) throw new RangeError('GGUF header continues past the bytes read');
    return data.subarray(at, at + n);
  };

/** Reads a file through a 1 MB window, so checking a header costs what its structure takes, not its arrays' bytes. */
function fileSource(fd: number): ByteSource {
  let window = new Uint8Array(0);
  let start = 0;
  return (at, n) => {
    if (at < start || at + n > start + window.byteLength) {
      const buffer = Buffer.alloc(Math.max(n, 2 ** 20));
      const got = fs.readSync(fd, buffer, 0, buffer.byteLength, at);
      if (got < n) throw new GgufFormatError(`the file ends at byte ${at + got}, before its header does (its size says more: is it still being written?)`);
      window = buffer.subarray(0, got);
      start = at;
    }
    return window.subarray(at - start, at - start + n);
  };
}

/**
 * Reads the header through `bytes`; `fileSize` is the whole file's length. Throws GgufFormatError
 * for a file that is not a valid GGUF header, and RangeError when the bytes given end before the
 * header does but the file goes on (read more and try again). With `tensors`, the tensor infos
 * are checked too; with `values` false, the header is only checked: values are left empty and
 * arrays of numbers are stepped over without being read.
 */
function readHeader(bytes: ByteSource, fileSize: number, options: { tensors: boolean; values: boolean }): Header {
  let at = 0;
  /** Moves past n bytes, returning where they start. */
  const take = (n: number): number => {
    if (at + n > fileSize) throw new GgufFormatError(`the GGUF header runs past the end of the file (byte ${at + n} of ${fileSize})`);
    if (at + n > GGUF_MAX_HEADER_BYTES) throw new GgufFormatError(`the GGUF header takes more than ${GGUF_MAX_HEADER_BYTES / 2 ** 20} MB (a model's takes a few MB)`);
    at += n;
    return at - n;
  };
  const view = (n: number): DataView => {
    const b = bytes(take(n), n);
    return new DataView(b.buffer, b.byteOffset, n);
  };
  const u32 = (): number => view(4).getUint32(0, true);
  const u64 = (): bigint => view(8).getBigUint64(0, true);
  /** A declared count, refused when its items (each at least `itemBytes`) could not fit in the rest of the file. */
  const count = (what: string, itemBytes: number, limit = Number.MAX_SAFE_INTEGER): number => {
    const declared = u64();
    const room = Math.floor((fileSize - at) / itemBytes);
    if (declared > BigInt(Math.min(room, limit))) {
      throw new GgufFormatError(`${what} declares ${declared} ${declared > BigInt(room) ? `items, more than the file's remaining ${fileSize - at} bytes could hold` : `items, more than the ${limit} allowed`}`);
    }
    return Number(declared);
  };
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true }); // a token may begin with U+FEFF: keep it
  const str = (what: string, keep = true): string => {
    const length = count(what, 1);
    if (!keep) return (take(length), '');
    return decoder.decode(bytes(take(length), length));
  };
  const value = (key: string, type: number, depth: number): GgufValue => {
    switch (type) {
      case 0: return view(1).getUint8(0);
      case 1: return view(1).getInt8(0);
      case 2: return view(2).getUint16(0, true);
      case 3: return view(2).getInt16(0, true);
      case 4: return u32();
      case 5: return view(4).getInt32(0, true);
      case 6: return view(4).getFloat32(0, true);
      case 7: return view(1).getUint8(0) !== 0;
      case 8: return str(`the string of "${key}"`, options.values);
      case 9: {
        if (depth >= MAX_ARRAY_DEPTH) throw new GgufFormatError(`metadata entry "${key}" nests arrays more than ${MAX_ARRAY_DEPTH} deep`);
        const itemType = u32();
        const itemBytes = MIN_BYTES[itemType];
        if (itemBytes === undefined) throw new GgufFormatError(`metadata entry "${key}" is an array of unknown type ${itemType}`);
        const n = count(`metadata entry "${key}"`, itemBytes, GGUF_MAX_ARRAY_ITEMS);
        // Only checking: fixed-size items are stepped over at once, not read one by one.
        if (!options.values && itemType !== GGUF_TYPE.string && itemType !== GGUF_TYPE.array) return (take(n * itemBytes), []);
        const items: GgufValue[] = [];
        for (let i = 0; i < n; i++) items.push(value(key, itemType, depth + 1));
        return items;
      }
      case 10: return u64();
      case 11: return view(8).getBigInt64(0, true);
      case 12: return view(8).getFloat64(0, true);
      default: throw new GgufFormatError(`not a GGUF file I can read: metadata entry "${key}" has unknown value type ${type} (byte ${at})`);
    }
  };
  const magic = (): boolean => {
    try {
      return fileSize >= 24 && u32() === GGUF_MAGIC;
    } catch (error) {
      if (error instanceof GgufFormatError) return false;
      throw error;
    }
  };
  if (!magic()) throw new GgufFormatError('not a GGUF file (bad magic)');
  const version = u32();
  if (version < 2) throw new GgufFormatError(`GGUF version ${version} is too old`);
  if (version > 3) throw new GgufFormatError(`GGUF version ${version} is newer than this workbench reads (2 and 3)`);
  const tensorCount = count('the header', MIN_TENSOR_BYTES);
  const kvCount = count('the header', MIN_ENTRY_BYTES);
  const entries: GgufEntry[] = [];
  for (let i = 0; i < kvCount; i++) {
    const key = str(`key ${i}`);
    const type = u32();
    const start = at;
    const v = value(key, type, 0);
    // The encoded value, copied (a file's window moves on); only when values are read.
    const raw = options.values ? Uint8Array.from(bytes(start, at - start)) : new Uint8Array(0);
    entries.push({ key, type, value: v, raw });
  }
  if (options.tensors) {
    for (let i = 0; i < tensorCount; i++) {
      const name = str(`tensor ${i}'s name`);
      const dims = u32();
      if (dims > MAX_TENSOR_DIMS) throw new GgufFormatError(`tensor "${name}" declares ${dims} dimensions (at most ${MAX_TENSOR_DIMS})`);
      take(8 * dims + 4 + 8);
    }
  }
  return { entries, tensorCount };
}

/** Every metadata entry of a GGUF file, in file order; `fileSize`: the file's length when `data` is only its beginning. */
export function readGgufEntries(data: Uint8Array, fileSize = data.byteLength): GgufEntry[] {
  return readHeader(bufferSource(data), fileSize, { tensors: false, values: true }).entries;
}

/** The key/value metadata of a GGUF file's bytes, or of a file on disk (reading only its header), as a map. */
export function readGgufMetadata(source: Uint8Array | string): Map<string, GgufValue> {
  return new Map((typeof source === 'string' ? readGgufFileEntries(source) : readGgufEntries(source)).map((e) => [e.key, e.value]));
}

/**
 * The header of a GGUF file on disk without reading its tensors' data (the weights may take many
 * GB). With `tensors`, the tensor infos are checked as well; with `values: false` the header is
 * only checked (values left empty), stepping over arrays of numbers without reading them. Opened
 * non-blocking, so a FIFO named like a model cannot hang the reader; anything but a regular file
 * is refused.
 */
export function readGgufFileHeader(file: string, options: { tensors?: boolean; values?: boolean } = {}): Header {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new GgufFormatError('not a regular file');
    return readHeader(fileSource(fd), stat.size, { tensors: options.tensors ?? false, values: options.values ?? true });
  } finally {
    fs.closeSync(fd);
  }
}

/** The metadata entries of a GGUF file on disk (readGgufFileHeader). */
export function readGgufFileEntries(file: string): GgufEntry[] {
  return readGgufFileHeader(file).entries;
}
