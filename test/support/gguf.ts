import fs from 'node:fs';
import { GGUF_TYPE } from '../../main/gguf/index.js';

/** A GGUF header with one hostile declaration; the file is extended (sparsely) by the caller. */
export function craftedHeader(lie: { kind: 'array' | 'string' | 'entries' | 'nested'; count: bigint; itemType?: number }): Uint8Array {
  const parts: Buffer[] = [];
  const u32 = (n: number): void => void parts.push(Buffer.from(new Uint32Array([n]).buffer));
  const u64 = (n: bigint): void => void parts.push(Buffer.from(new BigUint64Array([n]).buffer));
  const key = (k: string): void => {
    u64(BigInt(Buffer.byteLength(k)));
    parts.push(Buffer.from(k));
  };
  u32(0x46554747);
  u32(3);
  u64(0n);
  u64(lie.kind === 'entries' ? lie.count : 1n);
  key('tokenizer.ggml.tokens');
  if (lie.kind === 'string') {
    u32(GGUF_TYPE.string);
    u64(lie.count);
  } else if (lie.kind === 'nested') {
    u32(GGUF_TYPE.array);
    for (let i = 0; i < 6; i++) {
      u32(GGUF_TYPE.array);
      u64(1n);
    }
  } else if (lie.kind === 'array') {
    u32(GGUF_TYPE.array);
    u32(lie.itemType ?? GGUF_TYPE.u8);
    u64(lie.count);
  }
  return Buffer.concat(parts);
}

/**
 * A GGUF file whose every count fits its bytes and the reader's limits, but whose `arrays` arrays
 * of `items` u8 each make more JavaScript values than a header heap holds (a byte on disk is 8 in
 * a JavaScript array). Sparse: the items are zeros that take no disk.
 */
export function writeHeavyHeader(file: string, arrays: number, items: number): void {
  const fd = fs.openSync(file, 'w');
  let at = fs.writeSync(fd, Buffer.concat([Buffer.from(new Uint32Array([0x46554747, 3]).buffer), Buffer.from(new BigUint64Array([0n, BigInt(arrays)]).buffer)]), 0, 24, 0);
  for (let i = 0; i < arrays; i++) {
    const key = Buffer.from(`heavy.${i}`);
    const head = Buffer.concat([Buffer.from(new BigUint64Array([BigInt(key.length)]).buffer), key, Buffer.from(new Uint32Array([GGUF_TYPE.array, GGUF_TYPE.u8]).buffer), Buffer.from(new BigUint64Array([BigInt(items)]).buffer)]);
    at += fs.writeSync(fd, head, 0, head.length, at);
    at += items;
  }
  fs.ftruncateSync(fd, at);
  fs.closeSync(fd);
}

/** A GGUF file of `size` bytes (sparse) with one array claiming 2^40 entries: the header that made V8 abort `serve`. */
export function writeLyingHeader(file: string, size = 160 * 2 ** 20): void {
  fs.writeFileSync(file, craftedHeader({ kind: 'array', count: 2n ** 40n }));
  fs.truncateSync(file, size);
}
