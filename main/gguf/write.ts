import { GGUF_MAGIC, GGUF_TYPE, type GgufEntry } from './read.js';

/** A metadata entry to write: copied bytes, or a value of a scalar type. */
export type GgufOut = GgufEntry | { readonly key: string; readonly type: 'u32' | 'f32' | 'string' | 'bool'; readonly value: number | string | boolean };

/** A tensor to write: dims innermost first (ggml's order), F32, F16 or Q8_0 data already encoded. */
export interface GgufTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly type: 'f32' | 'f16' | 'q8_0';
  readonly data: Uint8Array;
}

const ALIGNMENT = 32;
const TENSOR_TYPE = { f32: 0, f16: 1, q8_0: 8 } as const;

/**
 * Encodes a GGUF file (version 3): header, metadata, tensor infos, then the tensor data, each
 * tensor aligned to 32 bytes. Returned as chunks, so a large model is never copied into one buffer.
 */
export function encodeGguf(metadata: readonly GgufOut[], tensors: readonly GgufTensor[]): Uint8Array[] {
  const encoder = new TextEncoder();
  const chunks: Uint8Array[] = [];
  let length = 0;
  const bytes = (b: Uint8Array): void => {
    chunks.push(b);
    length += b.byteLength;
  };
  const scalar = (size: number, write: (view: DataView) => void): void => {
    const b = new Uint8Array(size);
    write(new DataView(b.buffer));
    bytes(b);
  };
  const u32 = (n: number): void => scalar(4, (v) => v.setUint32(0, n, true));
  const u64 = (n: number | bigint): void => scalar(8, (v) => v.setBigUint64(0, BigInt(n), true));
  const str = (s: string): void => {
    const b = encoder.encode(s);
    u64(b.length);
    bytes(b);
  };
  u32(GGUF_MAGIC);
  u32(3);
  u64(tensors.length);
  u64(metadata.length);
  for (const entry of metadata) {
    str(entry.key);
    if ('raw' in entry) {
      u32(entry.type);
      bytes(entry.raw);
      continue;
    }
    u32(GGUF_TYPE[entry.type]);
    if (entry.type === 'u32') u32(Number(entry.value));
    else if (entry.type === 'f32') scalar(4, (v) => v.setFloat32(0, Number(entry.value), true));
    else if (entry.type === 'bool') scalar(1, (v) => v.setUint8(0, entry.value ? 1 : 0));
    else str(String(entry.value));
  }
  let offset = 0;
  const offsets: number[] = [];
  for (const t of tensors) {
    offsets.push(offset);
    offset += Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  tensors.forEach((t, i) => {
    str(t.name);
    u32(t.dims.length);
    for (const d of t.dims) u64(d);
    u32(TENSOR_TYPE[t.type]);
    u64(offsets[i]!);
  });
  if (length % ALIGNMENT !== 0) bytes(new Uint8Array(ALIGNMENT - (length % ALIGNMENT)));
  for (const t of tensors) {
    chunks.push(t.data);
    const pad = Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT - t.data.byteLength;
    if (pad > 0) chunks.push(new Uint8Array(pad));
  }
  return chunks;
}
