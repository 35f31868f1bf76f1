/** Identifies a matcher's state within its language: its stack's number, or (several threads) their numbers. */
export type StateKey = number | string;

/**
 * The token mask's automaton states by key (see TokenConstraint.intern): a key that is one
 * stack's number goes into an open-addressing table of two typed arrays, sized when the
 * automaton is made; the keys of several threads (text, few) go into a Map.
 *
 * Written by hand because the Map it replaces grew by doubling, and each of its last doublings
 * allocated and filled a fresh table of up to a megabyte inside one first-time mask: on this
 * project's 2-core machine a fresh 4 KB page costs a fault of about 17 µs on its first write, and
 * the Map's growth was a sixth of the faults inside first-time masks. These arrays are written
 * through once when made (see `touch`), outside any mask, and cleared in place.
 */
export class StateTable {
  /** Key + 2 per slot (0: empty; stack numbers start at -1, the empty stack). */
  private keys: Int32Array;
  private values: Int32Array;
  private used = 0;
  private readonly texts = new Map<StateKey, number>();

  /** Room for `expected` number keys before the arrays grow (they stay at most half full). */
  constructor(expected: number) {
    let slots = 16;
    while (slots < expected * 2) slots *= 2;
    this.keys = new Int32Array(slots);
    this.values = new Int32Array(slots);
  }

  /** Bytes of the arrays, to write through now (see emptyAutomaton's prefault budget). */
  get byteLength(): number {
    return this.keys.byteLength + this.values.byteLength;
  }

  /** Writes a word of every page of the arrays, so that their faults come now. */
  touch(): void {
    for (let at = 0; at < this.keys.length; at += 1024) this.keys[at] = this.values[at] = 0;
  }

  get(key: StateKey): number | undefined {
    const k = slotKey(key);
    if (k === 0) return this.texts.get(key);
    const { keys } = this;
    const last = keys.length - 1;
    for (let at = hash(k) & last; ; at = (at + 1) & last) {
      const there = keys[at]!;
      if (there === k) return this.values[at];
      if (there === 0) return undefined;
    }
  }

  /** Sets a key's value (a new key, or one already there). */
  set(key: StateKey, value: number): void {
    const k = slotKey(key);
    if (k === 0) {
      this.texts.set(key, value);
      return;
    }
    if ((this.used + 1) * 2 > this.keys.length) this.grow();
    this.place(k, value);
  }

  /** Empties the table in place (its pages stay in). */
  clear(): void {
    this.keys.fill(0);
    this.used = 0;
    this.texts.clear();
  }

  private place(k: number, value: number): void {
    const { keys } = this;
    const last = keys.length - 1;
    let at = hash(k) & last;
    while (keys[at] !== 0 && keys[at] !== k) at = (at + 1) & last;
    if (keys[at] === 0) this.used++;
    keys[at] = k;
    this.values[at] = value;
  }

  /** Twice the slots, every key placed again: only past the expected count (a walk past the automaton's limit). */
  private grow(): void {
    const { keys, values } = this;
    this.keys = new Int32Array(keys.length * 2);
    this.values = new Int32Array(keys.length * 2);
    this.used = 0;
    for (let at = 0; at < keys.length; at++) if (keys[at] !== 0) this.place(keys[at]!, values[at]!);
  }
}

/** A number key's slot key (key + 2), or 0 for a key the arrays do not hold: text, or past int32. */
function slotKey(key: StateKey): number {
  return typeof key === 'number' && key >= -1 && key <= 0x7ffffffd ? key + 2 : 0;
}

/** Fibonacci hashing: stack numbers are dense, and this spreads neighbours apart. */
function hash(k: number): number {
  return Math.imul(k, 0x9e3779b1) >>> 0;
}
