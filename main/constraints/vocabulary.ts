/**
 * A model's vocabulary as the constraints see it: token id → the text it adds. Read from the
 * GGUF metadata (tokenizer.ggml.*), never by detokenising token by token, since byte-level
 * tokens may hold partial UTF-8 that only decodes together with its neighbours.
 */
export interface Vocabulary {
  /** `gpt2` (byte-level BPE) or `llama` (SentencePiece). */
  readonly model: string;
  /** The bytes each token contributes; empty for control tokens. */
  readonly bytes: readonly Uint8Array[];
  /** The text each token contributes, or null when its bytes are not complete UTF-8 (or it is a control token). */
  readonly text: readonly (string | null)[];
  /** Tokens that end generation. */
  readonly eos: readonly number[];
}

const GGUF_MAGIC = 0x46554747; // "GGUF" little-endian

type Value = number | bigint | boolean | string | Value[];

/** Reads the key/value metadata of a GGUF file (the tensors are never touched). */
export function readGgufMetadata(data: Uint8Array): Map<string, Value> {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  const u32 = (): number => ((at += 4), view.getUint32(at - 4, true));
  const u64 = (): bigint => ((at += 8), view.getBigUint64(at - 8, true));
  const decoder = new TextDecoder('utf-8');
  const str = (): string => {
    const length = Number(u64());
    const s = decoder.decode(data.subarray(at, at + length));
    at += length;
    return s;
  };
  const value = (type: number): Value => {
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
        const items: Value[] = new Array<Value>(count);
        for (let i = 0; i < count; i++) items[i] = value(itemType);
        return items;
      }
      case 10: return u64();
      case 11: return ((at += 8), view.getBigInt64(at - 8, true));
      case 12: return ((at += 8), view.getFloat64(at - 8, true));
      default: throw new Error(`not a GGUF file I can read: unknown value type ${type} at byte ${at}`);
    }
  };
  if (view.getUint32(0, true) !== GGUF_MAGIC) throw new Error('not a GGUF file (bad magic)');
  at = 4;
  const version = u32();
  if (version < 2) throw new Error(`GGUF version ${version} is too old`);
  u64(); // tensor count
  const kvCount = Number(u64());
  const metadata = new Map<string, Value>();
  for (let i = 0; i < kvCount; i++) {
    const key = str();
    metadata.set(key, value(u32()));
  }
  return metadata;
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

export function vocabularyFromGguf(data: Uint8Array): Vocabulary {
  const meta = readGgufMetadata(data);
  const model = String(meta.get('tokenizer.ggml.model') ?? '');
  const tokens = meta.get('tokenizer.ggml.tokens');
  if (!Array.isArray(tokens)) throw new Error('the GGUF file has no tokenizer.ggml.tokens');
  const types = (meta.get('tokenizer.ggml.token_type') as number[] | undefined) ?? [];
  const encoder = new TextEncoder();
  const strict = new TextDecoder('utf-8', { fatal: true });
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
  return { model, bytes, text, eos: [...new Set(eos)] };
}
