import type { ObjectRule, ValueRule } from './rules.js';

/**
 * The matcher's states: a stack of immutable frames per thread (a persistent linked list, so a
 * copy of the whole matcher is a copy of a few pointers). `step` consumes one character and
 * returns the successor stacks; a frame that `canEnd` also hands the character to its parent.
 */
export interface Frame {
  step(c: string, parent: Stack): Stack[];
  canEnd(): boolean;
  /** Shortest text that lets this frame end (for the bottom frame: that closes every invocation). */
  completion(): string;
  /** Identifies equal states, so threads that converge are kept once. */
  readonly id: string;
  /**
   * A class of characters any sequence of which this frame accepts without ending (string
   * contents, identifier characters, free text): the token mask takes every token whose rest
   * lies in it without walking the trie. Undefined where no such class pays off.
   */
  openClass?(): CharClass | undefined;
  /**
   * True when the frame itself takes no character beyond ASCII next (a frame that may end also
   * hands the character to its parent, which answers for itself). Absent means it might: the
   * token mask then looks at all 17,000 first characters of a vocabulary instead of 128.
   */
  asciiOnly?(): boolean;
}

const isAscii = (c: string): boolean => c.charCodeAt(0) < 128;
/** True when no option continuing `text` goes on with a character beyond ASCII. */
export const asciiNext = (options: readonly string[], text: string): boolean =>
  options.every((o) => !o.startsWith(text) || o.length === text.length || isAscii(o[text.length]!));

/**
 * A character class given by its complement (the exits). `key` names it for caching; `stable`
 * says the frame's state is unchanged by the class's characters, so two tokens whose texts
 * agree from their first exit on are allowed alike.
 */
export interface CharClass {
  readonly key: string;
  readonly exits: (c: string) => boolean;
  readonly stable: boolean;
  /** For a class stable only in some contexts: all its characters, to try one by one. */
  readonly probe?: string;
}

const classes = new Map<string, CharClass>();
/** One instance per key, so per-class tables are built once. */
export function charClass(key: string, exits: (c: string) => boolean, stable: boolean, probe?: string): CharClass {
  let cls = classes.get(key);
  if (!cls) classes.set(key, (cls = probe === undefined ? { key, exits, stable } : { key, exits, stable, probe }));
  return cls;
}
export type Stack = { readonly frame: Frame; readonly parent: Stack } | null;

export const push = (frame: Frame, parent: Stack): Stack => ({ frame, parent });
export const isWs = (c: string): boolean => c === ' ' || c === '\n' || c === '\t' || c === '\r';
const IDENT_START = /[A-Za-z_$]/;
const IDENT = /[\w$]/;
const IDENT_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$';
/** A key that may be written bare. */
export const IDENTIFIER_NAME = /^[A-Za-z_$][\w$]*$/;
export const QUOTES = new Set(["'", '"', '`']);
const BRACKETS = new Set(['(', ')', '[', ']', '{', '}']);

/** Feeds one character to a stack: the top frame's own steps, plus its parent's when it may end here. */
export function stepStack(stack: Stack, c: string, out: Stack[]): void {
  if (!stack) return;
  for (const next of stack.frame.step(c, stack.parent)) out.push(next);
  if (stack.frame.canEnd()) stepStack(stack.parent, c, out);
}

/** The shortest text that finishes every frame of a stack, top first: how a constrained model ends. */
export function stackCompletion(stack: Stack): string {
  let text = '';
  for (let s = stack; s; s = s.parent) text += s.frame.completion();
  return text;
}

/** The shortest literal a rule accepts. */
export function minimalValue(rule: ValueRule, quote = "'"): string {
  switch (rule.kind) {
    case 'any':
    case 'number':
    case 'integer':
      return '0';
    case 'string':
      return rule.enum ? quote + [...rule.enum].sort((a, b) => a.length - b.length)[0]! + quote : quote + quote;
    case 'boolean':
      return 'true';
    case 'null':
      return 'null';
    case 'array':
      return '[]';
    case 'object':
      return '{' + ObjectFrame.open(rule).completion();
    case 'union':
      return rule.options.map((o) => minimalValue(o, quote)).sort((a, b) => a.length - b.length)[0] ?? '0';
  }
}

export function stackId(stack: Stack): string {
  let id = '';
  for (let s = stack; s; s = s.parent) id += s.frame.id + '|';
  return id;
}

// --- literals ------------------------------------------------------------------------------

/** A fixed word (`true`, `null`, `.then(`): each character in turn. */
export class WordFrame implements Frame {
  constructor(
    readonly word: string,
    readonly pos: number,
  ) {}
  get id(): string {
    return `w${this.word}${this.pos}`;
  }
  asciiOnly(): boolean {
    return true;
  }
  step(c: string, parent: Stack): Stack[] {
    return this.word[this.pos] === c ? [push(new WordFrame(this.word, this.pos + 1), parent)] : [];
  }
  canEnd(): boolean {
    return this.pos === this.word.length;
  }
  completion(): string {
    return this.word.slice(this.pos);
  }
}

/** A string literal in any quote; escapes keep an escaped quote inside; an enum restricts the content. */
export class StringFrame implements Frame {
  constructor(
    readonly quote: string,
    readonly text: string,
    readonly escape: boolean,
    readonly options: readonly string[] | null,
    readonly closed: boolean,
  ) {}
  get id(): string {
    // A backtick string remembers a trailing `$` (the start of `${`); otherwise only enums need the text.
    return `s${this.quote}${this.closed ? 'c' : ''}${this.escape ? 'e' : ''}${this.options || this.text === '$' ? this.text : ''}`;
  }
  asciiOnly(): boolean {
    return this.closed || (this.options !== null && asciiNext(this.options, this.text));
  }
  openClass(): CharClass | undefined {
    if (this.closed || this.escape || this.options || this.text === '$') return undefined;
    const q = this.quote;
    return q === '`'
      ? charClass('s`', (c) => c === '`' || c === '\\' || c === '$', true)
      : charClass(`s${q}`, (c) => c === q || c === '\\' || c === '\n', true);
  }
  step(c: string, parent: Stack): Stack[] {
    if (this.closed) return [];
    if (this.escape) return this.options ? [] : [push(new StringFrame(this.quote, '', false, null, false), parent)];
    if (c === this.quote) {
      if (this.options && !this.options.includes(this.text)) return [];
      return [push(new StringFrame(this.quote, this.text, false, this.options, true), parent)];
    }
    if (c === '\n' && this.quote !== '`') return [];
    if (this.options) {
      const text = this.text + c;
      return this.options.some((o) => o.startsWith(text)) ? [push(new StringFrame(this.quote, text, false, this.options, false), parent)] : [];
    }
    if (c === '\\') return [push(new StringFrame(this.quote, '', true, null, false), parent)];
    if (this.quote === '`' && c === '{' && this.text === '$') return [push(new BalancedFrame('}', 0, null), push(new StringFrame(this.quote, '', false, null, false), parent))];
    return [push(new StringFrame(this.quote, c === '$' ? '$' : '', false, null, false), parent)];
  }
  canEnd(): boolean {
    return this.closed;
  }
  completion(): string {
    if (this.closed) return '';
    if (this.escape) return 'n' + this.quote;
    if (this.options) return ([...this.options].filter((o) => o.startsWith(this.text)).sort((a, b) => a.length - b.length)[0] ?? this.text).slice(this.text.length) + this.quote;
    return this.quote;
  }
}

/** A number literal: `-`? digits (`.` digits)? (`e` [+-]? digits)?; integers without fraction or exponent. */
export class NumberFrame implements Frame {
  constructor(
    readonly integer: boolean,
    readonly state: 'sign' | 'int' | 'dot' | 'frac' | 'e' | 'esign' | 'exp',
  ) {}
  get id(): string {
    return `n${this.integer ? 'i' : ''}${this.state}`;
  }
  asciiOnly(): boolean {
    return true;
  }
  step(c: string, parent: Stack): Stack[] {
    const digit = c >= '0' && c <= '9';
    const to = (state: NumberFrame['state']): Stack[] => [push(new NumberFrame(this.integer, state), parent)];
    switch (this.state) {
      case 'sign':
        return digit ? to('int') : [];
      case 'int':
        if (digit) return to('int');
        if (this.integer) return [];
        return c === '.' ? to('dot') : c === 'e' || c === 'E' ? to('e') : [];
      case 'dot':
        return digit ? to('frac') : [];
      case 'frac':
        return digit ? to('frac') : c === 'e' || c === 'E' ? to('e') : [];
      case 'e':
        return digit ? to('exp') : c === '+' || c === '-' ? to('esign') : [];
      case 'esign':
      case 'exp':
        return digit ? to('exp') : [];
    }
  }
  canEnd(): boolean {
    return this.state === 'int' || this.state === 'frac' || this.state === 'exp';
  }
  completion(): string {
    return this.canEnd() ? '' : '0';
  }
}

/** Text up to a closing bracket, with nested brackets and strings balanced: call arguments, `${...}`. */
export class BalancedFrame implements Frame {
  constructor(
    readonly close: string,
    readonly depth: number,
    readonly inString: string | null,
    readonly escaped = false,
    readonly done = false,
  ) {}
  get id(): string {
    return `b${this.close}${this.depth}${this.inString ?? ''}${this.escaped ? 'e' : ''}${this.done ? 'd' : ''}`;
  }
  asciiOnly(): boolean {
    return this.done;
  }
  openClass(): CharClass | undefined {
    if (this.done || this.escaped) return undefined;
    const q = this.inString;
    if (q) return charClass(`b${q}`, (c) => c === q || c === '\\', true);
    return charClass('b', (c) => QUOTES.has(c) || BRACKETS.has(c), true);
  }
  step(c: string, parent: Stack): Stack[] {
    if (this.done) return [];
    const next = (depth: number, inString: string | null, escaped = false, done = false): Stack[] => [push(new BalancedFrame(this.close, depth, inString, escaped, done), parent)];
    if (this.inString) {
      if (this.escaped) return next(this.depth, this.inString);
      if (c === '\\') return next(this.depth, this.inString, true);
      return c === this.inString ? next(this.depth, null) : next(this.depth, this.inString);
    }
    if (QUOTES.has(c)) return next(this.depth, c);
    if (c === '(' || c === '[' || c === '{') return next(this.depth + 1, null);
    if (c === ')' || c === ']' || c === '}') {
      if (this.depth === 0) return c === this.close ? next(0, null, false, true) : [];
      return next(this.depth - 1, null);
    }
    return next(this.depth, null);
  }
  canEnd(): boolean {
    return this.done;
  }
  completion(): string {
    if (this.done) return '';
    const closeString = this.inString ? (this.escaped ? 'n' : '') + this.inString : '';
    return closeString + ')'.repeat(this.depth) + this.close;
  }
}

/** An identifier expression: `name`, `a.b`, `a[0]`, `f(x)`, `process.env.TOKEN`. */
export class IdentifierFrame implements Frame {
  constructor(readonly state: 'ident' | 'dot') {}
  get id(): string {
    return `i${this.state}`;
  }
  asciiOnly(): boolean {
    return true;
  }
  openClass(): CharClass | undefined {
    // Stable only where the parent takes no identifier character: an identifier may end anywhere.
    return this.state === 'ident' ? charClass('i', (c) => !IDENT.test(c), false, IDENT_CHARS) : undefined;
  }
  step(c: string, parent: Stack): Stack[] {
    if (this.state === 'dot') return IDENT_START.test(c) ? [push(new IdentifierFrame('ident'), parent)] : [];
    if (IDENT.test(c)) return [push(this, parent)];
    if (c === '.') return [push(new IdentifierFrame('dot'), parent)];
    if (c === '(') return [push(new BalancedFrame(')', 0, null), push(this, parent))];
    if (c === '[') return [push(new BalancedFrame(']', 0, null), push(this, parent))];
    return [];
  }
  canEnd(): boolean {
    return this.state === 'ident';
  }
  completion(): string {
    return this.state === 'dot' ? 'a' : '';
  }
}

// --- values by rule --------------------------------------------------------------------------

/** The first character of a value: whitespace, then whichever literal the rule allows, or an identifier. */
export class ValueFrame implements Frame {
  constructor(readonly rule: ValueRule) {}
  get id(): string {
    return `v${ruleId(this.rule)}`;
  }
  asciiOnly(): boolean {
    return true;
  }
  step(c: string, parent: Stack): Stack[] {
    if (isWs(c)) return [push(this, parent)];
    const out: Stack[] = [];
    startValue(this.rule, c, parent, out);
    if (IDENT_START.test(c)) out.push(push(new IdentifierFrame('ident'), parent));
    return out;
  }
  canEnd(): boolean {
    return false;
  }
  completion(): string {
    return minimalValue(this.rule);
  }
}

const ruleIds = new WeakMap<object, string>();
let nextRuleId = 0;
function ruleId(rule: ValueRule): string {
  let id = ruleIds.get(rule);
  if (!id) ruleIds.set(rule, (id = String(nextRuleId++)));
  return id;
}

function startValue(rule: ValueRule, c: string, parent: Stack, out: Stack[]): void {
  switch (rule.kind) {
    case 'union':
      for (const o of rule.options) startValue(o, c, parent, out);
      return;
    case 'any':
      if (QUOTES.has(c)) out.push(push(new StringFrame(c, '', false, null, false), parent));
      if (c === '-' || (c >= '0' && c <= '9')) out.push(push(new NumberFrame(false, c === '-' ? 'sign' : 'int'), parent));
      for (const w of ['true', 'false', 'null']) if (w[0] === c) out.push(push(new WordFrame(w, 1), parent));
      if (c === '{') out.push(push(ObjectFrame.open(ANY_OBJECT), parent));
      if (c === '[') out.push(push(new ArrayFrame(ANY_ARRAY, 0, 'first'), parent));
      return;
    case 'string':
      if (QUOTES.has(c)) out.push(push(new StringFrame(c, '', false, rule.enum ?? null, false), parent));
      return;
    case 'number':
    case 'integer':
      if (c === '-' || (c >= '0' && c <= '9')) out.push(push(new NumberFrame(rule.kind === 'integer', c === '-' ? 'sign' : 'int'), parent));
      return;
    case 'boolean':
      for (const w of ['true', 'false']) if (w[0] === c) out.push(push(new WordFrame(w, 1), parent));
      return;
    case 'null':
      if (c === 'n') out.push(push(new WordFrame('null', 1), parent));
      return;
    case 'array':
      if (c === '[') out.push(push(new ArrayFrame(rule, 0, 'first'), parent));
      return;
    case 'object':
      if (c === '{') out.push(push(ObjectFrame.open(rule), parent));
      return;
  }
}

const ANY_OBJECT: ObjectRule = { kind: 'object', keys: [], rules: new Map(), required: 0n, additional: { kind: 'any' } };
const ANY_ARRAY = { kind: 'array' as const, items: { kind: 'any' as const }, maxItems: Number.MAX_SAFE_INTEGER };

export class ArrayFrame implements Frame {
  constructor(
    readonly rule: Extract<ValueRule, { kind: 'array' }>,
    readonly count: number,
    readonly state: 'first' | 'after' | 'comma' | 'closed',
  ) {}
  get id(): string {
    return `a${ruleId(this.rule)}.${this.count}.${this.state}`;
  }
  asciiOnly(): boolean {
    return true;
  }
  step(c: string, parent: Stack): Stack[] {
    if (this.state === 'closed') return [];
    if (isWs(c)) return [push(this, parent)];
    if (c === ']') return [push(new ArrayFrame(this.rule, this.count, 'closed'), parent)];
    if (this.state === 'after') return c === ',' ? [push(new ArrayFrame(this.rule, this.count, 'comma'), parent)] : [];
    // 'first' or 'comma': an item may start, if the array has room.
    if (this.count >= this.rule.maxItems) return [];
    return new ValueFrame(this.rule.items).step(c, push(new ArrayFrame(this.rule, this.count + 1, 'after'), parent));
  }
  canEnd(): boolean {
    return this.state === 'closed';
  }
  completion(): string {
    return this.state === 'closed' ? '' : ']';
  }
}

/**
 * An object literal with set semantics: each declared key at most once (a bit in `seen`), `}`
 * only when every required key is present; open objects also take any other key.
 */
export class ObjectFrame implements Frame {
  constructor(
    readonly rule: ObjectRule,
    readonly seen: bigint,
    readonly state: 'key' | 'comma' | 'inKey' | 'colon' | 'after' | 'closed',
    readonly keyQuote: string | null,
    readonly keyText: string,
  ) {}
  static open(rule: ObjectRule): ObjectFrame {
    return new ObjectFrame(rule, 0n, 'key', null, '');
  }
  get id(): string {
    return `o${ruleId(this.rule)}.${this.seen}.${this.state}.${this.keyQuote ?? ''}${this.keyText}`;
  }
  asciiOnly(): boolean {
    if (this.state !== 'inKey' || !this.keyQuote) return true;
    return !this.rule.additional && asciiNext(this.rule.keys, this.keyText);
  }
  openClass(): CharClass | undefined {
    // An open object's quoted key takes any text (not stable: a declared key's name means its own rule).
    const q = this.keyQuote;
    if (this.state !== 'inKey' || !this.rule.additional) return undefined;
    if (!q) return charClass('k', (c) => !IDENT.test(c), false);
    return charClass(`k${q}`, (c) => c === q || c === '\n' || c === '\\', false);
  }
  private with(state: ObjectFrame['state'], keyQuote: string | null = null, keyText = '', seen = this.seen): ObjectFrame {
    return new ObjectFrame(this.rule, seen, state, keyQuote, keyText);
  }
  /** Could `text` still grow into a key this object accepts? A bare key must be an identifier all along. */
  private keyPrefixOk(text: string, bare: boolean): boolean {
    if (this.rule.additional) return true;
    return this.rule.keys.some((k, i) => k.startsWith(text) && !(this.seen & (1n << BigInt(i))) && (!bare || IDENTIFIER_NAME.test(k)));
  }
  private keyDone(text: string): { index: number; rule: ValueRule } | null {
    const index = this.rule.keys.indexOf(text);
    if (index >= 0) return this.seen & (1n << BigInt(index)) ? null : { index, rule: this.rule.rules.get(text)! };
    return this.rule.additional ? { index: -1, rule: this.rule.additional } : null;
  }
  step(c: string, parent: Stack): Stack[] {
    switch (this.state) {
      case 'closed':
        return [];
      case 'key':
      case 'comma': {
        if (isWs(c)) return [push(this, parent)];
        if (c === '}') return (this.seen & this.rule.required) === this.rule.required ? [push(this.with('closed'), parent)] : [];
        if (QUOTES.has(c) && c !== '`') return this.keyPrefixOk('', false) ? [push(this.with('inKey', c, ''), parent)] : [];
        if (IDENT_START.test(c) && this.keyPrefixOk(c, true)) return [push(this.with('inKey', null, c), parent)];
        return [];
      }
      case 'inKey': {
        if (this.keyQuote) {
          if (c === this.keyQuote) return this.keyDone(this.keyText) ? [push(this.with('colon', null, this.keyText), parent)] : [];
          if (c === '\n' || c === '\\') return [];
          const text = this.keyText + c;
          return this.keyPrefixOk(text, false) ? [push(this.with('inKey', this.keyQuote, text), parent)] : [];
        }
        if (IDENT.test(c)) {
          const text = this.keyText + c;
          return this.keyPrefixOk(text, true) ? [push(this.with('inKey', null, text), parent)] : [];
        }
        if (!this.keyDone(this.keyText)) return [];
        return this.with('colon', null, this.keyText).step(c, parent);
      }
      case 'colon': {
        if (isWs(c)) return [push(this, parent)];
        if (c !== ':') return [];
        const key = this.keyDone(this.keyText);
        if (!key) return [];
        const seen = key.index >= 0 ? this.seen | (1n << BigInt(key.index)) : this.seen;
        return [push(new ValueFrame(key.rule), push(this.with('after', null, '', seen), parent))];
      }
      case 'after':
        if (isWs(c)) return [push(this, parent)];
        if (c === ',') return [push(this.with('comma'), parent)];
        if (c === '}') return (this.seen & this.rule.required) === this.rule.required ? [push(this.with('closed'), parent)] : [];
        return [];
    }
  }
  canEnd(): boolean {
    return this.state === 'closed';
  }
  /** The required keys still missing, each with its shortest value, then `}`. */
  private rest(seen: bigint, leadingComma: boolean): string {
    const missing = this.rule.keys.filter((k, i) => (this.rule.required & (1n << BigInt(i))) !== 0n && !(seen & (1n << BigInt(i))));
    const pairs = missing.map((k) => `${IDENTIFIER_NAME.test(k) ? k : `'${k}'`}: ${minimalValue(this.rule.rules.get(k)!)}`);
    return (pairs.length > 0 ? (leadingComma ? ', ' : '') + pairs.join(', ') : '') + '}';
  }
  completion(): string {
    switch (this.state) {
      case 'closed':
        return '';
      case 'key':
      case 'comma':
        return this.rest(this.seen, false);
      case 'after':
        return this.rest(this.seen, true);
      case 'colon':
      case 'inKey': {
        let key = this.keyText;
        let tail = this.keyQuote ?? '';
        if (this.state === 'inKey' && !this.keyDone(key)) {
          const unseen = this.rule.keys.filter((k, i) => k.startsWith(key) && !(this.seen & (1n << BigInt(i))) && (this.keyQuote !== null || IDENTIFIER_NAME.test(k)));
          const required = unseen.filter((k) => (this.rule.required & (1n << BigInt(this.rule.keys.indexOf(k)))) !== 0n);
          const pick = required[0] ?? unseen[0];
          if (pick !== undefined) {
            tail = pick.slice(key.length) + tail;
            key = pick;
          } else {
            // An open object: the key typed so far is a key of its own.
            tail = (key === '' ? 'a' : '') + tail;
            key = key === '' ? 'a' : key;
          }
        } else if (this.state === 'colon') tail = '';
        const done = this.keyDone(key)!;
        const seen = done.index >= 0 ? this.seen | (1n << BigInt(done.index)) : this.seen;
        return `${tail}: ${minimalValue(done.rule)}${new ObjectFrame(this.rule, seen, 'after', null, '').completion()}`;
      }
    }
  }
}
