import type { ConstraintMatcher } from './matcher.js';
import type { Vocabulary } from './vocabulary.js';

/** A character trie over the vocabulary's token texts: each node lists the tokens that end there. */
interface TrieNode {
  readonly children: Map<string, TrieNode>;
  readonly tokens: number[];
}

export interface TokenIndex {
  readonly vocabulary: Vocabulary;
  readonly root: TrieNode;
  /** Tokens that are neither text nor end-of-generation: partial UTF-8 bytes, control tokens. */
  readonly partial: readonly number[];
  readonly words: number;
}

const indexes = new WeakMap<Vocabulary, TokenIndex>();

/** The flat token trie of a vocabulary, built once per vocabulary. */
export function tokenIndex(vocabulary: Vocabulary): TokenIndex {
  let index = indexes.get(vocabulary);
  if (index) return index;
  const root: TrieNode = { children: new Map(), tokens: [] };
  const partial: number[] = [];
  const eos = new Set(vocabulary.eos);
  vocabulary.text.forEach((text, id) => {
    if (eos.has(id)) return;
    if (text === null || text === '') {
      partial.push(id);
      return;
    }
    let node = root;
    for (const ch of text) {
      let child = node.children.get(ch);
      if (!child) node.children.set(ch, (child = { children: new Map(), tokens: [] }));
      node = child;
    }
    node.tokens.push(id);
  });
  index = { vocabulary, root, partial, words: Math.ceil(vocabulary.text.length / 32) };
  indexes.set(vocabulary, index);
  return index;
}

const setBit = (mask: Uint32Array, id: number): void => {
  mask[id >>> 5]! |= 1 << (id & 31);
};
export const hasBit = (mask: Uint32Array, id: number): boolean => (mask[id >>> 5]! & (1 << (id & 31))) !== 0;

/**
 * Token-level view of a character matcher: `check` for the fast path (is the model's own pick
 * allowed?), `mask` for the full set of allowed tokens as a bitmask. End of generation is allowed
 * only when no invocation is open; tokens that are not whole UTF-8 text are allowed only there too.
 */
export class TokenConstraint {
  private readonly index: TokenIndex;
  private readonly masks = new Map<string, Uint32Array>();

  constructor(
    vocabulary: Vocabulary,
    private matcher: ConstraintMatcher,
  ) {
    this.index = tokenIndex(vocabulary);
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

  /** Every allowed token, walking the token trie from the current state and pruning dead branches; memoised per state. */
  mask(): Uint32Array {
    const key = this.matcher.stateKey();
    const cached = this.masks.get(key);
    if (cached) return cached;
    const mask = new Uint32Array(this.index.words);
    const walk = (node: TrieNode, state: ConstraintMatcher): void => {
      for (const id of node.tokens) setBit(mask, id);
      for (const [ch, child] of node.children) {
        const next = state.clone();
        if (next.push(ch)) walk(child, next);
      }
    };
    walk(this.index.root, this.matcher);
    if (this.matcher.isComplete()) {
      for (const id of this.index.vocabulary.eos) setBit(mask, id);
      if (!this.matcher.pending) for (const id of this.index.partial) setBit(mask, id);
    }
    if (this.masks.size > 256) this.masks.clear();
    this.masks.set(key, mask);
    return mask;
  }
}
