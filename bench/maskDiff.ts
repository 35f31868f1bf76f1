import { tokenBytes, type ConstraintMatcher, type Vocabulary } from '../main/constraints/index.js';
import { IDENTIFIER_NAME, isWs, ObjectFrame, type Stack } from '../main/constraints/frames.js';
import { FreeFrame, UrlFrame } from '../main/constraints/invocation.js';

/** A matcher's threads (private to it): the bench reads their frames to say why the engines differ. */
const threadsOf = (m: ConstraintMatcher): readonly Stack[] => (m as unknown as { threads: Stack[] }).threads;
/** The state's frames, top first, by kind, for a difference no rule explains: `Object(o3.1.key.)<Invocation(...)`. */
function frames(m: ConstraintMatcher): string {
  return threadsOf(m)
    .map((t) => {
      const kinds: string[] = [];
      for (let s = t; s && kinds.length < 3; s = s.parent) kinds.push(`${s.frame.constructor.name.replace('Frame', '')}(${s.frame.id.slice(0, 12)})`);
      return kinds.join('<');
    })
    .join(' | ');
}
const tops = (m: ConstraintMatcher): NonNullable<Stack>[] => threadsOf(m).filter((t): t is NonNullable<Stack> => t !== null);

/** True when the bytes can begin well-formed UTF-8 text (a lead byte and the continuations it wants, so far). */
function utf8Prefix(bytes: Uint8Array): boolean {
  let want = 0;
  for (const b of bytes) {
    if (want > 0) {
      if ((b & 0xc0) !== 0x80) return false;
      want--;
    } else if (b < 0x80) continue;
    else if (b >= 0xc2 && b <= 0xdf) want = 1;
    else if (b >= 0xe0 && b <= 0xef) want = 2;
    else if (b >= 0xf0 && b <= 0xf4) want = 3;
    else return false;
  }
  return true;
}

/**
 * Why the engines differ on a token, as a class with its reason, each from the rule of one side:
 * constraints.md for ours, the GBNF export (main/constraints/gbnf.ts, whose header says where it
 * relaxes the language) for XGrammar's, and XGrammar's own reading of bytes. A difference no
 * rule explains is "unexplained", with the frames of our state, so it can be looked into.
 */
const REASONS = {
  partialInString: 'XGrammar reads bytes: a token of part of a character may begin or end one wherever its grammar takes a character beyond ASCII; ours take such a token inside an invocation only where the state takes a character its bytes can still become (a string\'s contents; see TokenConstraint), and check that character whole once finished',
  badBytesFree: 'free text after the call: ours allow any bytes there; XGrammar reads the GBNF `rest` as UTF-8 and refuses bytes that cannot begin a character (continuation bytes alone, 0xC0/0xC1, 0xF5-0xFF)',
  controlAsText: 'control tokens (`<|im_start|>`, `<|im_end|>`): XGrammar was given their spelling and reads it as text a string may hold; ours never write a control token inside an invocation',
  nulFree: 'NUL in the free text: the GBNF writes free text as `[^\\x00]*`; ours allow any character after the call',
  lineContinuation: 'a backslash then a line break in a string: a JavaScript line continuation, which ours take; the GBNF `esc` leaves out \\x00-\\x1f after a backslash',
  urlSegment: 'a URL path parameter: the GBNF takes any run of URL characters (`<`, `>`, `&`, the other quote, `<` after other text); ours a value of the parameter\'s type, a `<placeholder>` only as the whole segment, never the quote (constraints.md: path parameter segments)',
  duplicateKey: 'a key given twice: constraints.md takes each key at most once per object; the GBNF has no set semantics and lets keys repeat (its header)',
  requiredKey: 'an object closed before its required keys: constraints.md requires them; the GBNF does not enforce required keys (its header)',
  whitespace: 'whitespace past the bound (constraints.md: at most one line break and 16 spaces or tabs); the GBNF `ws` is unbounded',
  laterCall: 'a later `axios.` call in the free text: ours check it too; the GBNF leaves all text after the first statement free (its header)',
} as const;

/** A MaskDiff's counts as plain data (a child process sends them), merged by MaskDiff.report. */
export interface DiffTally {
  positions: number;
  same: number;
  kinds: { kind: string; positions: number; tokens: number; examples: string[] }[];
  refusals: string[];
}

/**
 * Our masks against XGrammar's, bit for bit, with each differing token put in a kind: XGrammar
 * allows or refuses partial UTF-8 and control tokens by rules of its own (ours allow control
 * tokens only where the invocation is complete, and partial UTF-8 there or where a string can
 * take the character it begins), so those are counted apart from whole-text tokens, whose
 * differences are the languages' and are listed with examples.
 */
export class MaskDiff {
  private positions = 0;
  private same = 0;
  private readonly kinds = new Map<string, { positions: number; tokens: number; examples: string[] }>();
  private readonly refusals: string[] = [];
  private readonly kindOf: string[];
  private firstCallDone = false;

  constructor(private readonly vocabulary: Vocabulary) {
    const eos = new Set(vocabulary.eos);
    this.kindOf = vocabulary.text.map((text, id) => (eos.has(id) ? 'end of generation' : text !== null ? 'whole text' : tokenBytes(vocabulary, id).length > 0 ? 'partial UTF-8' : 'control'));
  }

  /** The class of a whole-text token only one side allows at this state (see REASONS). */
  private whole(state: ConstraintMatcher, text: string, oursAllow: boolean): string {
    const m = state.clone();
    let escaped = false;
    for (const c of text) {
      const before = m.clone();
      if (!m.push(c)) {
        if (oursAllow) return `unexplained: ours take it, refusing ${JSON.stringify(c)} (bug?)`;
        return this.refusal(before, c);
      }
      if (tops(before).every((t) => t.frame instanceof FreeFrame) && c === '\0') return REASONS.nulFree;
      if (escaped && c.charCodeAt(0) < 0x20) return REASONS.lineContinuation;
      escaped = c === '\\' && tops(before).some((t) => t.frame.id.startsWith('s'));
    }
    return oursAllow ? `unexplained: only ours allow, through ${frames(state)}` : 'unexplained: ours take it whole (a mask that disagrees with the check: bug)';
  }

  /** Why ours refuse `c` in `state` where XGrammar's grammar takes it. */
  private refusal(state: ConstraintMatcher, c: string): string {
    const stacks = tops(state);
    if (isWs(c)) return REASONS.whitespace;
    if (stacks.some((t) => t.frame instanceof UrlFrame)) return REASONS.urlSegment;
    for (const t of stacks) {
      // The object a character is for: the top one unless it is closed (then the character goes to its parent).
      let s: Stack = t;
      while (s && !(s.frame instanceof ObjectFrame && s.frame.state !== 'closed')) s = s.parent;
      if (!s) continue;
      const o = s.frame as ObjectFrame;
      const seen = (k: number): boolean => ((o.seen >> BigInt(k)) & 1n) === 1n;
      if (c === '}' && (o.rule.required & ~o.seen) !== 0n) return REASONS.requiredKey;
      if (o.state === 'key' || o.state === 'comma' || o.state === 'inKey') {
        const typed = o.state === 'inKey' ? o.keyText + (c === o.keyQuote ? '' : c) : /['"]/.test(c) ? '' : c;
        // A bare key can only be one of the keys that are identifiers (`tags.any` must be quoted).
        const bare = o.state === 'inKey' ? o.keyQuote === null : !/['"]/.test(c);
        const fits = o.rule.keys.map((k, i) => ({ i, ok: k.startsWith(typed) && (!bare || IDENTIFIER_NAME.test(k)) }));
        if (!o.rule.additional && fits.some((f) => f.ok && seen(f.i)) && !fits.some((f) => f.ok && !seen(f.i))) return REASONS.duplicateKey;
      }
    }
    return `unexplained: ours refuse ${JSON.stringify(c)} in ${frames(state)}`;
  }

  /** The class of one differing token (see REASONS). */
  private reason(state: ConstraintMatcher, id: number, oursAllow: boolean): string {
    const kind = this.kindOf[id];
    const text = this.vocabulary.text[id];
    if (kind === 'whole text' && text) return this.whole(state, text, oursAllow);
    const complete = state.isComplete();
    // After the first call, XGrammar's grammar is in its free `rest`: a later call's differences are that.
    if (this.firstCallDone && !complete && !oursAllow) return REASONS.laterCall;
    if (kind === 'partial UTF-8' && !oursAllow && !complete) return REASONS.partialInString;
    if (kind === 'partial UTF-8' && oursAllow && complete && !utf8Prefix(tokenBytes(this.vocabulary, id))) return REASONS.badBytesFree;
    if (kind === 'control' && !oursAllow && !complete) return REASONS.controlAsText;
    return `unexplained: ${complete ? 'no invocation open' : 'inside an invocation'}`;
  }

  /** A sample's walk begins: the constraint starts inside its first call. */
  startSample(): void {
    this.firstCallDone = false;
  }

  compare(ours: Uint32Array, theirs: Int32Array, state: ConstraintMatcher, where: string): void {
    if (state.isComplete()) this.firstCallDone = true;
    this.positions++;
    const found = new Map<string, number[]>();
    for (let w = 0; w < ours.length; w++) {
      let bits = ours[w]! ^ theirs[w]!;
      while (bits !== 0) {
        const bit = 31 - Math.clz32(bits);
        bits &= ~(1 << bit);
        const id = w * 32 + bit;
        if (id >= this.kindOf.length) continue;
        const side = (ours[w]! >>> bit) & 1 ? 'only ours allow' : 'only XGrammar allows';
        const kind = `${this.kindOf[id]}, ${side}: ${this.reason(state, id, side === 'only ours allow')}`;
        let list = found.get(kind);
        if (!list) found.set(kind, (list = []));
        list.push(id);
      }
    }
    if (found.size === 0) this.same++;
    for (const [kind, ids] of found) {
      let entry = this.kinds.get(kind);
      if (!entry) this.kinds.set(kind, (entry = { positions: 0, tokens: 0, examples: [] }));
      entry.positions++;
      entry.tokens += ids.length;
      // Only the examples kept are spelled: tens of thousands of differing tokens at a position are common.
      if (entry.examples.length < 3) entry.examples.push(`${where}: ${ids.slice(0, 6).map((id) => JSON.stringify(this.vocabulary.text[id] ?? `<${id}>`)).join(' ')}${ids.length > 6 ? ` (${ids.length} in all)` : ''}`);
    }
  }

  refused(what: string): void {
    this.refusals.push(what);
  }

  tally(): DiffTally {
    return { positions: this.positions, same: this.same, kinds: [...this.kinds].map(([kind, e]) => ({ kind, ...e })), refusals: this.refusals };
  }

  /** The tallies of several walks as one table. */
  static report(tallies: readonly DiffTally[]): void {
    const kinds = new Map<string, { positions: number; tokens: number; examples: string[] }>();
    for (const t of tallies)
      for (const k of t.kinds) {
        const entry = kinds.get(k.kind) ?? { positions: 0, tokens: 0, examples: [] };
        kinds.set(k.kind, { positions: entry.positions + k.positions, tokens: entry.tokens + k.tokens, examples: [...entry.examples, ...k.examples].slice(0, 3) });
      }
    const positions = tallies.reduce((a, t) => a + t.positions, 0);
    const same = tallies.reduce((a, t) => a + t.same, 0);
    console.log(`\nMasks compared with XGrammar's at ${positions} positions: ${same} the same bit for bit.`);
    if (kinds.size > 0) {
      console.log('\n| differing tokens: which, who allows them, why | positions | tokens | examples |');
      console.log('|---|---|---|---|');
      for (const [kind, e] of [...kinds].sort((a, b) => b[1].positions - a[1].positions)) console.log(`| ${kind} | ${e.positions} | ${e.tokens} | ${e.examples.join('; ').replace(/\|/g, '\\|')} |`);
    }
    const unexplained = [...kinds].filter(([kind]) => kind.includes('unexplained'));
    console.log(
      unexplained.length === 0
        ? '\nEvery difference has a class with its reason: no unexplained row.'
        : `\nUnexplained: ${unexplained.length} rows, ${unexplained.reduce((a, [, e]) => a + e.tokens, 0)} tokens (at most ${Math.max(...unexplained.map(([, e]) => e.positions))} positions for one).`,
    );
    const refusals = tallies.flatMap((t) => t.refusals);
    if (refusals.length > 0) console.log(`\nGround-truth tokens one engine refused: ${refusals.length}; ${refusals.slice(0, 5).join('; ')}.`);
  }
}
