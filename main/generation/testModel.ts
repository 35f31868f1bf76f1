import fs from 'node:fs';
import path from 'node:path';
import { encodeGguf, readGgufEntries, type GgufOut, type GgufTensor } from '../gguf/index.js';
import { bundledVocabulary, cacheDir, type BundledVocabulary } from './vocabularies.js';

export interface TestModelShape {
  readonly layers: number;
  readonly dim: number;
  readonly seed: number;
  /**
   * How the matrices are stored: f16, or q8_0 as most GGUF models people run are quantized (the
   * CPU's batched kernels differ: f16 converts every weight it multiplies, q8_0 works on integers).
   */
  readonly weights: 'f16' | 'q8_0';
}
export const DEFAULT_TEST_MODEL: TestModelShape = { layers: 2, dim: 64, seed: 1, weights: 'f16' };

/** A shape as the model's name and its cache file spell it (`L2-D64-S1`, `-q8_0` when not f16). */
const shapeTag = ({ layers, dim, seed, weights }: TestModelShape): string => `L${layers}-D${dim}-S${seed}${weights === 'f16' ? '' : `-${weights}`}`;

/** mulberry32: seeded, so the same parameters give the same file byte for byte. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** float → IEEE half, truncating: Node 20 has no Float16Array, and random weights need no rounding. */
function half(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = ((x >>> 23) & 0xff) - 112;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7c00;
  return sign | (exp << 10) | ((x & 0x7fffff) >>> 13);
}

function f16Tensor(name: string, dims: number[], scale: number, rand: () => number): GgufTensor {
  const count = dims.reduce((a, b) => a * b, 1);
  const out = new Uint16Array(count);
  for (let i = 0; i < count; i++) out[i] = half((rand() * 2 - 1) * scale);
  return { name, dims, type: 'f16', data: new Uint8Array(out.buffer) };
}

/** ggml's Q8_0: blocks of 32 weights, each an f16 scale and 32 signed bytes (34 bytes a block). */
function q8Tensor(name: string, dims: number[], scale: number, rand: () => number): GgufTensor {
  const count = dims.reduce((a, b) => a * b, 1);
  const data = new Uint8Array((count / 32) * 34);
  const view = new DataView(data.buffer);
  const block = new Float32Array(32);
  for (let b = 0; b < count / 32; b++) {
    let amax = 0;
    for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs((block[i] = (rand() * 2 - 1) * scale)));
    const d = amax / 127;
    view.setUint16(b * 34, half(d), true);
    for (let i = 0; i < 32; i++) view.setInt8(b * 34 + 2 + i, d === 0 ? 0 : Math.round(block[i]! / d));
  }
  return { name, dims, type: 'q8_0', data };
}

function onesTensor(name: string, dim: number): GgufTensor {
  return { name, dims: [dim], type: 'f32', data: new Uint8Array(new Float32Array(dim).fill(1).buffer) };
}

/**
 * A random-weight model of the llama architecture on a real vocabulary: the vocabulary file's
 * tokenizer entries are copied verbatim, the weights drawn from a seeded generator. It generates
 * nonsense at the speed of a real model of its shape, which is what tests and benchmarks need.
 */
export function encodeTestModel(vocabulary: Uint8Array, name: string, shape: TestModelShape): Uint8Array[] {
  const { layers, dim, seed, weights } = shape;
  if (!Number.isInteger(layers) || layers < 1 || layers > 64) throw new Error(`layers must be an integer from 1 to 64, not ${layers}`);
  if (!Number.isInteger(dim) || dim < 32 || dim > 8192 || dim % 32 !== 0) throw new Error(`dim must be a multiple of 32 from 32 to 8192, not ${dim}`);
  const entries = readGgufEntries(vocabulary).filter((e) => e.key.startsWith('tokenizer.'));
  const tokens = entries.find((e) => e.key === 'tokenizer.ggml.tokens')?.value;
  if (!Array.isArray(tokens)) throw new Error('the vocabulary file has no tokenizer.ggml.tokens');
  const vocab = tokens.length;
  const headDim = 32;
  const heads = dim / headDim;
  const ff = Math.ceil((dim * 8) / 3 / 32) * 32;
  const rand = random(seed);
  const metadata: GgufOut[] = [
    { key: 'general.architecture', type: 'string', value: 'llama' },
    { key: 'general.name', type: 'string', value: `wapii-test-${name}-${shapeTag(shape)}` },
    { key: 'general.file_type', type: 'u32', value: weights === 'q8_0' ? 7 : 1 }, // llama_ftype: MOSTLY_F16 = 1, MOSTLY_Q8_0 = 7
    { key: 'llama.context_length', type: 'u32', value: 4096 },
    { key: 'llama.embedding_length', type: 'u32', value: dim },
    { key: 'llama.block_count', type: 'u32', value: layers },
    { key: 'llama.feed_forward_length', type: 'u32', value: ff },
    { key: 'llama.attention.head_count', type: 'u32', value: heads },
    { key: 'llama.attention.head_count_kv', type: 'u32', value: heads },
    { key: 'llama.attention.layer_norm_rms_epsilon', type: 'f32', value: 1e-5 },
    { key: 'llama.rope.dimension_count', type: 'u32', value: headDim },
    { key: 'llama.vocab_size', type: 'u32', value: vocab },
    ...entries,
  ];
  const scale = 1 / Math.sqrt(dim);
  const matrix = weights === 'q8_0' ? q8Tensor : f16Tensor;
  // The output projection is tied to the embeddings (llama.cpp falls back to token_embd), halving the file.
  const tensors: GgufTensor[] = [matrix('token_embd.weight', [dim, vocab], 3.5 / Math.sqrt(dim), rand), onesTensor('output_norm.weight', dim)];
  for (let l = 0; l < layers; l++) {
    tensors.push(
      onesTensor(`blk.${l}.attn_norm.weight`, dim),
      matrix(`blk.${l}.attn_q.weight`, [dim, dim], scale, rand),
      matrix(`blk.${l}.attn_k.weight`, [dim, dim], scale, rand),
      matrix(`blk.${l}.attn_v.weight`, [dim, dim], scale, rand),
      matrix(`blk.${l}.attn_output.weight`, [dim, dim], scale, rand),
      onesTensor(`blk.${l}.ffn_norm.weight`, dim),
      matrix(`blk.${l}.ffn_gate.weight`, [dim, ff], scale, rand),
      matrix(`blk.${l}.ffn_up.weight`, [dim, ff], scale, rand),
      matrix(`blk.${l}.ffn_down.weight`, [ff, dim], 1 / Math.sqrt(ff), rand),
    );
  }
  return encodeGguf(metadata, tensors);
}

/** Writes a test model to `out` (through a temporary file, so no half-written model is ever loaded). */
export function writeTestModel(vocabulary: BundledVocabulary, out: string, shape: TestModelShape = DEFAULT_TEST_MODEL): void {
  const chunks = encodeTestModel(fs.readFileSync(bundledVocabulary(vocabulary)), vocabulary, shape);
  fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    for (const chunk of chunks) fs.writeSync(fd, chunk);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, out);
}

/** A test model cached by its parameters under node_modules/.cache/wapii/models. */
export function cachedTestModel(vocabulary: BundledVocabulary, shape: Partial<TestModelShape> = {}): string {
  const s = { ...DEFAULT_TEST_MODEL, ...shape };
  const file = path.join(cacheDir('models'), `${vocabulary}-${shapeTag(s)}.gguf`);
  if (!fs.existsSync(file)) writeTestModel(vocabulary, file, s);
  return file;
}
