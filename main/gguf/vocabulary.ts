import { readGgufMetadata } from './read.js';

/**
 * A model's vocabulary as the constraints see it: token id → the text it adds. Read from the
 * GGUF metadata (tokenizer.ggml.*), never by detokenising token by token, since byte-level
 * tokens may hold partial UTF-8 that only decodes together with its neighbours.
 */
export interface Vocabulary {
  /** `gpt2` (byte-level BPE) or `llama` (SentencePiece). */
  readonly model: string;
  /** The bytes each token contributes (see tokenBytes); none for control tokens. */
  readonly bytes: TokenBytes;
  /** The text each token contributes, or null when its bytes are not complete UTF-8 (or it is a control token). */
  readonly text: readonly (string | null)[];
  /** Tokens that end generation. */
  readonly eos: readonly number[];
}

/**
 * Every token's bytes in one buffer, token `id`'s at `data[start[id] .. start[id + 1])`: an array
 * per token made some 450,000 heap objects of a 150,000-token vocabulary, which every full garbage
 * collection traced (and which paused a token mask that it landed in).
 */
export interface TokenBytes {
  readonly data: Uint8Array;
  readonly start: Uint32Array;
}

/** The bytes a token contributes (a view, not a copy); empty for control tokens and unknown ids. */
export function tokenBytes(vocabulary: Vocabulary, id: number): Uint8Array {
  const { data, start } = vocabulary.bytes;
  return id >= 0 && id + 1 < start.length ? data.subarray(start[id]!, start[id + 1]!) : data.subarray(0, 0);
}

function packBytes(parts: readonly Uint8Array[]): TokenBytes {
  const start = new Uint32Array(parts.length + 1);
  parts.forEach((b, id) => (start[id + 1] = start[id]! + b.length));
  const data = new Uint8Array(start[parts.length]!);
  parts.forEach((b, id) => data.set(b, start[id]!));
  return { data, start };
}

/** GPT-2's byte ↔ printable-character table: byte-level BPE tokens spell bytes with these characters. */
function gpt2ByteDecoder(): Map<string, number> {
  const printable: number[] = [];
  for (let b = 33; b <= 126; b++) printable.push(b);
  for (let b = 161; b <= 172; b++) printable.push(b);
  for (let b = 174; b <= 255; b++) printable.push(b);
  const table = new Map<string, number>();
  let extra = 0;
  for (let b = 0; b < 256; b++) {
    if (printable.includes(b)) table.set(String.fromCharCode(b), b);
    else table.set(String.fromCharCode(256 + extra++), b);
  }
  return table;
}

const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

/** The vocabulary of a GGUF file's bytes, or of a file on disk (reading only its header). */
export function vocabularyFromGguf(source: Uint8Array | string): Vocabulary {
  const meta = readGgufMetadata(source);
  const model = String(meta.get('tokenizer.ggml.model') ?? '');
  const tokens = meta.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens)) throw new Error('the GGUF file has no tokenizer.ggml.tokens');
  const types = (meta.get('tokenizer.ggml.token_type') as number[] | undefined) ?? [];
  const encoder = new TextEncoder();
  // ignoreBOM keeps a leading U+FEFF: qwen2 has tokens such as "\uFEFF//", and a decoder that
  // strips it would let the constraint see "//" where the model writes a BOM first.
  const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  const byteDecoder = model === 'gpt2' ? gpt2ByteDecoder() : undefined;
  const bytes: Uint8Array[] = [];
  const text: (string | null)[] = [];
  tokens.forEach((token, id) => {
    const piece = String(token);
    const type = types[id] ?? TOKEN_TYPE.normal;
    let b: Uint8Array;
    if (type === TOKEN_TYPE.control || type === TOKEN_TYPE.unknown || type === TOKEN_TYPE.unused) b = new Uint8Array(0);
    else if (type === TOKEN_TYPE.byte || /^<0x[0-9A-Fa-f]{2}>$/.test(piece)) b = Uint8Array.of(parseInt(piece.slice(3, 5), 16));
    else if (byteDecoder && type !== TOKEN_TYPE.userDefined) b = Uint8Array.from([...piece].map((ch) => byteDecoder.get(ch) ?? 63));
    else if (model === 'llama') b = encoder.encode(piece.replace(/\u2581/g, ' '));
    else b = encoder.encode(piece);
    bytes.push(b);
    let decoded: string | null = null;
    if (b.length > 0) {
      try {
        decoded = strict.decode(b);
      } catch {
        decoded = null;
      }
    }
    text.push(decoded);
  });
  const eos = [meta.get('tokenizer.ggml.eos_token_id'), meta.get('tokenizer.ggml.eot_token_id')].filter((v): v is number => typeof v === 'number');
  return { model, bytes: packBytes(bytes), text, eos: [...new Set(eos)] };
}

/**
 * The vocabulary as the runtime that samples from it sees it. llama.cpp turns some tokens into
 * control tokens by their text (qwen2's "</s>", DeepSeek's FIM markers, ...) whatever their type
 * in the file says; such a token writes no text, so the constraint must not count it as text.
 */
export function reconcileVocabulary(vocabulary: Vocabulary, runtime: { isControl(id: number): boolean; isEndOfGeneration(id: number): boolean }): Vocabulary {
  const bytes = vocabulary.text.map((_, id) => tokenBytes(vocabulary, id));
  const text = [...vocabulary.text];
  const eos = new Set(vocabulary.eos);
  for (let id = 0; id < text.length; id++) {
    if (runtime.isEndOfGeneration(id)) eos.add(id);
    if (bytes[id]!.length > 0 && runtime.isControl(id)) {
      bytes[id] = new Uint8Array(0);
      text[id] = null;
    }
  }
  return { model: vocabulary.model, bytes: packBytes(bytes), text, eos: [...eos] };
}

/**
 * The text a token sequence writes: its bytes, concatenated and decoded. This, not the runtime's
 * detokenizer, is what a run scores, because it is exactly what the constraint saw: detokenizers
 * may tidy text (llama.cpp removes the space before punctuation for some tokenizers, and a
 * SentencePiece model's leading space), which would change code after it was checked.
 */
export function decodeTokens(vocabulary: Vocabulary, tokens: readonly number[]): string {
  let length = 0;
  for (const t of tokens) length += tokenBytes(vocabulary, t).length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const t of tokens) {
    const b = tokenBytes(vocabulary, t);
    out.set(b, at);
    at += b.length;
  }
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(out);
}
