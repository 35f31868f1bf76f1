import { allClasses, type CharClass } from './frames.js';
import type { CompiledSpec } from './invocation.js';
import type { ConstraintMatcher } from './matcher.js';
import type { Vocabulary } from './vocabulary.js';

/**
 * A character trie over token texts. Each node lists the tokens that end there and the range
 * [lo, hi) its subtree covers in depth-first order, so a subtree's tokens can be scanned as a
 * flat array.
 */
interface TrieNode {
  /** The children, `keys[i]` leading to `nodes[i]`; those under ASCII characters come first. */
  readonly keys: readonly string[];
  readonly nodes: readonly TrieNode[];
  /** How many children are under ASCII characters: all a state that takes only ASCII needs to look at. */
  readonly ascii: number;
  readonly tokens: readonly number[];
  readonly depth: number;
  readonly lo: number;
  readonly hi: number;
}

/** What the mask needs per character class (see CharClass), built on first use. */
interface ClassTable {
  /** In depth-first order: each token's last exit character, -1 when it has none. */
  readonly last: Int16Array;
  /** Classes stable (in some context) only: the tokens without an exit, and a trie of the others' texts from their first exit on. */
  readonly inside: Uint32Array | undefined;
  readonly exiting: TrieNode | undefined;
  /** Per subtree scanned so far, how its tokens split (see Split). */
  readonly splits: Map<TrieNode, Split>;
}

/**
 * A subtree's tokens under a class: those with no exit below the node, and the others grouped by
 * their text below the node and, for stable states, in a trie of their texts from the first exit on.
 */
interface Split {
  readonly inside: Int32Array;
  readonly others: number;
  readonly byRest: ReadonlyMap<string, number[]>;
  readonly exiting: TrieNode;
}

function group(map: Map<string, number[]>, text: string, id: number): void {
  const ids = map.get(text);
  if (ids) ids.push(id);
  else map.set(text, [id]);
}

export interface TokenIndex {
  readonly vocabulary: Vocabulary;
  readonly root: TrieNode;
  /** Token ids in depth-first trie order, and their texts split into characters. */
  readonly order: Int32Array;
  readonly chars: readonly (readonly string[])[];
  /** Tokens that are neither text nor end-of-generation: partial UTF-8 bytes, control tokens. */
  readonly partial: readonly number[];
  readonly words: number;
  /** Every character class's table, built when the vocabulary is prepared. */
  readonly classes: Map<string, ClassTable>;
}

const indexes = new WeakMap<Vocabulary, TokenIndex>();

/** A trie node while it is built: a map for the lookups, dropped once the trie is numbered. */
interface Building {
  children: Map<string, Building> | undefined;
  tokens: number[] | undefined;
}
const NO_KEYS: readonly string[] = Object.freeze([]);
const NO_NODES: readonly TrieNode[] = Object.freeze([]);
const NO_TOKENS: readonly number[] = Object.freeze([]);

/**
 * A trie over (text, token) pairs, its nodes numbered depth first; returns the root and the order.
 * The finished nodes hold plain arrays, and leaves share empty ones: a vocabulary's tries are a
 * million nodes, and with a Map each they made a heap that took half a second per full GC, which
 * landed inside a mask as its worst case.
 */
function buildTrie(entries: Iterable<readonly [readonly string[], number]>): { root: TrieNode; order: number[] } {
  const root: Building = { children: undefined, tokens: undefined };
  for (const [chars, id] of entries) {
    let node = root;
    for (const ch of chars) {
      node.children ??= new Map();
      let child = node.children.get(ch);
      if (!child) node.children.set(ch, (child = { children: undefined, tokens: undefined }));
      node = child;
    }
    (node.tokens ??= []).push(id);
  }
  const order: number[] = [];
  const finish = (node: Building, depth: number): TrieNode => {
    const lo = order.length;
    if (node.tokens) order.push(...node.tokens);
    const edges = node.children ? [...node.children] : [];
    // ASCII first (a stable sort keeps the depth-first order within each part).
    edges.sort(([a], [b]) => Number(a.charCodeAt(0) >= 128) - Number(b.charCodeAt(0) >= 128));
    // Arrays made by map() are sized exactly; push() would leave room for 16 more in each.
    const keys = edges.map(([ch]) => ch);
    const nodes = edges.map(([, child]) => finish(child, depth + 1));
    const ascii = keys.filter((ch) => ch.charCodeAt(0) < 128).length;
    return { keys: keys.length > 0 ? keys : NO_KEYS, nodes: nodes.length > 0 ? nodes : NO_NODES, ascii, tokens: node.tokens ? node.tokens.slice() : NO_TOKENS, depth, lo, hi: order.length };
  };
  return { root: finish(root, 0), order };
}

/** The flat token trie of a vocabulary, built once per vocabulary. */
export function tokenIndex(vocabulary: Vocabulary): TokenIndex {
  let index = indexes.get(vocabulary);
  if (index) return index;
  const partial: number[] = [];
  const eos = new Set(vocabulary.eos);
  const entries: [string[], number][] = [];
  vocabulary.text.forEach((text, id) => {
    if (eos.has(id)) return;
    if (text === null || text === '') partial.push(id);
    else entries.push([[...text], id]);
  });
  const { root, order } = buildTrie(entries);
  const chars = order.map((id) => [...vocabulary.text[id]!]);
  index = { vocabulary, root, order: Int32Array.from(order), chars, partial, words: Math.ceil(vocabulary.text.length / 32), classes: new Map() };
  // Every class's table now, not on first use (which cost up to a second inside one mask): the
  // texts as ids of their distinct characters, so a class asks about each character once.
  const ids = new Map<string, number>();
  const starts = new Int32Array(chars.length + 1);
  const flat: number[] = [];
  chars.forEach((cs, i) => {
    starts[i] = flat.length;
    for (const ch of cs) {
      let id = ids.get(ch);
      if (id === undefined) ids.set(ch, (id = ids.size));
      flat.push(id);
    }
  });
  starts[chars.length] = flat.length;
  const text = { starts, flat: Int32Array.from(flat), distinct: [...ids.keys()] };
  for (const cls of allClasses()) index.classes.set(cls.key, classTable(index, cls, text));
  indexes.set(vocabulary, index);
  return index;
}

function classTable(index: TokenIndex, cls: CharClass, text: { starts: Int32Array; flat: Int32Array; distinct: readonly string[] }): ClassTable {
  const exits = Uint8Array.from(text.distinct, (ch) => (cls.exits(ch) ? 1 : 0));
  const last = new Int16Array(index.chars.length);
  // Stable classes, and those stable in context (identifiers), get the whole-vocabulary split.
  const inside = cls.stable || cls.probe !== undefined ? new Uint32Array(index.words) : undefined;
  const exiting: [string[], number][] = [];
  for (let i = 0; i < index.chars.length; i++) {
    const start = text.starts[i]!;
    const end = text.starts[i + 1]!;
    let first = -1;
    let lastExit = -1;
    for (let k = start; k < end; k++) {
      if (!exits[text.flat[k]!]) continue;
      if (first < 0) first = k - start;
      lastExit = k - start;
    }
    last[i] = Math.min(lastExit, 0x7fff);
    if (!inside) continue;
    if (first < 0) setBit(inside, index.order[i]!);
    else exiting.push([index.chars[i]!.slice(first) as string[], index.order[i]!]);
  }
  return { last, inside, exiting: inside ? buildTrie(exiting).root : undefined, splits: new Map() };
}

const setBit = (mask: Uint32Array, id: number): void => {
  mask[id >>> 5]! |= 1 << (id & 31);
};
export const hasBit = (mask: Uint32Array, id: number): boolean => (mask[id >>> 5]! & (1 << (id & 31))) !== 0;

/**
 * A matcher state met by the mask walk, kept with its transitions: a lazily built automaton over
 * characters. A fresh state's mask walks the trie from states that earlier walks have mostly
 * met already (the state after `/pe` was a step of the walk from `/`), and then a child costs
 * an array read instead of a matcher copy and a character step.
 */
interface Known {
  readonly matcher: ConstraintMatcher;
  readonly key: string;
  readonly open: CharClass | undefined;
  readonly asciiOnly: boolean;
  /** Per ASCII character: 0 not tried yet, -1 no way on, else 1 + the index of the next state. */
  readonly ascii: Int32Array;
  /** The same for characters beyond ASCII, made on first use. */
  other: Map<string, number> | undefined;
}

/** States kept before the automaton is dropped and built again (each holds a 512-byte table). */
const MAX_KNOWN = 40_000;

/**
 * One automaton per compiled language (a spec and the names values may reference): state keys
 * mean the same across its matchers, and the characters' transitions do not depend on the
 * vocabulary, so every TokenConstraint of a language (one per slot of a run) shares it.
 */
interface Automaton {
  known: Map<string, number>;
  states: Known[];
}
const automata = new WeakMap<CompiledSpec, Automaton>();

/**
 * Token-level view of a character matcher: `check` for the fast path (is the model's own pick
 * allowed?), `mask` for the full set of allowed tokens as a bitmask. End of generation is allowed
 * only when no invocation is open; tokens that are not whole UTF-8 text are allowed only there too.
 */
export class TokenConstraint {
  private readonly index: TokenIndex;
  private readonly masks = new Map<string, Uint32Array>();
  /** Within one mask: per state, the texts (from a first exit on) already fed, and whether they passed. */
  private decided = new Map<string, Map<string, boolean>>();
  /** The states met by mask walks (see Known), by state key and by index; shared per language. */
  private readonly automaton: Automaton;

  private readonly start: ConstraintMatcher;

  constructor(
    vocabulary: Vocabulary,
    private matcher: ConstraintMatcher,
  ) {
    this.index = tokenIndex(vocabulary);
    this.start = matcher.clone();
    let automaton = automata.get(matcher.language);
    if (!automaton) automata.set(matcher.language, (automaton = { known: new Map(), states: [] }));
    this.automaton = automaton;
  }

  /** Back to the matcher it was made with, keeping the memoised masks (one per API in a run). */
  reset(): void {
    this.matcher = this.start.clone();
  }

  /** True when the current state's mask is memoised. */
  memoised(): boolean {
    return this.masks.has(this.matcher.stateKey());
  }

  get vocabularySize(): number {
    return this.index.vocabulary.text.length;
  }

  get state(): ConstraintMatcher {
    return this.matcher;
  }

  check(token: number): boolean {
    const vocabulary = this.index.vocabulary;
    if (vocabulary.eos.includes(token)) return this.matcher.isComplete();
    const text = vocabulary.text[token];
    if (text === undefined) return false;
    if (text === null || text === '') return this.matcher.isComplete() && !this.matcher.pending;
    const copy = this.matcher.clone();
    return copy.feed(text).ok;
  }

  /** Appends a token the caller has checked; returns false (and changes nothing) when it is not allowed. */
  advance(token: number): boolean {
    if (!this.check(token)) return false;
    const text = this.index.vocabulary.text[token];
    if (text) this.matcher.feed(text);
    return true;
  }

  /**
   * Every allowed token; memoised per state. The trie is walked with the character matcher only
   * until the state has an open class (string contents, identifiers, free text); from there the
   * tokens whose rest holds no exit character are allowed without a look, and only the others
   * are fed to the matcher. That lexer-level split keeps a mask inside a string literal from
   * visiting 150,000 tokens character by character.
   */
  mask(): Uint32Array {
    const key = this.matcher.stateKey();
    const cached = this.masks.get(key);
    if (cached) return cached;
    const mask = new Uint32Array(this.index.words);
    this.decided = new Map();
    // Dropped between walks only (walks are synchronous): a walk holds indexes into `states`.
    if (this.automaton.states.length > MAX_KNOWN) {
      this.automaton.known = new Map();
      this.automaton.states = [];
    }
    this.walk(this.index.root, this.automaton.states[this.intern(this.matcher.clone(), key) - 1]!, mask);
    if (this.matcher.isComplete()) {
      for (const id of this.index.vocabulary.eos) setBit(mask, id);
      if (!this.matcher.pending) for (const id of this.index.partial) setBit(mask, id);
    }
    if (this.masks.size > 2048) this.masks.clear();
    this.masks.set(key, mask);
    return mask;
  }

  /** The index (+1) of a state in the automaton, added when new. */
  private intern(matcher: ConstraintMatcher, key = matcher.stateKey()): number {
    const { known, states } = this.automaton;
    const found = known.get(key);
    if (found !== undefined) return found;
    states.push({ matcher, key, open: matcher.openClass(), asciiOnly: matcher.asciiOnly(), ascii: new Int32Array(128), other: undefined });
    known.set(key, states.length);
    return states.length;
  }

  /** The state after one more character, or undefined when it cannot follow. */
  private next(state: Known, ch: string): Known | undefined {
    const code = ch.charCodeAt(0);
    let to = code < 128 ? state.ascii[code]! : state.other?.get(ch);
    if (!to) {
      const matcher = state.matcher.clone();
      to = matcher.push(ch) ? this.intern(matcher) : -1;
      if (code < 128) state.ascii[code] = to;
      else (state.other ??= new Map()).set(ch, to);
    }
    return to > 0 ? this.automaton.states[to - 1] : undefined;
  }

  /** Allows the tokens of a subtree of the vocabulary's trie that the state accepts. */
  private walk(node: TrieNode, state: Known, mask: Uint32Array): void {
    if (state.open && this.scan(node, state.matcher, state.key, state.open, mask)) return;
    for (const id of node.tokens) setBit(mask, id);
    const { keys, nodes } = node;
    for (let i = 0, n = state.asciiOnly ? node.ascii : keys.length; i < n; i++) {
      const next = this.next(state, keys[i]!);
      if (next) this.walk(nodes[i]!, next, mask);
    }
  }

  /**
   * Walks a trie of texts from their first exit on, from a stable state; prefixes found dead are
   * remembered in `decided`, since the other subtrees scanned from this state meet them again.
   */
  private walkExits(node: TrieNode, state: ConstraintMatcher, text: string, decided: Map<string, boolean>, mask: Uint32Array): void {
    for (const id of node.tokens) setBit(mask, id);
    const { keys, nodes } = node;
    for (let i = 0, n = state.asciiOnly() ? node.ascii : keys.length; i < n; i++) {
      const ch = keys[i]!;
      const prefix = text + ch;
      if (decided.get(prefix) === false) continue;
      const next = state.clone();
      if (next.push(ch)) this.walkExits(nodes[i]!, next, prefix, decided, mask);
      else decided.set(prefix, false);
    }
  }

  /**
   * Allows the tokens of a subtree whose rest the state's open class accepts, and checks the
   * others; declines (false) when the others are too many to check one by one, so the walk
   * descends a level instead (an identifier at the root: every token with a space is an other).
   */
  private scan(node: TrieNode, state: ConstraintMatcher, key: string, cls: CharClass, mask: Uint32Array): boolean {
    const { order, chars } = this.index;
    const table = this.index.classes.get(cls.key);
    if (!table) throw new Error(`bug: the character class ${cls.key} was made after the vocabulary was prepared`);
    let decided = this.decided.get(key);
    if (!decided) this.decided.set(key, (decided = new Map()));
    const stable = cls.stable || (cls.probe !== undefined && probeStable(state, key, cls.probe, decided));
    if (node.depth === 0 && stable && table.inside && table.exiting) {
      // The whole vocabulary in a stable state: the precomputed inside set, then the others'
      // texts from their first exit on, walked as a trie (they share prefixes such as `',`).
      for (let w = 0; w < mask.length; w++) mask[w]! |= table.inside[w]!;
      this.walkExits(table.exiting, state, '', decided, mask);
      return true;
    }
    let split = table.splits.get(node);
    if (!split) {
      // Decline before building anything when the others are too many (see below).
      let others = 0;
      for (let i = node.lo; i < node.hi; i++) if (table.last[i]! >= node.depth) others++;
      if (declines(others, node)) return false;
      const inside: number[] = [];
      const byRest = new Map<string, number[]>();
      const exiting: [string[], number][] = [];
      for (let i = node.lo; i < node.hi; i++) {
        if (table.last[i]! < node.depth) {
          inside.push(order[i]!);
          continue;
        }
        const rest = chars[i]!;
        let from = node.depth;
        while (!cls.exits(rest[from]!)) from++;
        group(byRest, rest.slice(node.depth).join(''), order[i]!);
        exiting.push([rest.slice(from) as string[], order[i]!]);
      }
      table.splits.set(node, (split = { inside: Int32Array.from(inside), others: exiting.length, byRest, exiting: buildTrie(exiting).root }));
    }
    if (declines(split.others, node)) return false;
    for (const id of split.inside) setBit(mask, id);
    // In a stable state, tokens whose texts agree from their first exit on are decided together.
    if (stable) {
      this.walkExits(split.exiting, state, '', decided, mask);
      return true;
    }
    for (const [text, ids] of split.byRest) {
      let ok = decided.get(text);
      if (ok === undefined) {
        ok = state.clone().feed(text).ok;
        decided.set(text, ok);
      }
      if (ok) for (const id of ids) setBit(mask, id);
    }
    return true;
  }
}

const declines = (others: number, node: TrieNode): boolean => others > 64 && others * 8 > node.hi - node.lo && node.keys.length > 0;

/**
 * True when every character of `probe` leaves the state as it was: an identifier is stable
 * where its parent takes none of them. The answer is kept in `decided` under the empty text.
 */
function probeStable(state: ConstraintMatcher, key: string, probe: string, decided: Map<string, boolean>): boolean {
  let stable = decided.get('');
  if (stable === undefined) {
    stable = [...probe].every((c) => {
      const next = state.clone();
      return next.push(c) && next.stateKey() === key;
    });
    decided.set('', stable);
  }
  return stable;
}
