import { createHash } from 'node:crypto';
import { allClasses, type AsciiSet, type CharClass, type WsFrame } from './frames.js';
import type { ConstraintMatcher, StateKey } from './matcher.js';
import { StateTable } from './stateTable.js';
import { finish, isUnfinished, piecesOf, rangeOf, sequenceLength, someCodePoint, type Piece } from './utf8.js';
import type { Vocabulary } from '../gguf/index.js';

/**
 * Characters as small integers: ASCII as its code, every other character (a code point, as the
 * tries split texts) numbered on first sight. Shared by every vocabulary, so an automaton's
 * transitions mean the same whichever vocabulary walked them.
 */
const charIds = new Map<string, number>();
const charTexts: string[] = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
function charId(ch: string): number {
  const code = ch.charCodeAt(0);
  if (code < 128 && ch.length === 1) return code;
  let id = charIds.get(ch);
  if (id === undefined) {
    id = charTexts.length;
    charTexts.push(ch);
    charIds.set(ch, id);
  }
  return id;
}

/**
 * A character trie over token texts, flat: typed arrays, nodes numbered depth first. A
 * vocabulary's tries are over a million nodes; as objects they were a heap whose full garbage
 * collection took 160 ms and more, and landed inside a mask as its worst case. A node is a record
 * of NODE words in `nodes` at its offset (the root's is 0), four to a cache line; its fields are
 * at the offsets below. The tokens of node n's subtree are `ids[nodes[n + LO] .. nodes[n + HI])`,
 * those ending at n first (up to `OWN`); its edges are pairs (character id, child's offset) in
 * `edges`, sorted by character (ASCII first), from its `EDGES` to the next record's (a last
 * record past the nodes closes the last node's). A node's depth is not kept: a walk counts it.
 * Half the 32 bytes a record took with its depth and edge bounds kept: a quarter less of a
 * prepared index to read back, and fewer cache lines per walk.
 */
interface Trie {
  readonly ids: Int32Array;
  readonly nodes: Int32Array;
  readonly edges: Int32Array;
}
const LO = 0;
const OWN = 1;
const HI = 2;
const EDGES = 3;
const NODE = 4;

/**
 * A trie over (text as character ids, token) pairs, built from the entries sorted by text: in
 * that order each entry's nodes below its common prefix with the one before are the next nodes
 * depth first, so the trie is numbered without a node object or a map per node (a first mask that
 * scanned a path parameter built hundreds of small tries, and most of their time was those maps).
 * A stable sort keeps the ids of one text in the entries' order. Two passes over the sorted
 * entries: the first counts each node's children (a node's edges are placed when it is
 * numbered), the second writes the records.
 */
function buildTrie(entries: Entries): Trie {
  const { source, from, to } = entries;
  const order = Array.from(entries.ids, (_, i) => i).sort((a, b) => compareTexts(source, from[a]!, to[a]!, from[b]!, to[b]!));
  const length = (k: number): number => to[order[k]!]! - from[order[k]!]!;
  // Each sorted entry's common prefix with the one before it.
  const shared = new Int32Array(order.length);
  for (let k = 1; k < order.length; k++) {
    const [a, b] = [from[order[k - 1]!]!, from[order[k]!]!];
    const most = Math.min(length(k - 1), length(k));
    let n = 0;
    while (n < most && source[a + n] === source[b + n]) n++;
    shared[k] = n;
  }
  // Pass 1: nodes in depth-first order (the root is 0), and how many children each has.
  const children: number[] = [0];
  const path = [0];
  for (let k = 0; k < order.length; k++) {
    path.length = shared[k]! + 1;
    for (let d = shared[k]!; d < length(k); d++) {
      children[path[path.length - 1]!]!++;
      path.push(children.length);
      children.push(0);
    }
  }
  const count = children.length;
  const ids = new Int32Array(order.length);
  const nodes = new Int32Array((count + 1) * NODE);
  const edges = new Int32Array((count - 1) * 2);
  // Pass 2: each node's record; its edges are placed when it is numbered, filled as its children come.
  let nextEdge = 0;
  const filled = new Int32Array(count);
  const open = (node: number, idsSoFar: number): void => {
    const n = node * NODE;
    nodes[n + LO] = nodes[n + OWN] = idsSoFar;
    nodes[n + EDGES] = nextEdge;
    nextEdge += children[node]! * 2;
  };
  const close = (node: number, idsSoFar: number): void => {
    nodes[node * NODE + HI] = idsSoFar;
  };
  open(0, 0);
  const stack = [0];
  let next = 1;
  for (let k = 0; k < order.length; k++) {
    const at0 = from[order[k]!]!;
    while (stack.length > shared[k]! + 1) close(stack.pop()!, k);
    for (let d = shared[k]!; d < length(k); d++) {
      const parent = stack[stack.length - 1]!;
      const p = parent * NODE;
      const child = next++;
      const ch = source[at0 + d]!;
      const at = nodes[p + EDGES]! + 2 * filled[parent]!++;
      edges[at] = ch;
      edges[at + 1] = child * NODE;
      open(child, k);
      stack.push(child);
    }
    ids[k] = entries.ids[order[k]!]!;
    nodes[stack[stack.length - 1]! * NODE + OWN] = k + 1;
  }
  while (stack.length > 0) close(stack.pop()!, order.length);
  nodes[count * NODE + EDGES] = nextEdge;
  return { ids, nodes, edges };
}

/**
 * A trie's entries: entry k is token `ids[k]`, its text `source[from[k] .. to[k])`. Offsets into
 * one array, not a view per entry: a first mask's splits made tens of thousands of views, enough
 * young objects to set off collections inside it.
 */
interface Entries {
  readonly source: Int32Array;
  readonly from: ArrayLike<number>;
  readonly to: ArrayLike<number>;
  readonly ids: ArrayLike<number>;
}

/** Texts as character ids in the trie's order: by character id, a prefix before what extends it. */
function compareTexts(source: Int32Array, a: number, aEnd: number, b: number, bEnd: number): number {
  const n = Math.min(aEnd - a, bEnd - b);
  for (let i = 0; i < n; i++) if (source[a + i] !== source[b + i]) return source[a + i]! - source[b + i]!;
  return aEnd - a - (bEnd - b);
}

/** The child of node n on a character (by id), or -1: a binary search of its edges, which are sorted. */
function childOf(trie: Trie, n: number, ch: number): number {
  const { nodes, edges } = trie;
  let lo = nodes[n + EDGES]! >> 1;
  let hi = nodes[n + NODE + EDGES]! >> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = edges[2 * mid]!;
    if (c < ch) lo = mid + 1;
    else if (c > ch) hi = mid;
    else return edges[2 * mid + 1]!;
  }
  return -1;
}

/** What the mask needs per character class (see CharClass) in one TextTrie. */
interface ClassTable {
  /** Per character id: 1 when the class exits on it. */
  readonly exits: Uint8Array;
  /** Per token, in the trie's order: the position of its last exit character, -1 when it has none. */
  readonly last: Int16Array;
  /** How the whole trie's tokens split (see Split), with its `inside` as a bitmask to OR in at once. */
  readonly root: Split;
  readonly rootInside: Uint32Array;
  /** Per trie node below the root scanned so far. */
  readonly splits: Map<number, Split>;
}

/**
 * A subtree's tokens under a class: those with no exit below the node (`inside`), and the
 * others (`first .. count` of them), kept in tries made on first use: `exiting`, their texts from
 * the first exit below the node on (for a stable state, which the characters before it leave
 * as it was), and `rests`, their texts from the node on (for any other state).
 */
interface Split {
  readonly node: number;
  readonly depth: number;
  readonly inside: Int32Array;
  readonly others: number;
  exiting: Trie | undefined;
  rests: Trie | undefined;
}

/** Each token's text in a trie's order, as character ids: token i's is `text[start[i] .. start[i + 1])`. */
interface TokenTexts {
  readonly start: Int32Array;
  readonly text: Int32Array;
}

/**
 * A trie with what the mask needs beside it: its tokens' texts (only splits below the root and
 * class tables built from scratch read them, so a restored index reads them on first use) and
 * the tables of every character class.
 */
interface TextTrie {
  readonly trie: Trie;
  texts(): TokenTexts;
  readonly classes: ClassTables;
  /** Reads one piece not read yet, its texts first, false when none is left (restored indexes: see readAhead). */
  readAhead?(): boolean;
}

/**
 * Every character class's tables in a TextTrie, in allClasses' order: a Map when the index was
 * built; read from the file on first use when it was restored (see restoreTokenIndex).
 */
interface ClassTables {
  get(key: string): ClassTable | undefined;
  entries(): IterableIterator<[string, ClassTable]>;
}

export interface TokenIndex {
  readonly vocabulary: Vocabulary;
  /** Every token that is text. */
  readonly all: TextTrie;
  /**
   * The tokens that start with whitespace and go on with something else, by what follows their
   * leading whitespace: a state that whitespace leaves as it was (between a key and its colon,
   * before a value, ...) walks these rests once, instead of once under each of the hundreds of
   * whitespace runs the vocabulary spells. `wsOnly` are the tokens of whitespace alone.
   */
  readonly wsRests: TextTrie;
  readonly wsOnly: Int32Array;
  /** Tokens that are neither text nor end-of-generation: partial UTF-8 bytes, control tokens. */
  readonly partial: readonly number[];
  readonly words: number;
}

/** A vocabulary's index, kept on the vocabulary object (a hidden property; see CompiledSpec.automaton). */
const INDEX = Symbol('token index');
type Indexed = Vocabulary & { [INDEX]?: TokenIndex };
/** The whitespace the matcher skips (see isWs in frames.ts), as character ids. */
const WHITESPACE = [32, 9, 10, 13];
/** Where a state's first characters are put when they are not a frame's own set (see sharedAscii). */
const asciiScratch: AsciiSet = new Uint32Array(4);
/** Every ASCII character: a state whose frames do not say what may follow. */
const ALL_ASCII: AsciiSet = new Uint32Array([-1, -1, -1, -1]);
const isWhitespace = (ch: number): boolean => ch === 32 || ch === 9 || ch === 10 || ch === 13;

/**
 * The flat token tries of a vocabulary and every class's tables, built once per vocabulary (or
 * restored from a cache: see restoreTokenIndex). The texts go as character ids into one array
 * that both tries read, with no array per token, and every class's last exits are found in one
 * pass over the texts: the same arrays as before, in half the time.
 */
export function tokenIndex(vocabulary: Vocabulary): TokenIndex {
  let index = (vocabulary as Indexed)[INDEX];
  if (index) return index;
  const partial: number[] = [];
  const wsOnly: number[] = [];
  const eos = new Set(vocabulary.eos);
  const texts = vocabulary.text;
  let units = 0;
  for (const text of texts) units += text?.length ?? 0;
  // Every text's characters side by side (a code point may take two units: units bound the length).
  const source = new Int32Array(units);
  const all = { source, from: new Int32Array(texts.length), to: new Int32Array(texts.length), ids: new Int32Array(texts.length), count: 0 };
  const wsRests = { source, from: new Int32Array(texts.length), to: new Int32Array(texts.length), ids: new Int32Array(texts.length), count: 0 };
  let length = 0;
  for (let id = 0; id < texts.length; id++) {
    if (eos.has(id)) continue;
    const text = texts[id];
    if (text === null || text === undefined || text === '') {
      partial.push(id);
      continue;
    }
    const begin = length;
    length = writeCharIds(text, source, length);
    all.from[all.count] = begin;
    all.to[all.count] = length;
    all.ids[all.count++] = id;
    const lead = afterWhitespace(source, begin, length);
    if (lead === length) wsOnly.push(id);
    else if (lead > begin) {
      wsRests.from[wsRests.count] = lead;
      wsRests.to[wsRests.count] = length;
      wsRests.ids[wsRests.count++] = id;
    }
  }
  const words = Math.ceil(texts.length / 32);
  // Every class's tables now, not on first use (which cost up to a second inside one mask).
  const classes = allClasses();
  const exits = classes.map((cls) => exitTable(cls));
  index = { vocabulary, all: textTrie(all, classes, exits, words), wsRests: textTrie(wsRests, classes, exits, words), wsOnly: Int32Array.from(wsOnly), partial, words };
  Object.defineProperty(vocabulary, INDEX, { value: index });
  return index;
}

/** Where a text's leading whitespace (as character ids, `chars[at .. end)`) ends: a whitespace rest starts there (see TokenIndex.wsRests). */
function afterWhitespace(chars: Int32Array, at: number, end: number): number {
  while (at < end && isWhitespace(chars[at]!)) at++;
  return at;
}

/** Writes a text's characters (code points) as ids into `out` from `at`; returns where they end. */
function writeCharIds(text: string, out: Int32Array, at: number): number {
  for (let u = 0; u < text.length; u++) {
    const code = text.charCodeAt(u);
    if (code < 128) out[at++] = code;
    else if (code >= 0xd800 && code < 0xdc00 && u + 1 < text.length && (text.charCodeAt(u + 1) & 0xfc00) === 0xdc00) out[at++] = charId(text.slice(u, ++u + 1));
    else out[at++] = bmpCharId(code);
  }
  return at;
}

/**
 * A trie's texts made again from the vocabulary (for a restored index whose file can no longer
 * be read): each token's text in the trie's order, from its first character that is not
 * whitespace when `restsOnly` (see TokenIndex.wsRests).
 */
function textsFromVocabulary(vocabulary: Vocabulary, ids: Int32Array, restsOnly: boolean): TokenTexts {
  let units = 0;
  for (const id of ids) units += vocabulary.text[id]!.length;
  const start = new Int32Array(ids.length + 1);
  const text = new Int32Array(units);
  let length = 0;
  for (let i = 0; i < ids.length; i++) {
    const from = length;
    length = writeCharIds(vocabulary.text[ids[i]!]!, text, length);
    const begin = restsOnly ? afterWhitespace(text, from, length) : from;
    // The leading whitespace written over by what follows it.
    if (begin > from) {
      text.copyWithin(from, begin, length);
      length -= begin - from;
    }
    start[i + 1] = length;
  }
  return { start, text: text.slice(0, length) };
}

/** Ids of BMP characters beyond ASCII (0: not numbered yet), mirroring charIds: a map lookup per character was a tenth of the preparation. */
const bmpIds = new Int32Array(0x10000);
function bmpCharId(code: number): number {
  return bmpIds[code] || (bmpIds[code] = charId(String.fromCharCode(code)));
}

/**
 * A class's exit table over every character numbered so far (1 where it exits), kept on the
 * class and extended when characters were numbered since: a class's exits never change.
 */
const EXITS = Symbol('exit table');
function exitTable(cls: CharClass): Uint8Array {
  const owner = cls as CharClass & { [EXITS]?: Uint8Array };
  const known = owner[EXITS];
  if (known && known.length === charTexts.length) return known;
  const table = new Uint8Array(charTexts.length);
  if (known) table.set(known);
  for (let ch = known?.length ?? 0; ch < charTexts.length; ch++) table[ch] = cls.exits(charTexts[ch]!) ? 1 : 0;
  Object.defineProperty(owner, EXITS, { value: table, configurable: true });
  return table;
}

function textTrie(entries: { readonly source: Int32Array; readonly from: Int32Array; readonly to: Int32Array; readonly ids: Int32Array; readonly count: number }, classes: readonly CharClass[], exits: readonly Uint8Array[], words: number): TextTrie {
  const count = entries.count;
  const used = { source: entries.source, from: entries.from.subarray(0, count), to: entries.to.subarray(0, count), ids: entries.ids.subarray(0, count) };
  const trie = buildTrie(used);
  // Each token's text in the trie's order.
  const entryOf = new Int32Array(words * 32);
  for (let k = 0; k < count; k++) entryOf[used.ids[k]!] = k;
  const start = new Int32Array(count + 1);
  for (let i = 0; i < count; i++) {
    const k = entryOf[trie.ids[i]!]!;
    start[i + 1] = start[i]! + used.to[k]! - used.from[k]!;
  }
  const text = new Int32Array(start[count]!);
  for (let i = 0; i < count; i++) {
    const k = entryOf[trie.ids[i]!]!;
    // A copy by hand: a view per token was 150,000 young objects.
    for (let from = used.from[k]!, to = used.to[k]!, at = start[i]!; from < to; ) text[at++] = used.source[from++]!;
  }
  const tables = new Map<string, ClassTable>();
  const texts = { start, text };
  const tt: TextTrie = { trie, texts: () => texts, classes: tables };
  const lasts = lastExits(tt, exits);
  classes.forEach((cls, c) => tables.set(cls.key, classTable(tt, cls, exits[c]!, lasts[c]!, words)));
  return tt;
}

/**
 * Per class, per token in the trie's order: the position of its last exit character (-1 for
 * none). One pass over the texts for up to 31 classes at once (a bit per class per character),
 * each text read from its end until every class has its answer.
 */
function lastExits(tt: TextTrie, exits: readonly Uint8Array[]): Int16Array[] {
  const { start, text } = tt.texts();
  const tokens = start.length - 1;
  const lasts = exits.map(() => new Int16Array(tokens).fill(-1));
  for (let group = 0; group < exits.length; group += 31) {
    const members = exits.slice(group, group + 31);
    const bits = new Int32Array(members[0]?.length ?? 0);
    members.forEach((table, c) => {
      for (let ch = 0; ch < table.length; ch++) if (table[ch]) bits[ch]! |= 1 << c;
    });
    const every = members.length === 31 ? 0x7fffffff : (1 << members.length) - 1;
    for (let i = 0; i < tokens; i++) {
      const first = start[i]!;
      let open = every;
      for (let k = start[i + 1]! - 1; k >= first && open !== 0; k--) {
        let found = bits[text[k]!]! & open;
        if (found === 0) continue;
        open &= ~found;
        const at = Math.min(k - first, 0x7fff);
        while (found !== 0) {
          const c = 31 - Math.clz32(found);
          found &= ~(1 << c);
          lasts[group + c]![i] = at;
        }
      }
    }
  }
  return lasts;
}

function classTable(tt: TextTrie, cls: CharClass, exits: Uint8Array, last: Int16Array, words: number): ClassTable {
  const { ids } = tt.trie;
  // The root's split: its inside tokens (no exit at all) straight into their bitmask.
  const rootInside = new Uint32Array(words);
  let inside = 0;
  for (let i = 0; i < ids.length; i++) {
    if (last[i]! >= 0) continue;
    setBit(rootInside, ids[i]!);
    inside++;
  }
  const root: Split = { node: 0, depth: 0, inside: new Int32Array(0), others: ids.length - inside, exiting: undefined, rests: undefined };
  const table: ClassTable = { exits, last, root, rootInside, splits: new Map() };
  // The whole trie's others now (their tries took up to 30 ms inside a first mask): by exits for
  // stable classes and those stable in context (identifiers), by rests where a scan walks them.
  if (cls.stable || cls.probe !== undefined) exitingOf(tt, table, table.root);
  if (!cls.stable && !declines(table.root.others, tt.trie, 0)) restsOf(tt, table, table.root);
  return table;
}

/** How the tokens below trie node `n`, `depth` characters deep, split under a class (see Split); the tries come on first use. */
function splitOf(tt: TextTrie, last: Int16Array, n: number, depth: number): Split {
  const { ids, nodes } = tt.trie;
  const inside: number[] = [];
  for (let i = nodes[n + LO]!; i < nodes[n + HI]!; i++) if (last[i]! < depth) inside.push(ids[i]!);
  return { node: n, depth, inside: Int32Array.from(inside), others: nodes[n + HI]! - nodes[n + LO]! - inside.length, exiting: undefined, rests: undefined };
}

/** The others of a split by their texts from their first exit below the node on. */
function exitingOf(tt: TextTrie, table: ClassTable, split: Split): Trie {
  if (split.exiting) return split.exiting;
  const { trie } = tt;
  const { start, text } = tt.texts();
  const { node: n, depth: d } = split;
  const entries = { source: text, from: [] as number[], to: [] as number[], ids: [] as number[] };
  for (let i = trie.nodes[n + LO]!; i < trie.nodes[n + HI]!; i++) {
    let exit = start[i]! + d;
    const end = start[i + 1]!;
    while (exit < end && !table.exits[text[exit]!]) exit++;
    if (exit < end) {
      entries.from.push(exit);
      entries.to.push(end);
      entries.ids.push(trie.ids[i]!);
    }
  }
  return (split.exiting = buildTrie(entries));
}

/** The others of a split by their texts from the node on. */
function restsOf(tt: TextTrie, table: ClassTable, split: Split): Trie {
  if (split.rests) return split.rests;
  const { trie } = tt;
  const { start, text } = tt.texts();
  const { node: n, depth: d } = split;
  const entries = { source: text, from: [] as number[], to: [] as number[], ids: [] as number[] };
  for (let i = trie.nodes[n + LO]!; i < trie.nodes[n + HI]!; i++) {
    if (table.last[i]! < d) continue;
    entries.from.push(start[i]! + d);
    entries.to.push(start[i + 1]!);
    entries.ids.push(trie.ids[i]!);
  }
  return (split.rests = buildTrie(entries));
}

function setBit(mask: Uint32Array, id: number): void {
  mask[id >>> 5]! |= 1 << (id & 31);
}
/** Allows the tokens that end at trie node n. */
function allowOwn(trie: Trie, n: number, mask: Uint32Array): void {
  const { ids, nodes } = trie;
  for (let i = nodes[n + LO]!, end = nodes[n + OWN]!; i < end; i++) setBit(mask, ids[i]!);
}
export const hasBit = (mask: Uint32Array, id: number): boolean => (mask[id >>> 5]! & (1 << (id & 31))) !== 0;

/**
 * A matcher state met by the mask walk, kept with its transitions: a lazily built automaton over
 * characters. A fresh state's mask walks the trie from states that earlier walks have mostly
 * met already (the state after `/pe` was a step of the walk from `/`), and then a child costs
 * an array read instead of a matcher copy and a character step.
 */
interface Known {
  /** Its row in the automaton's ASCII transitions. */
  readonly row: number;
  readonly matcher: ConstraintMatcher;
  readonly key: StateKey;
  readonly open: CharClass | undefined;
  /**
   * Where a character outside `exits` leads (1 + its index): back to this state in stable string
   * contents (see ConstraintMatcher.loopClass), to a string's contents after its backslash (see
   * ConstraintMatcher.jump).
   */
  readonly jump: { readonly exits: (c: string) => boolean; readonly to: number } | undefined;
  readonly asciiOnly: boolean;
  /**
   * The ASCII characters it may take (see ConstraintMatcher.nextAscii; ALL when it does not say),
   * asked on its first step: a character outside is refused without a copy and a step, and
   * written into its row then (not all 128 at once on its first step: most are never asked).
   */
  firsts: AsciiSet | undefined;
  /** The texts that are its only way on (see Literals), null for none; asked on its first walk. */
  literals: Literals | null | undefined;
  /** The states after each whole literal (by its index), made on first use. */
  literalEnds: (Known | undefined)[] | undefined;
  /** Transitions on characters beyond ASCII, by character id, made on first use. */
  other: Map<number, number> | undefined;
  /** For a class stable only in context (see probeStable), the answer once asked. */
  stable: boolean | undefined;
  /** True when every whitespace character leads back to this state (see TokenIndex.wsRests). */
  wsLoop: boolean | undefined;
  /** Inside whitespace between tokens: the run, and the state below it (see ConstraintMatcher.whitespace, walkUnder). */
  readonly ws: { readonly frame: WsFrame; readonly under: Known } | undefined;
  /** Whether an unfinished character may follow, by the range it can still become (see TokenConstraint.takesTail). */
  tails: Map<number, boolean> | undefined;
}

/**
 * A state's literals (see ConstraintMatcher.literals): their texts, as character ids too, and
 * the indexes of them all (a walk's first group). One object per distinct list in an automaton
 * (see Automaton.literals), shared by the states that have it.
 */
interface Literals {
  readonly texts: readonly string[];
  readonly chars: readonly Int32Array[];
  readonly all: readonly number[];
  /** True when one starts with whitespace (see walkUnder). */
  readonly wsFirst: boolean;
}
function literalsOf(matcher: ConstraintMatcher, shared: Map<string, Literals>): Literals | null {
  const texts = matcher.literals();
  if (!texts) return null;
  const key = texts.join('\0');
  let literals = shared.get(key);
  if (!literals) {
    const chars = texts.map((text) => {
      const ids: number[] = [];
      for (const ch of text) ids.push(charId(ch));
      return Int32Array.from(ids);
    });
    shared.set(key, (literals = { texts, chars, all: texts.map((_, i) => i), wsFirst: chars.some((c) => c.length > 0 && isWhitespace(c[0]!)) }));
  }
  return literals;
}

/** Masks memoised per constraint (19 KB each on qwen2), the least recently used given up first. */
const MAX_MASKS = 1024;
/** Masks whose memory is made ready ahead of need (see TokenConstraint.readyMasks): more than most generations compute. */
const MASKS_AHEAD = 256;
/**
 * States an automaton holds before it is dropped and built again (each has a 512-byte row), as
 * it is made; tests lower it to make drops frequent.
 */
export const automatonLimits = { max: 40_000 };

/**
 * One automaton per compiled language (a spec and the names values may reference): state keys
 * mean the same across its matchers, and the characters' transitions do not depend on the
 * vocabulary, so every TokenConstraint of a language (one per slot of a run) shares it (kept as
 * CompiledSpec.automaton).
 * `ascii` holds 128 transitions per state (0 not tried yet, -1 no way on, else 1 + the index
 * of the next state) in one array, not a typed array per state: that was an allocation outside
 * the heap for every state met.
 */
export interface Automaton {
  readonly max: number;
  /** The index (+1) in `states` of each state, by its key. */
  readonly known: StateTable;
  /**
   * Its states, the first `size` of it, made at full length (see emptyAutomaton): pushing grew it
   * by copies of up to 400 KB inside first-time masks, each a hundred page faults on fresh memory.
   */
  states: Known[];
  size: number;
  ascii: Int32Array;
  /**
   * The distinct literal lists and ASCII sets its states have, each kept once: one per state
   * was 47,000 small typed arrays over the token bench, each with its buffer, for a full
   * collection to trace and move.
   */
  literals: Map<string, Literals>;
  /** By a hash of their four words (see sharedAscii). */
  asciiSets: Map<number, AsciiSet[]>;
}
/** A language's automaton, made by its first TokenConstraint and kept in the language's own field (see CompiledSpec.automaton, typed unknown there). */
function automatonOf(language: ConstraintMatcher['language']): Automaton {
  return (language.automaton ??= emptyAutomaton()) as Automaton;
}
/**
 * Sized for every state at once, and for the walk that passes the limit (the drop comes between
 * walks): growing copied the table, 20 MB inside a mask.
 */
const WALK_SLACK = 4096;
/**
 * Bytes of automaton tables this process still writes through when it makes them. A fresh
 * page costs a fault on its first write, one per 8 new states, which landed inside first-time
 * masks (about a tenth of their time, in a harness of the masks alone); written when the
 * constraint is made, they are paid outside any mask. Bounded, for a process that compiles many
 * languages: past it, tables are left to fault as they fill.
 */
let prefaultBudget = 256 << 20;
/** Writes a word of every 4 KB page of fresh memory, so that its page faults come now, not in a mask. */
function writeThrough(array: Int32Array | Uint32Array): void {
  for (let at = 0; at < array.length; at += 1024) array[at] = 0;
}
function emptyAutomaton(max = automatonLimits.max): Automaton {
  const ascii = new Int32Array(128 * (max + WALK_SLACK));
  const known = new StateTable(max + WALK_SLACK);
  if (ascii.byteLength + known.byteLength <= prefaultBudget) {
    prefaultBudget -= ascii.byteLength + known.byteLength;
    writeThrough(ascii);
    known.touch();
  }
  return { max, known, states: new Array<Known>(max + WALK_SLACK), size: 0, ascii, literals: new Map(), asciiSets: new Map() };
}

/**
 * A vocabulary's partial tokens (see Piece) as the masks take them: those with no leading
 * continuation bytes grouped by their whole characters (`groups`: qwen2's 1,255 in 71), which a
 * mask walks once per group; those that go on with a character begun (`leads`).
 */
interface PieceIndex {
  readonly byId: ReadonlyMap<number, Piece>;
  readonly groups: readonly PieceGroup[];
  readonly leads: readonly Piece[];
  /**
   * Per stable class (a string's contents): the tokens of every group whose characters it takes
   * (they lead back to the state) and whose tail it takes, at once, and the groups with a
   * character it does not take, to walk. A first-time mask inside a string walked 71 groups.
   */
  readonly inLoop: Map<string, { readonly taken: Int32Array; readonly exiting: readonly PieceGroup[] }>;
}
interface PieceGroup {
  readonly chars: string;
  /** True when its first character is ASCII: the only groups a state that takes no other may allow. */
  readonly ascii: boolean;
  readonly pieces: readonly Piece[];
  /** Per character class: the group's tokens whose tail it takes (any state it is open in takes them), and the rest. */
  readonly byClass: Map<string, { readonly taken: Int32Array; readonly rest: readonly Piece[] }>;
}
const PIECES = new WeakMap<TokenIndex, PieceIndex>();
function pieceIndex(index: TokenIndex): PieceIndex {
  let known = PIECES.get(index);
  if (known) return known;
  const pieces = piecesOf(index.vocabulary, index.partial);
  const groups = new Map<string, Piece[]>();
  for (const piece of pieces) {
    if (piece.lead.length > 0) continue;
    const group = groups.get(piece.chars);
    if (group) group.push(piece);
    else groups.set(piece.chars, [piece]);
  }
  known = {
    byId: new Map(pieces.map((p) => [p.id, p])),
    groups: [...groups].map(([chars, list]) => ({ chars, ascii: chars !== '' && chars.charCodeAt(0) < 128, pieces: list, byClass: new Map() })),
    leads: pieces.filter((p) => p.lead.length > 0),
    inLoop: new Map(),
  };
  PIECES.set(index, known);
  return known;
}

/** Whether a character outside `exits` lies in a range (see someCodePoint), kept per exit test: a class's exits never change. */
const rangesTaken = new WeakMap<(c: string) => boolean, Map<number, boolean>>();
function exitsTake(exits: (c: string) => boolean, lo: number, hi: number): boolean {
  let known = rangesTaken.get(exits);
  if (!known) rangesTaken.set(exits, (known = new Map()));
  const key = lo * 0x200000 + hi;
  let takes = known.get(key);
  if (takes === undefined) known.set(key, (takes = someCodePoint(lo, hi, (c) => !exits(c))));
  return takes;
}

const NO_BYTES = new Uint8Array(0);

/**
 * Token-level view of a character matcher: `check` for the fast path (is the model's own pick
 * allowed?), `mask` for the full set of allowed tokens as a bitmask. End of generation is allowed
 * only when no invocation is open. A token that is not whole UTF-8 text is allowed there as
 * well (its bytes are not read); inside an invocation it is read as UTF-8 (see Piece): its
 * whole characters go to the matcher, and a character it leaves unfinished is held here
 * (`pendingBytes`) until tokens of its remaining bytes finish it, allowed only where the state
 * takes a character those bytes can still become (a string's contents: any character beyond
 * ASCII in a plain one, U+0080-U+00FF in a header value's). So a value can hold a character the
 * vocabulary spells only in bytes, and the text the tokens decode to is what the matcher read.
 */
export class TokenConstraint {
  private readonly index: TokenIndex;
  private readonly pieces: PieceIndex;
  private readonly masks = new Map<StateKey, Uint32Array>();
  /** Where masks are kept (see newMask), and how many of their places are taken. */
  private readonly chunks: Uint32Array[] = [];
  private used = 0;
  /** The states met by mask walks (see Known); shared per language. */
  private readonly automaton: Automaton;

  private readonly start: ConstraintMatcher;
  /** The bytes of a character a token began and none has finished yet (see the class comment), empty when none. */
  private held: Uint8Array = NO_BYTES;
  /**
   * The matcher a check fed its allowed token to, with the state (matcher, offset, held bytes) it
   * started from and the bytes held after it: `advance` of that token takes it instead of
   * feeding the token twice more.
   */
  private checked: { token: number; from: ConstraintMatcher; offset: number; held: Uint8Array; after: ConstraintMatcher; heldAfter: Uint8Array } | undefined;

  constructor(
    vocabulary: Vocabulary,
    private matcher: ConstraintMatcher,
  ) {
    this.index = tokenIndex(vocabulary);
    this.pieces = pieceIndex(this.index);
    this.start = matcher.clone();
    this.automaton = automatonOf(matcher.language);
    this.readyMasks();
  }

  /** Back to the matcher it was made with, keeping the memoised masks (one per API in a run). */
  reset(): void {
    this.matcher = this.start.clone();
    this.held = NO_BYTES;
    this.checked = undefined;
    this.readyMasks();
  }

  /** States the language's automaton holds now (see automatonLimits). */
  get statesHeld(): number {
    return this.automaton.size;
  }

  /** True when the current state's mask is memoised. */
  memoised(): boolean {
    return this.masks.has(this.maskKey(this.matcher.stateKey()));
  }

  /** The memo's key of the current state: the matcher's, and the bytes held (see pendingBytes). */
  private maskKey(key: StateKey): StateKey {
    return this.held.length === 0 ? key : `${key}+${this.held.join('.')}`;
  }

  /**
   * The bytes of a character that the tokens so far began and did not finish (empty when none):
   * only tokens that go on with it are allowed next. The matcher (`state`) has read the text
   * before it; feeding the matcher from outside meanwhile would put text inside the character.
   */
  get pendingBytes(): Uint8Array {
    return this.held;
  }

  get vocabularySize(): number {
    return this.index.vocabulary.text.length;
  }

  get state(): ConstraintMatcher {
    return this.matcher;
  }

  check(token: number): boolean {
    const vocabulary = this.index.vocabulary;
    const held = this.held;
    if (vocabulary.eos.includes(token)) return held.length === 0 && this.matcher.isComplete();
    const text = vocabulary.text[token];
    if (text === undefined) return false;
    if (text === null || text === '') return (held.length === 0 && this.matcher.isComplete() && !this.matcher.pending) || this.checkPiece(token);
    // Whole text never goes on with a character begun: its first byte is no continuation byte.
    if (held.length > 0) return false;
    const copy = this.matcher.clone();
    if (!copy.feed(text).ok) return false;
    this.checked = { token, from: this.matcher, offset: this.matcher.offset, held, after: copy, heldAfter: NO_BYTES };
    return true;
  }

  /** check of a token that is not whole text, inside an invocation (see the class comment): decided as the mask decides it. */
  private checkPiece(token: number): boolean {
    const piece = this.pieces.byId.get(token);
    if (!piece) return false;
    const held = this.held;
    const heldAfter = this.pieceFrom(this.automaton.states[this.intern(this.matcher.clone()) - 1]!, held, piece);
    if (!heldAfter) return false;
    const finished = held.length > 0 && piece.lead.length === sequenceLength(held[0]!) - held.length ? finish(held, piece.lead)! : '';
    const copy = this.matcher.clone();
    if (!copy.feed(finished + piece.chars).ok) throw new Error('bug: the matcher refused the characters of a token its automaton took');
    this.checked = { token, from: this.matcher, offset: this.matcher.offset, held, after: copy, heldAfter };
    return true;
  }

  /** Appends a token; returns false (and changes nothing) when it is not allowed. */
  advance(token: number): boolean {
    let checked = this.checkedFor(token);
    if (!checked) {
      if (!this.check(token)) return false;
      checked = this.checkedFor(token);
    }
    this.checked = undefined;
    if (checked) {
      this.matcher = checked.after;
      this.held = checked.heldAfter;
    } else {
      // End of generation and tokens that are not whole text are allowed without a copy (see check).
      const text = this.index.vocabulary.text[token];
      if (text) this.matcher.feed(text);
    }
    return true;
  }

  /** What the last allowed check of `token` led to, when it started from the present state. */
  private checkedFor(token: number): TokenConstraint['checked'] {
    const c = this.checked;
    // The matcher can be fed from outside (`state`), so its offset must be the checked one too.
    return c && c.token === token && c.from === this.matcher && c.offset === this.matcher.offset && c.held === this.held ? c : undefined;
  }

  /**
   * Every allowed token, as a bitmask to read before the next call (a later call may reuse its
   * memory); memoised per state. The trie is walked with the character matcher only until the
   * state has an open class (string contents, identifiers, free text); from there the tokens
   * whose rest holds no exit character are allowed without a look, and only the others are fed
   * to the matcher. That lexer-level split keeps a mask inside a string literal from visiting
   * 150,000 tokens character by character.
   */
  mask(): Uint32Array {
    const stateKey = this.matcher.stateKey();
    const key = this.maskKey(stateKey);
    const cached = this.masks.get(key);
    if (cached) {
      // Most recently used last (see newMask).
      this.masks.delete(key);
      this.masks.set(key, cached);
      return cached;
    }
    const mask = this.newMask();
    // Dropped between walks only (walks are synchronous): a walk holds indexes into `states`.
    if (this.automaton.size > this.automaton.max) {
      // The same table, cleared where it was written: its pages are in already.
      const automaton = this.automaton;
      automaton.ascii.fill(0, 0, automaton.size * 128);
      automaton.known.clear();
      automaton.states = new Array<Known>(automaton.max + WALK_SLACK);
      automaton.size = 0;
      automaton.literals = new Map();
      automaton.asciiSets = new Map();
      this.matcher.language.stacks.renew();
    }
    const root = this.automaton.states[this.intern(this.matcher.clone(), stateKey) - 1]!;
    if (this.held.length > 0) {
      // Only the rest of the character begun: tokens of continuation bytes.
      for (const piece of this.pieces.leads) if (this.pieceFrom(root, this.held, piece)) setBit(mask, piece.id);
    } else {
      this.walkRoot(root, mask);
      const free = this.matcher.isComplete();
      if (free) for (const id of this.index.vocabulary.eos) setBit(mask, id);
      if (free && !this.matcher.pending) for (const id of this.index.partial) setBit(mask, id);
      else this.allowPieces(root, mask);
    }
    this.masks.set(key, mask);
    return mask;
  }

  /**
   * Allows the partial tokens that begin a character from a state (no bytes held): each group's
   * whole characters walked once, then its tokens' tails. Where the state after them has an open
   * class, the tails that class takes are allowed without a look (a string's contents take any
   * character beyond ASCII: a thousand of qwen2's tokens at once), and only the rest are asked.
   */
  private allowPieces(state: Known, mask: Uint32Array): void {
    let groups = this.pieces.groups;
    if (this.loops(state) && !state.asciiOnly && !state.matcher.isComplete()) {
      const loop = this.loopPieces(state.open!);
      for (const id of loop.taken) setBit(mask, id);
      groups = loop.exiting;
    }
    const below = state.ws ? state.ws.under : state;
    for (const group of groups) {
      if (below.asciiOnly && !group.ascii) continue;
      const after = this.charsFrom(state, group.chars);
      if (!after || after.cr) continue;
      const at = after.at;
      if (at.asciiOnly || at.matcher.isComplete()) continue;
      let rest = group.pieces;
      if (at.open) {
        const byClass = this.classPieces(group, at.open);
        for (const id of byClass.taken) setBit(mask, id);
        // In a string's contents the class says all (see someTaken).
        if (this.loops(at)) continue;
        rest = byClass.rest;
      }
      for (const piece of rest) if (this.takesTail(at, piece.tail)) setBit(mask, piece.id);
    }
  }

  /** True when a state is a string's contents: every character of its open class leads back to it. */
  private loops(state: Known): boolean {
    return state.open !== undefined && state.jump?.to === state.row + 1;
  }

  /** The tokens a stable class's state allows without a walk, and the groups it walks (see PieceIndex.inLoop). */
  private loopPieces(cls: CharClass): { readonly taken: Int32Array; readonly exiting: readonly PieceGroup[] } {
    let loop = this.pieces.inLoop.get(cls.key);
    if (!loop) {
      const taken: number[] = [];
      const exiting: PieceGroup[] = [];
      for (const group of this.pieces.groups) {
        if ([...group.chars].some((c) => cls.exits(c))) exiting.push(group);
        else taken.push(...this.classPieces(group, cls).taken);
      }
      this.pieces.inLoop.set(cls.key, (loop = { taken: Int32Array.from(taken), exiting }));
    }
    return loop;
  }

  /** A group's tokens split by whether a class takes a character their tail can become (see PieceGroup.byClass). */
  private classPieces(group: PieceGroup, cls: CharClass): { readonly taken: Int32Array; readonly rest: readonly Piece[] } {
    let split = group.byClass.get(cls.key);
    if (!split) {
      const taken: number[] = [];
      const rest: Piece[] = [];
      for (const piece of group.pieces) {
        const [lo, hi] = rangeOf(piece.tail);
        if (exitsTake(cls.exits, lo, hi)) taken.push(piece.id);
        else rest.push(piece);
      }
      group.byClass.set(cls.key, (split = { taken: Int32Array.from(taken), rest }));
    }
    return split;
  }

  /**
   * The bytes held after a partial token from a state with `held` bytes held (empty when it
   * leaves none), or undefined when it is not allowed there: it must finish the held character
   * exactly (or only go on with it), every character it finishes or holds whole must be taken,
   * and a tail it leaves must be one the state after them takes (see takesTail).
   */
  private pieceFrom(state: Known, held: Uint8Array, piece: Piece): Uint8Array | undefined {
    let chars = piece.chars;
    if (held.length > 0) {
      const wanted = sequenceLength(held[0]!) - held.length;
      if (piece.lead.length < wanted) {
        // Continuation bytes alone (anything after them would be a byte that is none).
        if (piece.chars !== '' || piece.tail.length > 0) return undefined;
        const tail = new Uint8Array(held.length + piece.lead.length);
        tail.set(held);
        tail.set(piece.lead, held.length);
        const at = this.charsFrom(state, '')!;
        return isUnfinished(tail) && !at.cr && this.takesTail(at.at, tail) ? tail : undefined;
      }
      const ch = piece.lead.length === wanted ? finish(held, piece.lead) : undefined;
      if (ch === undefined) return undefined;
      chars = ch + chars;
    } else if (piece.lead.length > 0) return undefined;
    const after = this.charsFrom(state, chars);
    if (!after) return undefined;
    if (piece.tail.length === 0) return NO_BYTES;
    return !after.cr && this.takesTail(after.at, piece.tail) ? piece.tail : undefined;
  }

  /**
   * Where a partial token's whole characters lead from a state, or undefined when one is
   * refused. Inside a run of whitespace it is the state below the run (`at`) that takes what
   * follows the whitespace (see walkUnder); `cr` when a `\r` there waits for its `\n`. Steps
   * through the run's counts would make a state per count, as walkUnder explains: 6,235 more
   * over ourMasks' walks.
   */
  private charsFrom(state: Known, chars: string): { readonly at: Known; readonly cr: boolean } | undefined {
    let at = state.ws ? state.ws.under : state;
    let run = state.ws?.frame;
    for (const ch of chars) {
      if (run && isWhitespace(ch.charCodeAt(0))) {
        run = run.next(ch);
        if (!run) return undefined;
        continue;
      }
      if (run?.cr) return undefined;
      const next = this.step(at, ch);
      if (!next) return undefined;
      at = next.ws ? next.ws.under : next;
      run = next.ws?.frame;
    }
    return { at, cr: run?.cr ?? false };
  }

  /** The state after one character (a code point), numbered or not: a character no token holds (one finished from bytes) is not numbered, so that this process's numbering stays that of prepared indexes (see restoreTokenIndex). */
  private step(state: Known, ch: string): Known | undefined {
    const code = ch.charCodeAt(0);
    const id = ch.length === 1 && code < 128 ? code : (ch.length === 1 && bmpIds[code]) || (charIds.get(ch) ?? 0);
    if (id > 0 || ch === '\0') return this.next(state, id);
    const after = state.matcher.after(ch);
    return after && this.automaton.states[this.intern(after) - 1];
  }

  /**
   * True when a character an unfinished tail can still become may come next, inside an
   * invocation: one its open class takes (a string's contents), one its escape or loop takes,
   * the first of one of its literals, else one the matcher takes (tried as someCodePoint tries:
   * a state of that kind is rare, an enum's string with an option beyond ASCII, whose
   * characters a vocabulary spells only in bytes it may then refuse). Kept per state and range.
   */
  private takesTail(state: Known, tail: Uint8Array): boolean {
    const [lo, hi] = rangeOf(tail);
    const key = lo * 0x200000 + hi;
    const known = state.tails?.get(key);
    if (known !== undefined) return known;
    const takes = !state.asciiOnly && !state.matcher.isComplete() && this.someTaken(state, lo, hi);
    (state.tails ??= new Map()).set(key, takes);
    return takes;
  }

  private someTaken(state: Known, lo: number, hi: number): boolean {
    // The open class first: allowPieces allows what it takes without asking (see classPieces).
    if (state.open && exitsTake(state.open.exits, lo, hi)) return true;
    if (state.jump) {
      if (exitsTake(state.jump.exits, lo, hi)) return true;
      // A string's contents loop: its class said all.
      if (state.jump.to === state.row + 1) return false;
    }
    const literals = state.literals !== undefined ? state.literals : (state.literals = literalsOf(state.matcher, this.automaton.literals));
    if (literals) return literals.texts.some((text) => (text.codePointAt(0) ?? -1) >= lo && (text.codePointAt(0) ?? -1) <= hi);
    return someCodePoint(lo, hi, (c) => state.matcher.after(c) !== undefined);
  }

  /**
   * A zeroed mask. The memo keeps MAX_MASKS, in chunks of 64 made ready ahead (see readyMasks);
   * past that the least recently used one gives up its memory, cleared. A place in a chunk per
   * mask, not an array each: a 19 KB array per mask faulted 220 MB in over the bench's 11,600
   * first-time masks.
   */
  private newMask(): Uint32Array {
    if (this.masks.size >= MAX_MASKS) {
      const [oldest, mask] = this.masks.entries().next().value!;
      this.masks.delete(oldest);
      return mask.fill(0);
    }
    const words = this.index.words;
    const chunk = this.used >> 6;
    // A generation that computed more than MASKS_AHEAD first-time masks.
    if (chunk === this.chunks.length) this.chunks.push(new Uint32Array(64 * words));
    const at = (this.used++ & 63) * words;
    return this.chunks[chunk]!.subarray(at, at + words);
  }

  /**
   * Makes the memory of the memo's next MASKS_AHEAD masks and writes through it, when made and at
   * each reset (between generations), so that a first-time mask does not pay for it: fresh memory
   * costs a page fault per 4 KB on its first write, and a mask's 19 KB on qwen2 took up to five,
   * about 17 µs each on this project's 2-core machine. Over a subset of the token bench whose
   * first-time masks were all on fresh memory, their median went from 205-213 µs to 137-147 µs.
   */
  private readyMasks(): void {
    const words = this.index.words;
    while (this.chunks.length * 64 < Math.min(MAX_MASKS, this.used + MASKS_AHEAD)) {
      const chunk = new Uint32Array(64 * words);
      writeThrough(chunk);
      this.chunks.push(chunk);
    }
  }

  /** The index (+1) of a state in the automaton, added when new. */
  private intern(matcher: ConstraintMatcher, key = matcher.stateKey()): number {
    const automaton = this.automaton;
    const found = automaton.known.get(key);
    if (found !== undefined) return found;
    const loop = matcher.loopClass();
    const escape = loop ? undefined : matcher.jump();
    // Before this state's row is taken: the target is interned first.
    const jump = loop ? undefined : escape && { exits: escape.exits, to: this.intern(escape.to) };
    const white = matcher.whitespace();
    const ws = white && { frame: white.frame, under: automaton.states[this.intern(white.under) - 1]! };
    const row = automaton.size++;
    // A walk may pass the limit (the automaton is dropped between walks only).
    if ((row + 1) * 128 > automaton.ascii.length) {
      const grown = new Int32Array(automaton.ascii.length * 2);
      grown.set(automaton.ascii);
      automaton.ascii = grown;
    }
    automaton.states[row] = { row, matcher, key, open: matcher.openClass(), jump: loop ? { exits: loop.exits, to: row + 1 } : jump, asciiOnly: matcher.asciiOnly(), firsts: undefined, literals: undefined, literalEnds: undefined, other: undefined, stable: undefined, wsLoop: undefined, ws, tails: undefined };
    automaton.known.set(key, row + 1);
    return row + 1;
  }

  /**
   * The automaton's one copy of an ASCII set (see Automaton.asciiSets), looked up by a hash of its
   * words: a text key per state was a tenth of what a first-time mask allocated.
   */
  private sharedAscii(set: AsciiSet): AsciiSet {
    const sets = this.automaton.asciiSets;
    const hash = Math.imul(Math.imul(Math.imul(set[0]!, 31) + set[1]!, 31) + set[2]!, 31) + set[3]!;
    const bucket = sets.get(hash);
    if (bucket) for (const known of bucket) if (known[0] === set[0] && known[1] === set[1] && known[2] === set[2] && known[3] === set[3]) return known;
    const own = set === asciiScratch ? set.slice() : set;
    if (bucket) bucket.push(own);
    else sets.set(hash, [own]);
    return own;
  }

  /** The state after one more character (by id), or undefined when it cannot follow. */
  private next(state: Known, ch: number): Known | undefined {
    const automaton = this.automaton;
    let to = ch < 128 ? automaton.ascii[state.row * 128 + ch]! : (state.other?.get(ch) ?? 0);
    if (to === 0 && ch < 128) {
      const firsts = (state.firsts ??= this.sharedAscii(state.matcher.nextAscii(asciiScratch) ?? ALL_ASCII));
      if (!(firsts[ch >>> 5]! & (1 << (ch & 31)))) automaton.ascii[state.row * 128 + ch] = to = -1;
    }
    if (to === 0) {
      if (state.jump && !state.jump.exits(charTexts[ch]!)) to = state.jump.to;
      else {
        const after = state.matcher.after(charTexts[ch]!);
        to = after ? this.intern(after) : -1;
      }
      // After intern, which may have grown the table.
      if (ch < 128) automaton.ascii[state.row * 128 + ch] = to;
      else (state.other ??= new Map()).set(ch, to);
    }
    return to > 0 ? automaton.states[to - 1] : undefined;
  }

  /** The whole vocabulary from a state (see TokenIndex.wsRests for the tokens that start with whitespace). */
  private walkRoot(state: Known, mask: Uint32Array): void {
    const { all, wsRests, wsOnly } = this.index;
    if (state.open && this.scan(all, 0, 0, state, state.open, mask)) return;
    // A run of whitespace never leads back to itself (it counts), and asking would make its next state.
    state.wsLoop ??= !state.ws && WHITESPACE.every((ch) => this.next(state, ch) === state);
    if (!state.wsLoop) return this.walkFrom(all.trie, 0, 0, state, mask, all);
    for (const id of wsOnly) setBit(mask, id);
    this.walk(wsRests, 0, 0, state, mask);
    const { nodes, edges } = all.trie;
    for (let e = nodes[EDGES]!, end = nodes[NODE + EDGES]!; e < end; e += 2) {
      const ch = edges[e]!;
      if (ch >= 128 && state.asciiOnly) break;
      if (isWhitespace(ch)) continue;
      const next = this.next(state, ch);
      if (next) this.walk(all, edges[e + 1]!, 1, next, mask);
    }
  }

  /** Allows the tokens of a subtree (at node n, `depth` characters deep) of one of the vocabulary's tries that the state accepts. */
  private walk(tt: TextTrie, n: number, depth: number, state: Known, mask: Uint32Array): void {
    if (state.open && this.scan(tt, n, depth, state, state.open, mask)) return;
    this.walkFrom(tt.trie, n, depth, state, mask, tt);
  }

  /**
   * The tokens ending at node n, then each child the state takes, walked on: through `walk` (the
   * open-class shortcut) in the vocabulary's tries (`tt`, where `depth` is node n's), plainly in
   * a split's trie of exiting texts or rests, which are few and short.
   */
  private walkFrom(trie: Trie, n: number, depth: number, state: Known, mask: Uint32Array, tt: TextTrie | undefined): void {
    if (state.ws) return this.walkUnder(trie, n, depth, state.ws.under, state.ws.frame, mask, tt);
    this.walkUnder(trie, n, depth, state, undefined, mask, tt);
  }

  /**
   * walkFrom's walk from `state`, or, inside a run of whitespace (`run`), from the state below it:
   * a whitespace character then steps the run (see WsFrame.next), any other is `state`'s,
   * whatever the run. A run's states differ only in their counts: walking through them as states
   * made one per character of every whitespace token (`\n` and up to 16 spaces) in every place
   * whitespace may come, 83% of the states the token bench's first-time masks made.
   */
  private walkUnder(trie: Trie, n: number, depth: number, state: Known, run: WsFrame | undefined, mask: Uint32Array, tt: TextTrie | undefined): void {
    const { nodes, edges } = trie;
    allowOwn(trie, n, mask);
    // After a `\r` only its `\n` may come. A state's literals say what it takes; in a run, only after the whitespace.
    const literals = run?.cr ? null : state.literals !== undefined ? state.literals : (state.literals = literalsOf(state.matcher, this.automaton.literals));
    const byLiterals = literals !== null && !(run && literals.wsFirst);
    if (byLiterals && !run) return this.walkLiterals(trie, n, depth, state, literals.all, 0, mask, tt);
    // The known transitions read inline (see next): a table grown meanwhile only sends a few to next.
    const { ascii, states } = this.automaton;
    const row = state.row * 128;
    for (let e = nodes[n + EDGES]!, end = nodes[n + NODE + EDGES]!; e < end; e += 2) {
      const ch = edges[e]!;
      if (run) {
        if (isWhitespace(ch)) {
          const after = run.next(charTexts[ch]!);
          if (after) this.walkUnder(trie, edges[e + 1]!, depth + 1, state, after, mask, tt);
          continue;
        }
        // Edges are in character order and whitespace is at most 32.
        if (run.cr || byLiterals) {
          if (ch > 32) break;
          continue;
        }
      }
      let to = 0;
      if (ch < 128) to = ascii[row + ch]!;
      else if (state.asciiOnly) break;
      if (to < 0) continue;
      const next = to > 0 ? states[to - 1] : this.next(state, ch);
      if (!next) continue;
      if (tt) this.walk(tt, edges[e + 1]!, depth + 1, next, mask);
      else this.walkFrom(trie, edges[e + 1]!, 0, next, mask, undefined);
    }
    if (byLiterals) this.walkLiterals(trie, n, depth, state, literals.all, 0, mask, tt);
  }

  /**
   * The tokens below node n along a state's literals, `pos` characters into those of `group`
   * (indexes into them), which agree that far: each next character's child is looked up, its
   * tokens go, and at a literal's end the walk goes on from the state after it. The characters
   * before that make no state: a key, a name or a word cost one matcher state per character,
   * which was most of the new states a first-time mask made.
   */
  private walkLiterals(trie: Trie, n: number, depth: number, state: Known, group: readonly number[], pos: number, mask: Uint32Array, tt: TextTrie | undefined): void {
    const { texts, chars } = state.literals!;
    const ends = (state.literalEnds ??= []);
    for (let g = 0; g < group.length; g++) {
      const ch = chars[group[g]!]![pos]!;
      // Each character once, by the first literal of the group that has it.
      let met = false;
      for (let h = 0; h < g && !met; h++) met = chars[group[h]!]![pos] === ch;
      if (met) continue;
      const child = childOf(trie, n, ch);
      if (child < 0) continue;
      // Loops, not filter and find: a literal walked alone (a key, a name) allocates nothing per character.
      let along = group;
      if (group.length > 1) {
        const picked: number[] = [];
        for (const i of group) if (chars[i]![pos] === ch) picked.push(i);
        along = picked;
      }
      let whole: number | undefined;
      for (const i of along) {
        if (chars[i]!.length !== pos + 1) continue;
        whole = i;
        break;
      }
      if (whole === undefined) {
        allowOwn(trie, child, mask);
        this.walkLiterals(trie, child, depth + 1, state, along, pos + 1, mask, tt);
        continue;
      }
      let after = ends[whole];
      if (!after) {
        const matcher = state.matcher.clone();
        if (!matcher.feed(texts[whole]!).ok) throw new Error('bug: a state refused one of its own literals');
        after = ends[whole] = this.automaton.states[this.intern(matcher) - 1]!;
      }
      if (tt) this.walk(tt, child, depth + 1, after, mask);
      else this.walkFrom(trie, child, 0, after, mask, undefined);
    }
  }

  /**
   * Allows the tokens of a subtree whose rest the state's open class accepts, and walks the
   * others; declines (false) when the others are too many to walk apart, so the walk descends
   * a level instead (an identifier at the root: every token with a space is an other).
   */
  private scan(tt: TextTrie, n: number, depth: number, state: Known, cls: CharClass, mask: Uint32Array): boolean {
    const table = tt.classes.get(cls.key);
    if (!table) throw new Error(`bug: the character class ${cls.key} was made after the vocabulary was prepared`);
    const trie = tt.trie;
    const stable = cls.stable || (cls.probe !== undefined && this.probeStable(state, cls.probe));
    let split: Split;
    if (n === 0) {
      // The whole trie: in a stable state the exit trie's prefix sharing keeps the walk short (`',`, `')`).
      split = table.root;
      if (!stable && declines(split.others, trie, 0)) return false;
      for (let w = 0; w < mask.length; w++) mask[w]! |= table.rootInside[w]!;
    } else {
      let found = table.splits.get(n);
      if (!found) {
        // Decline before building anything when the others are too many (see below), and remember it.
        let others = 0;
        for (let i = trie.nodes[n + LO]!; i < trie.nodes[n + HI]!; i++) if (table.last[i]! >= depth) others++;
        table.splits.set(n, (found = declines(others, trie, n) ? DECLINED : splitOf(tt, table.last, n, depth)));
      }
      if (found === DECLINED) return false;
      split = found;
      for (const id of split.inside) setBit(mask, id);
    }
    // In a stable state, tokens whose texts agree from their first exit on are decided together.
    this.walkFrom(stable ? exitingOf(tt, table, split) : restsOf(tt, table, split), 0, 0, state, mask, undefined);
    return true;
  }

  /** True when every character of `probe` leaves the state as it was: an identifier is stable where its parent takes none of them. */
  private probeStable(state: Known, probe: string): boolean {
    state.stable ??= [...probe].every((c) => this.next(state, charId(c)) === state);
    return state.stable;
  }
}

/** A subtree whose others are too many (see declines). */
const DECLINED: Split = { node: -1, depth: 0, inside: new Int32Array(0), others: 0, exiting: undefined, rests: undefined };

/** True when a subtree's others are too many to walk apart (over 64 and an eighth of it), so the walk descends instead. */
function declines(others: number, trie: Trie, n: number): boolean {
  const { nodes } = trie;
  return others > 64 && others * 8 > nodes[n + HI]! - nodes[n + LO]! && nodes[n + NODE + EDGES]! > nodes[n + EDGES]!;
}

/**
 * A prepared index as bytes, to keep on disk beside the process (see
 * main/constraints/prepared.ts): preparing qwen2's 151,936 tokens takes a second or more, and
 * every process that loads the model pays it, where reading the index back takes milliseconds.
 * Bumped whenever what the index holds, or how it is built, changes: an old file is then a miss.
 */
const INDEX_FORMAT = 3;
const MAGIC = 0x31495457; // "WTI1"
type Stored = Int32Array | Int16Array | Uint32Array | Uint8Array;
const KINDS = { i32: Int32Array, i16: Int16Array, u32: Uint32Array, u8: Uint8Array } as const;
const kindOf = (a: Stored): keyof typeof KINDS => (a instanceof Int32Array ? 'i32' : a instanceof Int16Array ? 'i16' : a instanceof Uint32Array ? 'u32' : 'u8');
interface StoredHeader {
  readonly format: number;
  readonly key: string;
  readonly chars: readonly string[];
  readonly words: number;
  readonly others: Record<string, number>;
  readonly arrays: readonly { readonly name: string; readonly kind: keyof typeof KINDS; readonly offset: number; readonly length: number }[];
}

/**
 * What a prepared index depends on, hashed: the tokens' bytes and which are text, the end of
 * generation tokens, every character class (its key, flags and exit test's source) and the format.
 * A cached index is used only under the same key.
 */
export function tokenIndexKey(vocabulary: Vocabulary): string {
  const hash = createHash('sha256');
  const { data, start } = vocabulary.bytes;
  hash.update(`wapii token index ${INDEX_FORMAT}\0${vocabulary.text.length}\0${vocabulary.eos.join(',')}\0`);
  hash.update(data);
  hash.update(new Uint8Array(start.buffer, start.byteOffset, start.byteLength));
  // A plain loop: Uint8Array.from with a map function took 27-69 ms for qwen2's 151,936 texts.
  const kinds = new Uint8Array(vocabulary.text.length);
  for (let i = 0; i < kinds.length; i++) {
    const t = vocabulary.text[i];
    kinds[i] = t === null ? 0 : t === '' ? 2 : 1;
  }
  hash.update(kinds);
  for (const cls of allClasses()) hash.update(`\0${cls.key}\0${cls.stable}\0${cls.probe ?? ''}\0${cls.exits.toString()}`);
  return hash.digest('hex');
}

/** The index's arrays by name (a trie's three, each text trie's texts, each class's tables and root tries). */
function storedArrays(index: TokenIndex): Map<string, Stored> {
  const arrays = new Map<string, Stored>();
  const trie = (name: string, t: Trie): void => {
    arrays.set(`${name}.ids`, t.ids);
    arrays.set(`${name}.nodes`, t.nodes);
    arrays.set(`${name}.edges`, t.edges);
  };
  for (const [name, tt] of [['all', index.all], ['wsRests', index.wsRests]] as const) {
    trie(name, tt.trie);
    const { start, text } = tt.texts();
    arrays.set(`${name}.start`, start);
    arrays.set(`${name}.text`, text);
    for (const [key, table] of tt.classes.entries()) {
      const at = `${name}/${key}`;
      arrays.set(`${at}.exits`, table.exits);
      arrays.set(`${at}.last`, table.last);
      arrays.set(`${at}.rootInside`, table.rootInside);
      if (table.root.exiting) trie(`${at}.exiting`, table.root.exiting);
      if (table.root.rests) trie(`${at}.rests`, table.root.rests);
    }
  }
  arrays.set('wsOnly', index.wsOnly);
  arrays.set('partial', Int32Array.from(index.partial));
  return arrays;
}

/** A prepared index as bytes: a header (JSON) and its arrays, each at an offset a multiple of 8. */
export function serializeTokenIndex(index: TokenIndex): Uint8Array {
  const arrays = storedArrays(index);
  const others: Record<string, number> = {};
  for (const [name, tt] of [['all', index.all], ['wsRests', index.wsRests]] as const) for (const [key, table] of tt.classes.entries()) others[`${name}/${key}`] = table.root.others;
  let offset = 0;
  const placed: StoredHeader['arrays'][number][] = [];
  for (const [name, a] of arrays) {
    placed.push({ name, kind: kindOf(a), offset, length: a.length });
    offset += Math.ceil(a.byteLength / 8) * 8;
  }
  const header: StoredHeader = { format: INDEX_FORMAT, key: tokenIndexKey(index.vocabulary), chars: charTexts.slice(128), words: index.words, others, arrays: placed };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const body = 8 + Math.ceil(json.length / 8) * 8;
  const bytes = new Uint8Array(body + offset);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, json.length, true);
  bytes.set(json, 8);
  placed.forEach((p, i) => {
    const a = [...arrays.values()][i]!;
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), body + p.offset);
  });
  return bytes;
}

/**
 * Where a prepared index is read from: its bytes in memory, or a file read piece by piece (see
 * preparedTokenIndex). `read` answers undefined when the piece is not all there.
 */
export interface IndexSource {
  readonly size: number;
  read(offset: number, length: number): Uint8Array | undefined;
}

/** Bytes in memory as an IndexSource; a piece at an offset that is not a multiple of 8 is copied (views need aligned offsets). */
function bytesSource(bytes: Uint8Array): IndexSource {
  return {
    size: bytes.length,
    read: (offset, length) => {
      if (offset + length > bytes.length) return undefined;
      const piece = bytes.subarray(offset, offset + length);
      return piece.byteOffset % 8 === 0 ? piece : piece.slice();
    },
  };
}

/**
 * The index serializeTokenIndex wrote, for this vocabulary, or why it cannot be used (another
 * vocabulary or format, a file cut short, or characters this process numbered otherwise: the
 * tries hold character ids, which are numbered by first sight in a process). The arrays are views
 * of what was read (read only ever after), and a vocabulary's later masks are the same as from a
 * fresh preparation.
 *
 * Only the tries are read now; the tokens' texts (5 MB on qwen2: a split below the root reads
 * them) and each character class's tables (three fifths of its 55 MB) are read when a mask first
 * needs them, or ahead (see readAhead). Memory a process has not touched yet costs a page fault
 * per 4 KB on its first write, and reading the whole file into it took 210-240 ms on this
 * project's 2-core machine (the same read into memory already touched: 5 ms). A piece that
 * cannot be read then (the file was removed or cut) is made from the vocabulary and the tries
 * instead.
 */
export function restoreTokenIndex(vocabulary: Vocabulary, from: Uint8Array | IndexSource, key = tokenIndexKey(vocabulary)): TokenIndex | { readonly error: string } {
  const known = (vocabulary as Indexed)[INDEX];
  if (known) return known;
  const source = from instanceof Uint8Array ? bytesSource(from) : from;
  const first = source.read(0, Math.min(source.size, 8));
  if (!first || first.length < 8) return { error: 'the prepared token index is truncated' };
  const lead = new DataView(first.buffer, first.byteOffset, 8);
  if (lead.getUint32(0, true) !== MAGIC) return { error: 'not a prepared token index' };
  const headerLength = lead.getUint32(4, true);
  const headerBytes = source.read(8, headerLength);
  if (!headerBytes) return { error: 'the prepared token index is truncated' };
  let header: StoredHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(headerBytes)) as StoredHeader;
  } catch {
    return { error: 'the prepared token index has an unreadable header' };
  }
  if (header.format !== INDEX_FORMAT || header.key !== key) return { error: 'the prepared token index is of another vocabulary or version' };
  const body = 8 + Math.ceil(headerLength / 8) * 8;
  const placed = new Map(header.arrays.map((a) => [a.name, a]));
  for (const a of header.arrays) if (body + a.offset + a.length * KINDS[a.kind].BYTES_PER_ELEMENT > source.size) return { error: 'the prepared token index is truncated' };
  // Its character ids must be this process's: number them in order, and give up where one was numbered otherwise.
  for (let i = 0; i < header.chars.length; i++) if (charId(header.chars[i]!) !== 128 + i) return { error: 'this process numbered characters otherwise than the prepared token index' };
  /** The named arrays that are there, as views of one read of the span they take in the file. */
  const readArrays = (names: readonly string[]): Map<string, Stored> | undefined => {
    const parts = names.map((n) => placed.get(n)).filter((a) => a !== undefined);
    const lo = Math.min(...parts.map((a) => a.offset));
    const hi = Math.max(...parts.map((a) => a.offset + a.length * KINDS[a.kind].BYTES_PER_ELEMENT));
    const span = source.read(body + lo, hi - lo);
    if (!span) return undefined;
    return new Map(parts.map((a) => [a.name, new KINDS[a.kind](span.buffer as ArrayBuffer, span.byteOffset + a.offset - lo, a.length)]));
  };
  const trieNames = (name: string): string[] => [`${name}.ids`, `${name}.nodes`, `${name}.edges`];
  const trieOf = (arrays: Map<string, Stored>, name: string): Trie | undefined =>
    arrays.has(`${name}.ids`) ? { ids: arrays.get(`${name}.ids`) as Int32Array, nodes: arrays.get(`${name}.nodes`) as Int32Array, edges: arrays.get(`${name}.edges`) as Int32Array } : undefined;
  const words = header.words;
  const textTrieOf = (name: string): TextTrie | undefined => {
    const base = readArrays(trieNames(name));
    if (!base) return undefined;
    const trie = trieOf(base, name)!;
    // Its texts and class tables come on first use (readTexts and classTableOf, below; tt is made by then).
    let texts: TokenTexts | undefined;
    const readTexts = (): TokenTexts => {
      const arrays = readArrays([`${name}.start`, `${name}.text`]);
      return arrays ? { start: arrays.get(`${name}.start`) as Int32Array, text: arrays.get(`${name}.text`) as Int32Array } : textsFromVocabulary(vocabulary, trie.ids, name === 'wsRests');
    };
    const classes = lazyClasses((cls) => classTableOf(cls));
    const tt: TextTrie = {
      trie,
      texts: () => (texts ??= readTexts()),
      classes,
      readAhead() {
        if (texts) return classes.readAhead();
        texts = readTexts();
        return true;
      },
    };
    const classTableOf = (cls: CharClass): ClassTable => {
      const at = `${name}/${cls.key}`;
      const arrays = readArrays([`${at}.exits`, `${at}.last`, `${at}.rootInside`, ...trieNames(`${at}.exiting`), ...trieNames(`${at}.rests`)]);
      if (!arrays) {
        const exits = exitTable(cls);
        return classTable(tt, cls, exits, lastExits(tt, [exits])[0]!, words);
      }
      const root: Split = { node: 0, depth: 0, inside: new Int32Array(0), others: header.others[at]!, exiting: trieOf(arrays, `${at}.exiting`), rests: trieOf(arrays, `${at}.rests`) };
      return { exits: arrays.get(`${at}.exits`) as Uint8Array, last: arrays.get(`${at}.last`) as Int16Array, root, rootInside: arrays.get(`${at}.rootInside`) as Uint32Array, splits: new Map() };
    };
    return tt;
  };
  const all = textTrieOf('all');
  const wsRests = textTrieOf('wsRests');
  const rest = readArrays(['wsOnly', 'partial']);
  if (!all || !wsRests || !rest) return { error: 'the prepared token index could not be read' };
  const index: TokenIndex = { vocabulary, all, wsRests, wsOnly: rest.get('wsOnly') as Int32Array, partial: [...(rest.get('partial') as Int32Array)], words };
  Object.defineProperty(vocabulary, INDEX, { value: index });
  return index;
}

/**
 * Class tables made on first use, by class key, iterated (all made then) in allClasses' order;
 * `readAhead` makes one not made yet, false when none is left.
 */
function lazyClasses(make: (cls: CharClass) => ClassTable): ClassTables & { readAhead(): boolean } {
  const made = new Map<string, ClassTable>();
  const byKey = new Map(allClasses().map((cls) => [cls.key, cls]));
  const get = (key: string): ClassTable | undefined => {
    let table = made.get(key);
    const cls = byKey.get(key);
    if (!table && cls) made.set(key, (table = make(cls)));
    return table;
  };
  return {
    get,
    *entries() {
      for (const key of byKey.keys()) yield [key, get(key)!];
    },
    readAhead() {
      for (const key of byKey.keys()) {
        if (made.has(key)) continue;
        get(key);
        return true;
      }
      return false;
    },
  };
}

/**
 * Reads one piece that a restored index has not read yet (a trie's texts, then its class tables;
 * a few ms each), so a caller can read them all ahead, a piece per turn of the event loop, before
 * masks need them; false when every one is read (or the index was built, not restored).
 */
export function readAhead(index: TokenIndex): boolean {
  return (index.all.readAhead?.() ?? false) || (index.wsRests.readAhead?.() ?? false);
}
