import { tokenBytes, type Vocabulary } from '../gguf/index.js';

/**
 * A token whose bytes are not whole UTF-8 text (see Vocabulary.text), read as UTF-8 that may
 * continue a character an earlier token began: `lead`, the continuation bytes it starts with;
 * `chars`, the whole characters after them; `tail`, the start of a character it leaves
 * unfinished (a well-formed prefix, which tokens after it must finish). Byte-level vocabularies
 * write a character they have no token for in such pieces: qwen2 has 1,448 of them, llama-spm
 * its 128 byte tokens 0x80-0xFF.
 */
export interface Piece {
  readonly id: number;
  readonly lead: Uint8Array;
  readonly chars: string;
  readonly tail: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** How many bytes the character that a lead byte begins takes (0: not a lead byte UTF-8 allows). */
export function sequenceLength(lead: number): number {
  return lead < 0x80 ? 1 : lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
}

/** The range the second byte of a character must be in after its lead byte (no overlong forms, no surrogates, nothing past U+10FFFF). */
function secondRange(lead: number): readonly [number, number] {
  return lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
}

/** True when `bytes` (at least one) can begin a character and do not finish it: a tail another token may finish. */
export function isUnfinished(bytes: Uint8Array): boolean {
  const length = sequenceLength(bytes[0]!);
  if (length < 2 || bytes.length >= length) return false;
  for (let i = 1; i < bytes.length; i++) {
    const [lo, hi] = i === 1 ? secondRange(bytes[0]!) : [0x80, 0xbf];
    if (bytes[i]! < lo || bytes[i]! > hi) return false;
  }
  return true;
}

/** The character of a whole sequence that `held` (an unfinished tail) and `rest` make, or undefined when it is not well-formed. */
export function finish(held: Uint8Array, rest: Uint8Array): string | undefined {
  const bytes = new Uint8Array(held.length + rest.length);
  bytes.set(held);
  bytes.set(rest, held.length);
  if (bytes.length !== sequenceLength(bytes[0]!) || !isUnfinished(bytes.subarray(0, bytes.length - 1)) || (bytes[bytes.length - 1]! & 0xc0) !== 0x80) return undefined;
  return STRICT.decode(bytes);
}

/**
 * The code points an unfinished tail can still become, as [lo, hi]: its bits so far followed by
 * any continuation bits, within the lengths' own ranges (an E0 tail is U+0800-U+0FFF, an ED one
 * stops before the surrogates). Each begins at a multiple of 64, and one wider than 4,096 at a
 * multiple of 4,096 (see someCodePoint).
 */
export function rangeOf(tail: Uint8Array): readonly [number, number] {
  const length = sequenceLength(tail[0]!);
  let cp = tail[0]! & (length === 2 ? 0x1f : length === 3 ? 0x0f : 0x07);
  for (let i = 1; i < tail.length; i++) cp = (cp << 6) | (tail[i]! & 0x3f);
  const span = 64 ** (length - tail.length);
  const [min, max] = length === 2 ? [0x80, 0x7ff] : length === 3 ? [0x800, 0xffff] : [0x10000, 0x10ffff];
  let hi = Math.min(cp * span + span - 1, max);
  if (length === 3 && hi >= 0xd800 && cp * span <= 0xdfff) hi = 0xd7ff;
  return [Math.max(cp * span, min), hi];
}

/**
 * True when `take` accepts a code point of [lo, hi] (surrogates left out), tried only at the
 * range's multiples of 64 (of 4,096 in a range wider than that): at most 64 tries, where trying
 * every code point of a class that refuses them (a header value's past U+00FF, an identifier's)
 * took up to 80 ms over a vocabulary's tails, inside a mask. A code point found is found again
 * in each narrower range that holds it (each starts at such a multiple), so a tail allowed can
 * always be finished; a class that takes some characters of a range of 64 but not its first
 * has that range's tails refused (no class is like that: each takes all of a range or none).
 */
export function someCodePoint(lo: number, hi: number, take: (c: string) => boolean): boolean {
  const step = hi - lo >= 4096 ? 4096 : 64;
  for (let cp = lo; cp <= hi; cp += step) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    if (take(String.fromCodePoint(cp))) return true;
  }
  return false;
}

/** Every partial token of `ids` as a Piece, or left out when its bytes can be no part of UTF-8 text (and control tokens, which have none). */
export function piecesOf(vocabulary: Vocabulary, ids: readonly number[]): Piece[] {
  const pieces: Piece[] = [];
  for (const id of ids) {
    const piece = pieceOf(id, tokenBytes(vocabulary, id));
    if (piece) pieces.push(piece);
  }
  return pieces;
}

const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function pieceOf(id: number, bytes: Uint8Array): Piece | undefined {
  if (bytes.length === 0) return undefined;
  let lead = 0;
  while (lead < bytes.length && (bytes[lead]! & 0xc0) === 0x80) lead++;
  // A character takes at most three continuation bytes after its lead byte.
  if (lead > 3) return undefined;
  // The last character's start: its bytes to the end are the tail when they do not finish it.
  let last = bytes.length;
  for (let at = lead; at < bytes.length; at += Math.max(1, sequenceLength(bytes[at]!))) last = at;
  let end = bytes.length;
  if (last < bytes.length && sequenceLength(bytes[last]!) > bytes.length - last) {
    if (!isUnfinished(bytes.subarray(last))) return undefined;
    end = last;
  }
  // Whole text (not a partial token).
  if (lead === 0 && end === bytes.length) return undefined;
  let chars: string;
  try {
    chars = STRICT.decode(bytes.subarray(lead, end));
  } catch {
    return undefined;
  }
  return { id, lead: lead > 0 ? bytes.slice(0, lead) : EMPTY, chars, tail: end < bytes.length ? bytes.slice(end) : EMPTY };
}
