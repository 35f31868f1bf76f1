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
  /** Identifies equal states, so threads that converge are kept once. Made once per frame (frames are immutable). */
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
  /**
   * The ASCII characters the frame itself may take next, or a superset of them: a character
   * outside is refused for sure (a frame that may end also hands it to its parent, which answers
   * for itself). The token mask tries a new state on each first character of a trie node, and
   * most are refused; this answers those without a copy and a step. Absent means any.
   */
  nextAscii?(): AsciiSet | undefined;
  /**
   * Where every character but the `exits` leads, when that is one frame on the same parent
   * (after a string's backslash: its contents again). The token mask takes those transitions
   * without a step.
   */
  jump?(): { readonly exits: (c: string) => boolean; readonly frame: Frame } | undefined;
  /**
   * The texts that are the only way on from here (the rest of a key, a name, a word): every
   * continuation the frame takes is a prefix of one of them or goes on from the state after a
   * whole one, and the frame cannot end before one is whole. The token mask walks the
   * vocabulary's trie along them without a state per character. Undefined otherwise.
   */
  literals?(): readonly string[] | undefined;
  /**
   * True when the frame keeps `c` from its parent although it may end (a run of whitespace keeps
   * the next whitespace character: its parent would start a fresh, unbounded run). Absent: never.
   */
  keeps?(c: string): boolean;
}

/** A set of ASCII characters, as 128 bits. */
export type AsciiSet = Uint32Array;
/** The ASCII characters of the given texts (others are left out). */
export function asciiSet(...texts: readonly string[]): AsciiSet {
  const bits = new Uint32Array(4);
  for (const text of texts) {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 128) bits[c >>> 5]! |= 1 << (c & 31);
    }
  }
  return bits;
}
/** The characters that continue one of `options` after `text`. */
const nextOf = (options: readonly string[], text: string): string => options.map((o) => (o.length > text.length && o.startsWith(text) ? o[text.length]! : '')).join('');
const NONE = asciiSet();
const WS = ' \n\t\r';
const IDENT_START_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_$';

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
/** Every class the frames use (all made at module load), so a vocabulary's tables are built when it is prepared. */
export const allClasses = (): readonly CharClass[] => [...classes.values()];
/** One instance per key, so per-class tables are built once. */
export function charClass(key: string, exits: (c: string) => boolean, stable: boolean, probe?: string): CharClass {
  let cls = classes.get(key);
  if (!cls) classes.set(key, (cls = probe === undefined ? { key, exits, stable } : { key, exits, stable, probe }));
  return cls;
}
/** A frame on its parent stack; `key` caches stackId (stacks are immutable and share their parents). */
export type Stack = { readonly frame: Frame; readonly parent: Stack; key: number | undefined } | null;

export const push = (frame: Frame, parent: Stack): Stack => ({ frame, parent, key: undefined });
export const isWs = (c: string): boolean => c === ' ' || c === '\n' || c === '\t' || c === '\r';

/** The longest run of spaces or tabs between two tokens (constraints.md). */
export const MAX_WS_RUN = 16;
const WS_RUN_NEXT = asciiSet(WS);
const WS_FULL_NEXT = asciiSet('\n\r');
const WS_CR_NEXT = asciiSet('\n');
const WS_BROKEN_NEXT = asciiSet(' \t');

/**
 * Whitespace between two tokens, bounded (constraints.md): at most one line break (`\n` or
 * `\r\n`) and runs of at most MAX_WS_RUN spaces or tabs around it. Unbounded, a model could
 * spend its whole budget on spaces (a random-weight run did, on all 395 outputs). The counts
 * are in the frame's id, so the token masks (memoised per state) refuse the 17th space. A frame
 * that takes whitespace between its tokens pushes this above itself (see skipWs); it keeps the
 * next whitespace character from that frame, which would start a fresh run.
 */
export class WsFrame implements Frame {
  /**
   * Each run's one frame (see of): a run's frames are few (at most 2 × 17 + 17) and immutable,
   * and the token mask's whitespace walk (see TokenConstraint.walkUnder) steps through them for
   * every whitespace token without allocating.
   */
  private static readonly shared = new Map<number, WsFrame>();
  static of(run: number, lineBreak: boolean, cr: boolean): WsFrame {
    const at = run * 4 + (lineBreak ? 2 : 0) + (cr ? 1 : 0);
    let frame = WsFrame.shared.get(at);
    if (!frame) WsFrame.shared.set(at, (frame = new WsFrame(run, lineBreak, cr)));
    return frame;
  }
  private constructor(
    /** Spaces or tabs since the start or the line break. */
    readonly run: number,
    readonly lineBreak: boolean,
    /** A `\r` waiting for its `\n`. */
    readonly cr: boolean,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `W${this.run}${this.lineBreak ? 'n' : ''}${this.cr ? 'r' : ''}`);
  }
  asciiOnly(): boolean {
    return true;
  }
  nextAscii(): AsciiSet {
    if (this.cr) return WS_CR_NEXT;
    if (this.run >= MAX_WS_RUN) return this.lineBreak ? NONE : WS_FULL_NEXT;
    return this.lineBreak ? WS_BROKEN_NEXT : WS_RUN_NEXT;
  }
  keeps(c: string): boolean {
    return isWs(c);
  }
  /** The frame after `c`, undefined when `c` would break the bound. */
  next(c: string): WsFrame | undefined {
    if (c === '\n') return this.lineBreak ? undefined : WsFrame.of(0, true, false);
    if (this.cr) return undefined;
    if (c === '\r') return this.lineBreak ? undefined : WsFrame.of(this.run, false, true);
    return this.run < MAX_WS_RUN ? WsFrame.of(this.run + 1, this.lineBreak, false) : undefined;
  }
  step(c: string, parent: Stack): Stack[] {
    const next = isWs(c) ? this.next(c) : undefined;
    return next ? [push(next, parent)] : [];
  }
  canEnd(): boolean {
    return !this.cr;
  }
  completion(): string {
    return this.cr ? '\n' : '';
  }
}
const WS_START = WsFrame.of(0, false, false);

/** A whitespace character `c` between tokens, before what `frame` takes next: a bounded run of it above the frame. */
export function skipWs(c: string, frame: Frame, parent: Stack): Stack[] {
  const run = WS_START.next(c);
  return run ? [push(run, push(frame, parent))] : [];
}
const IDENT_START = /[A-Za-z_$]/;
const IDENT = /[\w$]/;
/** A declared name as JavaScript writes it (never starting with a digit). */
const IDENTIFIER = /^[\p{ID_Start}$_][\p{ID_Continue}$\u200c\u200d]*$/u;
const IDENT_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$';
/** What any value may start with, references aside (see startValue); whitespace before it. */
const LITERAL_STARTS = `${WS}'"\`-0123456789tfn{[`;
const IDENT_START_SET = asciiSet(IDENT_START_CHARS);
const IDENT_SET = asciiSet(IDENT_CHARS);

/**
 * What a value may reference (constraints.md): the names declared in the code before the call,
 * and `process.env.NAME`. Part of the compiled constraint, constant within one matcher.
 */
export interface Scope {
  /** The names a reference may start with: the declared ones and `process`. */
  readonly roots: readonly string[];
  readonly declared: ReadonlySet<string>;
  readonly key: string;
  /** The first characters of the roots: what a reference may start with (see ValueFrame.nextAscii). */
  readonly referenceStarts: AsciiSet;
  /** What may follow in an open array: whitespace, `]`, `,` or an item. */
  readonly arrayNext: AsciiSet;
}
const scopes = new Map<string, Scope>();
export function scopeOf(names: readonly string[]): Scope {
  const declared = [...new Set(names)].filter((n) => IDENTIFIER.test(n)).sort();
  const key = declared.join(',');
  let scope = scopes.get(key);
  if (!scope) {
    const roots = [...new Set([...declared, 'process'])];
    const firsts = roots.map((r) => r[0]).join('');
    scopes.set(key, (scope = { roots, declared: new Set(declared), key, referenceStarts: asciiSet(firsts), arrayNext: asciiSet(LITERAL_STARTS, firsts, '],') }));
  }
  return scope;
}
/** No declared names: only `process.env.NAME` (shortest completions, and the GBNF export's default). */
export const NO_NAMES = scopeOf([]);
/** A key that may be written bare. */
export const IDENTIFIER_NAME = /^[A-Za-z_$][\w$]*$/;
export const QUOTES = new Set(["'", '"', '`']);

/**
 * Where stepStack puts its stacks: the first `count` of `stacks`. A matcher reuses one (see
 * ConstraintMatcher.push), and starting over sets `count` to 0, not the array's length, which
 * would give up its memory.
 */
export interface Steps {
  readonly stacks: Stack[];
  count: number;
}

/** Feeds one character to a stack: the top frame's own steps, plus its parent's when it may end here. */
export function stepStack(stack: Stack, c: string, out: Steps): void {
  if (!stack) return;
  for (const next of stack.frame.step(c, stack.parent)) out.stacks[out.count++] = next;
  if (stack.frame.canEnd() && !stack.frame.keeps?.(c)) stepStack(stack.parent, c, out);
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
      return '{' + ObjectFrame.open(rule, NO_NAMES).completion();
    case 'union':
      return rule.options.map((o) => minimalValue(o, quote)).sort((a, b) => a.length - b.length)[0] ?? '0';
    case 'literal':
      return [...rule.texts].sort((a, b) => a.length - b.length)[0]!;
  }
}

/**
 * Numbers for stacks, per language: a stack's number is given for its top frame's id on its
 * parent's number, so equal stacks get equal numbers, and a state's key (see
 * ConstraintMatcher.stateKey) is one number however deep its stacks. (Spelling every frame out
 * made keys of hundreds of characters, and hashing them was most of what the token mask paid
 * for a new state.) The table can start over (`renew`, or past `LIMIT` entries); numbers are
 * never given twice, so a number never means two stacks, and an equal stack numbered again
 * later is only a state seen twice.
 */
export class StackNames {
  private static readonly LIMIT = 1_000_000;
  /** By the parent's number (-1: none), then the top frame's id. */
  private names = new Map<number, Map<string, number>>();
  private size = 0;
  private next = 0;
  /** Starts over (the token mask does when it drops its automaton, whose states held most stacks). */
  renew(): void {
    this.names = new Map();
    this.size = 0;
  }
  name(frameId: string, parent: number): number {
    if (this.size >= StackNames.LIMIT) this.renew();
    let byFrame = this.names.get(parent);
    if (!byFrame) this.names.set(parent, (byFrame = new Map()));
    let name = byFrame.get(frameId);
    if (name === undefined) {
      name = this.next++;
      byFrame.set(frameId, name);
      this.size++;
    }
    return name;
  }
}

/** Identifies a stack (see StackNames); kept on the stack, which is immutable and shares its parent. */
export function stackId(stack: Stack, names: StackNames): number {
  if (!stack) return -1;
  return (stack.key ??= names.name(stack.frame.id, stackId(stack.parent, names)));
}

// --- literals ------------------------------------------------------------------------------

const STRING_CLASSES = new Map(
  [...QUOTES].map((q) => [q, q === '`' ? charClass('s`', (c) => c === '`' || c === '\\' || c === '$', true) : charClass(`s${q}`, (c) => c === q || c === '\\' || c === '\n' || c === '\r', true)] as const),
);
/**
 * What Node sends in a header value (its checkInvalidHeaderChar): tab, printable ASCII and
 * U+0080-U+00FF. Anything else makes `ERR_INVALID_CHAR`, so the request is never sent.
 */
const headerSends = (c: string): boolean => {
  const code = c.charCodeAt(0);
  return code === 9 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
};
/** A header string's contents: its quote's class, less every character Node would not send. */
const HEADER_STRING_CLASSES = new Map(
  [...QUOTES].map((q) => {
    const plain = STRING_CLASSES.get(q)!;
    return [q, charClass(`h${q}`, (c) => plain.exits(c) || !headerSends(c), true)] as const;
  }),
);
/** Escapes whose character is a control character Node refuses in a header (`\t` is a tab, which it sends). */
const CONTROL_ESCAPES = new Set(['n', 'r', 'b', 'f', 'v']);
/** After a backslash in a header string: a line continuation (no character), or an escape that yields a character Node sends. */
const isBadHeaderEscape = (c: string): boolean =>
  isBadEscape(c) || (c !== '\n' && c !== '\r' && c !== '\u2028' && c !== '\u2029' && (CONTROL_ESCAPES.has(c) || !headerSends(c)));
const MEMBER_CLASS = charClass('i', (c) => !IDENT.test(c), false, IDENT_CHARS);
const KEY_CLASSES = new Map([
  ['', charClass('k', (c) => !IDENT.test(c), false)],
  ...["'", '"'].map((q) => [q, charClass(`k${q}`, (c) => c === q || c === '\n' || c === '\r' || c === '\\', false)] as const),
]);

/** Whitespace, then one closing character (the `)` after a form body's object), then the parent. */
export class CloseFrame implements Frame {
  readonly id: string;
  constructor(readonly char: string) {
    this.id = `C${char}`;
  }
  asciiOnly(): boolean {
    return true;
  }
  nextAscii(): AsciiSet {
    return asciiSet(WS, this.char);
  }
  step(c: string, parent: Stack): Stack[] {
    if (isWs(c)) return skipWs(c, this, parent);
    return c === this.char ? [parent] : [];
  }
  canEnd(): boolean {
    return false;
  }
  completion(): string {
    return this.char;
  }
}

/** A fixed word (`true`, `null`, `.then(`): each character in turn. */
export class WordFrame implements Frame {
  constructor(
    readonly word: string,
    readonly pos: number,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `w${this.word}${this.pos}`);
  }
  asciiOnly(): boolean {
    return true;
  }
  nextAscii(): AsciiSet {
    return asciiSet(this.word[this.pos] ?? '');
  }
  literals(): readonly string[] | undefined {
    return this.pos < this.word.length ? [this.word.slice(this.pos)] : undefined;
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

const BAD_ESCAPE = /[0-9xu]/;
const isBadEscape = (c: string): boolean => BAD_ESCAPE.test(c);

const optionsIds = new WeakMap<readonly string[], number>();
let nextOptionsId = 0;
/** An enum's identity in frame ids (its options array is the rule's own, so one per enum). */
function optionsId(options: readonly string[]): number {
  let id = optionsIds.get(options);
  if (id === undefined) optionsIds.set(options, (id = nextOptionsId++));
  return id;
}

/** A string literal in any quote; escapes keep an escaped quote inside; an enum restricts the content. */
export class StringFrame implements Frame {
  constructor(
    readonly quote: string,
    readonly text: string,
    readonly escape: boolean,
    readonly options: readonly string[] | null,
    readonly closed: boolean,
    readonly scope: Scope,
    /** A header's value: only characters Node sends there (headerSends). */
    readonly header = false,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    // A backtick string remembers a trailing `$` (the start of `${`); otherwise only enums need the
    // text, and which enum it is: two keys' enums under the same object state must not share an id.
    return (this.cachedId ??= `s${this.quote}${this.header ? 'h' : ''}${this.closed ? 'c' : ''}${this.escape ? 'e' : ''}${this.options ? `${optionsId(this.options)}:${this.text}` : this.text === '$' ? this.text : ''}`);
  }
  asciiOnly(): boolean {
    return this.closed || (this.options !== null && asciiNext(this.options, this.text));
  }
  openClass(): CharClass | undefined {
    if (this.closed || this.escape || this.options || this.text === '$') return undefined;
    return (this.header ? HEADER_STRING_CLASSES : STRING_CLASSES).get(this.quote);
  }
  nextAscii(): AsciiSet | undefined {
    if (this.closed) return NONE;
    // An enum: the characters that continue one of its options, and the quote after a whole one.
    if (this.options) return asciiSet(nextOf(this.options, this.text), this.options.includes(this.text) ? this.quote : '');
    return undefined;
  }
  jump(): { readonly exits: (c: string) => boolean; readonly frame: Frame } | undefined {
    // An escape's second character, whatever it is but the start of a \x, \u or octal escape (see step).
    if (!this.escape || this.options) return undefined;
    return { exits: this.header ? isBadHeaderEscape : isBadEscape, frame: new StringFrame(this.quote, '', false, null, false, this.scope, this.header) };
  }
  private to(parent: Stack, text: string, escape: boolean, options: readonly string[] | null, closed: boolean): Stack {
    return push(new StringFrame(this.quote, text, escape, options, closed, this.scope, this.header), parent);
  }
  step(c: string, parent: Stack): Stack[] {
    if (this.closed) return [];
    // Not `\x`, `\u` or a digit: those begin escapes that must be well-formed (a syntax error otherwise; octal ones are errors in templates).
    if (this.escape) return this.options || (this.header ? isBadHeaderEscape(c) : isBadEscape(c)) ? [] : [this.to(parent, '', false, null, false)];
    if (c === this.quote) {
      if (this.options && !this.options.includes(this.text)) return [];
      return [this.to(parent, this.text, false, this.options, true)];
    }
    if ((c === '\n' || c === '\r') && this.quote !== '`') return [];
    if (this.header && !headerSends(c)) return [];
    if (this.options) {
      const text = this.text + c;
      return this.options.some((o) => o.startsWith(text)) ? [this.to(parent, text, false, this.options, false)] : [];
    }
    if (c === '\\') return [this.to(parent, '', true, null, false)];
    // `${` in a template holds a reference, then `}`.
    if (this.quote === '`' && c === '{' && this.text === '$') return [push(new ReferenceFrame(this.scope, 'start', ''), push(new WordFrame('}', 0), this.to(parent, '', false, null, false)))];
    // Only a template remembers a `$` (the start of `${`): in a quoted string it is content like any other.
    return [this.to(parent, c === '$' && this.quote === '`' ? '$' : '', false, null, false)];
  }
  canEnd(): boolean {
    return this.closed;
  }
  completion(): string {
    if (this.closed) return '';
    // `\n` is a control character a header value cannot hold; `\t` is a tab, which it can.
    if (this.escape) return (this.header ? 't' : 'n') + this.quote;
    if (this.text === '$' && !this.options) return this.quote;
    if (this.options) return ([...this.options].filter((o) => o.startsWith(this.text)).sort((a, b) => a.length - b.length)[0] ?? this.text).slice(this.text.length) + this.quote;
    return this.quote;
  }
}

const NUMBER_CHARS = asciiSet('0123456789.eE+-');

/** A number literal: `-`? digits (`.` digits)? (`e` [+-]? digits)?; integers without fraction or exponent; no leading zero (`01.5` does not parse, `017` is octal). */
export class NumberFrame implements Frame {
  constructor(
    readonly integer: boolean,
    readonly state: 'sign' | 'zero' | 'int' | 'dot' | 'frac' | 'e' | 'esign' | 'exp',
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `n${this.integer ? 'i' : ''}${this.state}`);
  }
  asciiOnly(): boolean {
    return true;
  }
  nextAscii(): AsciiSet {
    return NUMBER_CHARS;
  }
  private to(parent: Stack, state: NumberFrame['state']): Stack[] {
    return [push(new NumberFrame(this.integer, state), parent)];
  }
  step(c: string, parent: Stack): Stack[] {
    const digit = c >= '0' && c <= '9';
    switch (this.state) {
      case 'sign':
        return c === '0' ? this.to(parent, 'zero') : digit ? this.to(parent, 'int') : [];
      case 'zero':
      case 'int':
        if (digit) return this.state === 'zero' ? [] : this.to(parent, 'int');
        if (this.integer) return [];
        return c === '.' ? this.to(parent, 'dot') : c === 'e' || c === 'E' ? this.to(parent, 'e') : [];
      case 'dot':
        return digit ? this.to(parent, 'frac') : [];
      case 'frac':
        return digit ? this.to(parent, 'frac') : c === 'e' || c === 'E' ? this.to(parent, 'e') : [];
      case 'e':
        return digit ? this.to(parent, 'exp') : c === '+' || c === '-' ? this.to(parent, 'esign') : [];
      case 'esign':
      case 'exp':
        return digit ? this.to(parent, 'exp') : [];
    }
  }
  canEnd(): boolean {
    return this.state === 'zero' || this.state === 'int' || this.state === 'frac' || this.state === 'exp';
  }
  completion(): string {
    return this.canEnd() ? '' : '0';
  }
}

type ReferenceState = 'start' | 'root' | 'env' | 'dot' | 'member' | 'after';
const ENV = '.env.';

/**
 * A reference (constraints.md): a name declared before the call, with at most one member access
 * `.name` or index `[value]`, or `process.env.NAME`. Only declared roots, so constrained code
 * never names something undefined; one accessor and no calls, so it never throws or runs code:
 * a second access reads a property of whatever the first gave (`process.env.X.y` of undefined is
 * a TypeError), and a call may throw (not a function) or send a request of its own before the
 * invocation's (`axios.get(url, axios(...))`), which the scorer would take for the program's.
 */
export class ReferenceFrame implements Frame {
  constructor(
    readonly scope: Scope,
    readonly state: ReferenceState,
    /** The root typed so far ('root'), or the part of `.env.` ('env'). */
    readonly text: string,
    /**
     * A declared name takes no accessor: in a URL's `${...}`, where a property's text could hold
     * a `/` or `?` and make the URL one the spec does not define (some of axios' own do).
     */
    readonly bare = false,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `r${this.bare ? 'b' : ''}${this.state}${this.text}`);
  }
  asciiOnly(): boolean {
    return this.state === 'start' || this.state === 'root' ? asciiNext(this.scope.roots, this.text) : true;
  }
  openClass(): CharClass | undefined {
    // Stable only where the parent takes no identifier character: a property name may end anywhere.
    return this.state === 'member' ? MEMBER_CLASS : undefined;
  }
  literals(): readonly string[] | undefined {
    // Part of a root: the rest of each root it begins (a whole one takes its accessor, or ends).
    if ((this.state !== 'start' && this.state !== 'root') || this.scope.roots.includes(this.text)) return undefined;
    return this.scope.roots.filter((r) => r.startsWith(this.text)).map((r) => r.slice(this.text.length));
  }
  nextAscii(): AsciiSet {
    switch (this.state) {
      case 'start':
      case 'root':
        return asciiSet(nextOf(this.scope.roots, this.text), '.[');
      case 'env':
        return asciiSet(ENV[this.text.length] ?? '');
      case 'dot':
        return IDENT_START_SET;
      case 'member':
        return IDENT_SET;
      case 'after':
        return NONE;
    }
  }
  private to(state: ReferenceState, text = ''): ReferenceFrame {
    return new ReferenceFrame(this.scope, state, text, this.bare);
  }
  step(c: string, parent: Stack): Stack[] {
    switch (this.state) {
      case 'start':
      case 'root': {
        const text = this.text + c;
        const out: Stack[] = this.scope.roots.some((r) => r.startsWith(text)) ? [push(this.to('root', text), parent)] : [];
        if (this.state === 'root' && !this.bare && this.scope.declared.has(this.text)) {
          // The one accessor of a declared name.
          if (c === '.') out.push(push(this.to('dot'), parent));
          if (c === '[') out.push(push(new ValueFrame(ANY_VALUE, this.scope), push(new WordFrame(']', 0), push(this.to('after'), parent))));
        }
        if (this.text === 'process' && c === '.') out.push(push(this.to('env', '.'), parent));
        return out;
      }
      case 'env': {
        if (ENV[this.text.length] !== c) return [];
        const text = this.text + c;
        return [push(text === ENV ? this.to('dot') : this.to('env', text), parent)];
      }
      case 'dot':
        return IDENT_START.test(c) ? [push(this.to('member'), parent)] : [];
      case 'member':
        return IDENT.test(c) ? [push(this, parent)] : [];
      case 'after':
        return [];
    }
  }
  canEnd(): boolean {
    return this.state === 'member' || this.state === 'after' || (this.state === 'root' && this.scope.declared.has(this.text));
  }
  completion(): string {
    switch (this.state) {
      case 'start':
      case 'root': {
        if (this.scope.declared.has(this.text)) return '';
        const options = this.scope.roots.filter((r) => r.startsWith(this.text)).map((r) => (this.scope.declared.has(r) ? r : `${r}${ENV}A`).slice(this.text.length));
        return options.sort((x, y) => x.length - y.length)[0] ?? '';
      }
      case 'env':
        return ENV.slice(this.text.length) + 'A';
      case 'dot':
        return 'a';
      case 'member':
      case 'after':
        return '';
    }
  }
}

const ANY_VALUE: ValueRule = { kind: 'any' };

// --- values by rule --------------------------------------------------------------------------

/** The first character of a value: whitespace, then whichever literal the rule allows, or an identifier. */
export class ValueFrame implements Frame {
  constructor(
    readonly rule: ValueRule,
    readonly scope: Scope,
    /**
     * False where the value's own keys are scored arguments (the data argument, the config's
     * `headers` and `params`): a reference there could bring any key, so only a literal goes.
     */
    readonly references = true,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `v${ruleId(this.rule)}${this.references ? '' : '!'}`);
  }
  asciiOnly(): boolean {
    return true;
  }
  nextAscii(): AsciiSet {
    // Whitespace, what the rule's literals start with, and (references) a root's first character:
    // a string-only value refused digits, braces and words one step each.
    const starts = literalStartsOf(this.rule);
    if (!this.references) return starts;
    const bits = this.scope.referenceStarts;
    return Uint32Array.of(starts[0]! | bits[0]!, starts[1]! | bits[1]!, starts[2]! | bits[2]!, starts[3]! | bits[3]!);
  }
  step(c: string, parent: Stack): Stack[] {
    if (isWs(c)) return skipWs(c, this, parent);
    const out: Stack[] = [];
    startValue(this.rule, c, parent, out, this.scope);
    if (this.references) out.push(...new ReferenceFrame(this.scope, 'start', '').step(c, parent));
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

const startsOfRules = new WeakMap<ValueRule, AsciiSet>();
/** Whitespace and the characters startValue takes for a rule, made once per rule. */
function literalStartsOf(rule: ValueRule): AsciiSet {
  let starts = startsOfRules.get(rule);
  if (!starts) startsOfRules.set(rule, (starts = asciiSet(WS, literalFirsts(rule))));
  return starts;
}
function literalFirsts(rule: ValueRule): string {
  switch (rule.kind) {
    case 'union':
      return rule.options.map(literalFirsts).join('');
    case 'any':
      return LITERAL_STARTS;
    case 'string':
      return `'"\``;
    case 'number':
    case 'integer':
      return '-0123456789';
    case 'boolean':
      return 'tf';
    case 'null':
      return 'n';
    case 'array':
      return '[';
    case 'object':
      return '{';
    case 'literal':
      return rule.texts.map((t) => t[0]).join('');
  }
}

function startValue(rule: ValueRule, c: string, parent: Stack, out: Stack[], scope: Scope): void {
  switch (rule.kind) {
    case 'union':
      for (const o of rule.options) startValue(o, c, parent, out, scope);
      return;
    case 'any':
      if (QUOTES.has(c)) out.push(push(new StringFrame(c, '', false, null, false, scope), parent));
      if (c === '-' || (c >= '0' && c <= '9')) out.push(push(new NumberFrame(false, numberStart(c)), parent));
      for (const w of ['true', 'false', 'null']) if (w[0] === c) out.push(push(new WordFrame(w, 1), parent));
      if (c === '{') out.push(push(ObjectFrame.open(ANY_OBJECT, scope), parent));
      if (c === '[') out.push(push(new ArrayFrame(ANY_ARRAY, 0, 'first', scope), parent));
      return;
    case 'string':
      if (QUOTES.has(c)) out.push(push(new StringFrame(c, '', false, rule.enum ?? null, false, scope, rule.header === true), parent));
      return;
    case 'number':
    case 'integer':
      if (c === '-' || (c >= '0' && c <= '9')) out.push(push(new NumberFrame(rule.kind === 'integer', numberStart(c)), parent));
      return;
    case 'boolean':
      for (const w of ['true', 'false']) if (w[0] === c) out.push(push(new WordFrame(w, 1), parent));
      return;
    case 'null':
      if (c === 'n') out.push(push(new WordFrame('null', 1), parent));
      return;
    case 'array':
      if (c === '[') out.push(push(new ArrayFrame(rule, 0, 'first', scope), parent));
      return;
    case 'object':
      if (c === '{') out.push(push(ObjectFrame.open(rule, scope), parent));
      return;
    case 'literal':
      // `1` and `10` both listed: two threads, the shorter ending where the longer goes on.
      for (const text of rule.texts) if (text[0] === c) out.push(push(new WordFrame(text, 1), parent));
      return;
  }
}

const numberStart = (c: string): NumberFrame['state'] => (c === '-' ? 'sign' : c === '0' ? 'zero' : 'int');

const ANY_OBJECT: ObjectRule = { kind: 'object', keys: [], rules: new Map(), required: 0n, additional: { kind: 'any' } };
const ANY_ARRAY = { kind: 'array' as const, items: { kind: 'any' as const }, maxItems: Number.MAX_SAFE_INTEGER };

export class ArrayFrame implements Frame {
  constructor(
    readonly rule: Extract<ValueRule, { kind: 'array' }>,
    readonly count: number,
    readonly state: 'first' | 'after' | 'comma' | 'closed',
    readonly scope: Scope,
  ) {}
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `a${ruleId(this.rule)}.${this.count}.${this.state}`);
  }
  asciiOnly(): boolean {
    return true;
  }
  nextAscii(): AsciiSet {
    return this.state === 'closed' ? NONE : this.scope.arrayNext;
  }
  step(c: string, parent: Stack): Stack[] {
    if (this.state === 'closed') return [];
    if (isWs(c)) return skipWs(c, this, parent);
    if (c === ']') return [push(new ArrayFrame(this.rule, this.count, 'closed', this.scope), parent)];
    if (this.state === 'after') return c === ',' ? [push(new ArrayFrame(this.rule, this.count, 'comma', this.scope), parent)] : [];
    // 'first' or 'comma': an item may start, if the array has room.
    if (this.count >= this.rule.maxItems) return [];
    return new ValueFrame(this.rule.items, this.scope).step(c, push(new ArrayFrame(this.rule, this.count + 1, 'after', this.scope), parent));
  }
  canEnd(): boolean {
    return this.state === 'closed';
  }
  completion(): string {
    return this.state === 'closed' ? '' : ']';
  }
}

const bitsOfRules = new WeakMap<ObjectRule, readonly bigint[]>();
/** Each key's bit in `seen`, made once per rule (a step tried every key's). */
function keyBits(rule: ObjectRule): readonly bigint[] {
  let bits = bitsOfRules.get(rule);
  if (!bits) bitsOfRules.set(rule, (bits = rule.keys.map((_, i) => 1n << BigInt(i))));
  return bits;
}

const OPEN_KEY_STARTS = asciiSet(WS, `}'"`, IDENT_START_CHARS);
const keyStartsOfRules = new WeakMap<ObjectRule, AsciiSet>();
/** What may come where a closed object's key may start, made once per rule (asked once per new state). */
function keyStartsOf(rule: ObjectRule): AsciiSet {
  let starts = keyStartsOfRules.get(rule);
  if (!starts) keyStartsOfRules.set(rule, (starts = asciiSet(WS, `}'"`, rule.keys.map((k) => k[0] ?? '').join(''))));
  return starts;
}
const BARE_KEY_NEXT = asciiSet(IDENT_CHARS, WS, ':');
const COLON_NEXT = asciiSet(WS, ':');
const AFTER_NEXT = asciiSet(WS, ',}');

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
    readonly scope: Scope,
  ) {}
  static open(rule: ObjectRule, scope: Scope): ObjectFrame {
    return new ObjectFrame(rule, 0n, 'key', null, '', scope);
  }
  private cachedId: string | undefined;
  get id(): string {
    return (this.cachedId ??= `o${ruleId(this.rule)}.${this.seen}.${this.state}.${this.keyQuote ?? ''}${this.keyText}`);
  }
  asciiOnly(): boolean {
    if (this.state !== 'inKey' || !this.keyQuote) return true;
    return !this.rule.additional && asciiNext(this.rule.keys, this.keyText);
  }
  openClass(): CharClass | undefined {
    // An open object's quoted key takes any text (not stable: a declared key's name means its own rule).
    const q = this.keyQuote;
    if (this.state !== 'inKey' || !this.rule.additional) return undefined;
    return KEY_CLASSES.get(q ?? '');
  }
  literals(): readonly string[] | undefined {
    // Part of a closed object's key: the rest of each unseen key it begins (a whole key takes its
    // colon or closing quote, or goes on into a longer one). A quoted key stops before a character
    // its quote cannot hold, a bare key must be an identifier.
    if (this.state !== 'inKey' || this.rule.additional || this.keyDone(this.keyText)) return undefined;
    const bits = keyBits(this.rule);
    const rests: string[] = [];
    for (const [i, key] of this.rule.keys.entries()) {
      if (!this.growsInto(key, bits[i]!, this.keyText, !this.keyQuote)) continue;
      let rest = key.slice(this.keyText.length);
      const stops = this.keyQuote ? [this.keyQuote, '\n', '\r', '\\'].map((c) => rest.indexOf(c)).filter((at) => at >= 0) : [];
      if (stops.length > 0) rest = rest.slice(0, Math.min(...stops));
      if (rest) rests.push(rest);
    }
    return rests;
  }
  nextAscii(): AsciiSet | undefined {
    switch (this.state) {
      case 'closed':
        return NONE;
      case 'key':
      case 'comma':
        return this.rule.additional ? OPEN_KEY_STARTS : keyStartsOf(this.rule);
      case 'inKey':
        // A bare key goes on, or ends before its colon; a quoted one goes on or closes. Only a
        // declared key's next characters in a closed object: a bare key's walk tried every
        // identifier character there, a third of the matcher steps of the token bench's masks.
        if (!this.keyQuote) return this.rule.additional ? BARE_KEY_NEXT : asciiSet(nextOf(this.rule.keys, this.keyText), this.keyDone(this.keyText) ? `${WS}:` : '');
        return this.rule.additional ? undefined : asciiSet(nextOf(this.rule.keys, this.keyText), this.keyQuote);
      case 'colon':
        return COLON_NEXT;
      case 'after':
        return AFTER_NEXT;
    }
  }
  private with(state: ObjectFrame['state'], keyQuote: string | null = null, keyText = '', seen = this.seen): ObjectFrame {
    return new ObjectFrame(this.rule, seen, state, keyQuote, keyText, this.scope);
  }
  /** Could `text` still grow into a key this object accepts? A bare key must be an identifier all along. */
  private keyPrefixOk(text: string, bare: boolean): boolean {
    if (this.rule.additional) return true;
    const bits = keyBits(this.rule);
    return this.rule.keys.some((k, i) => this.growsInto(k, bits[i]!, text, bare));
  }
  /** Could `text` still grow into a declared key (its bit in `seen` given)? Unseen, and an identifier when bare. */
  private growsInto(key: string, bit: bigint, text: string, bare: boolean): boolean {
    return key.startsWith(text) && !(this.seen & bit) && (!bare || IDENTIFIER_NAME.test(key));
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
        if (isWs(c)) return skipWs(c, this, parent);
        if (c === '}') return (this.seen & this.rule.required) === this.rule.required ? [push(this.with('closed'), parent)] : [];
        if (QUOTES.has(c) && c !== '`') return this.keyPrefixOk('', false) ? [push(this.with('inKey', c, ''), parent)] : [];
        if (IDENT_START.test(c) && this.keyPrefixOk(c, true)) return [push(this.with('inKey', null, c), parent)];
        return [];
      }
      case 'inKey': {
        if (this.keyQuote) {
          if (c === this.keyQuote) return this.keyDone(this.keyText) ? [push(this.with('colon', null, this.keyText), parent)] : [];
          if (c === '\n' || c === '\r' || c === '\\') return [];
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
        if (isWs(c)) return skipWs(c, this, parent);
        if (c !== ':') return [];
        const key = this.keyDone(this.keyText);
        if (!key) return [];
        const seen = key.index >= 0 ? this.seen | (1n << BigInt(key.index)) : this.seen;
        return [push(new ValueFrame(key.rule, this.scope, !this.rule.literalValues), push(this.with('after', null, '', seen), parent))];
      }
      case 'after':
        if (isWs(c)) return skipWs(c, this, parent);
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
          const bits = keyBits(this.rule);
          const unseen = this.rule.keys.filter((k, i) => this.growsInto(k, bits[i]!, key, this.keyQuote === null));
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
        return `${tail}: ${minimalValue(done.rule)}${new ObjectFrame(this.rule, seen, 'after', null, '', this.scope).completion()}`;
      }
    }
  }
}
