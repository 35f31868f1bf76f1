import type { ApiSpec } from '../openapi/index.js';
import { push, scopeOf, stackCompletion, stackId, stepStack, WsFrame, type AsciiSet, type CharClass, type Stack, type Steps } from './frames.js';
import { CompiledSpec, FreeFrame } from './invocation.js';
import type { Setup } from '../api/setup.js';
import { namesInScope } from './scope.js';
import type { StateKey } from './stateTable.js';

/** A spec's compiled languages by scope, kept on the spec object (a hidden property; see CompiledSpec.automaton). */
const COMPILED = Symbol('compiled constraints');
type Compiled = ApiSpec & { [COMPILED]?: Map<string, CompiledSpec> };

/**
 * The spec's constraint language for code that has declared `names` before the call (the
 * references a value may use; see declaredNames), compiled lazily (URL tries per method, rules per
 * endpoint, shared across names) and cached.
 */
export function compileConstraints(spec: ApiSpec, names: readonly string[] = []): CompiledSpec {
  const scope = scopeOf(names);
  let bySpec = (spec as Compiled)[COMPILED];
  if (!bySpec) Object.defineProperty(spec, COMPILED, { value: (bySpec = new Map()) });
  let compiled = bySpec.get(scope.key);
  if (!compiled) bySpec.set(scope.key, (compiled = new CompiledSpec(spec, scope, bySpec.values().next().value)));
  return compiled;
}

/** Where ConstraintMatcher.push collects a character's steps (see there); undefined while in use. */
let stepScratch: Steps | undefined = { stacks: [], count: 0 };

// A state's key is the automaton table's key type (stateTable.ts, which imports nothing of ours).
export type { StateKey };

export type FeedResult = { readonly ok: true } | { readonly ok: false; readonly offset: number; readonly reason: string };

/**
 * An incremental matcher over characters for constraints.md's language. Text outside an
 * invocation is free; from `axios.` to the end of the statement every character must keep a
 * legal completion possible. The state is a small set of immutable frame stacks, so `clone()`
 * copies an array of pointers.
 */
export class ConstraintMatcher {
  private constructor(
    private threads: Stack[],
    private consumed: number,
    /** The compiled language: states of matchers with the same one compare by `stateKey`. */
    readonly language: CompiledSpec,
  ) {}

  /** A matcher before any text; `names` are those declared before the calls it will see (none: only `process.env`). */
  static create(spec: ApiSpec | CompiledSpec, names: readonly string[] = []): ConstraintMatcher {
    const compiled = spec instanceof CompiledSpec ? spec : compileConstraints(spec, names);
    return new ConstraintMatcher([push(new FreeFrame(compiled, 0, false), null)], 0, compiled);
  }

  /**
   * A matcher for code that continues `prefix` (the starter code): the names `prefix` declares
   * are what values may reference, and the prefix is fed through it.
   */
  static after(spec: ApiSpec, prefix: string): { readonly matcher: ConstraintMatcher; readonly fed: FeedResult } {
    // The call the model completes is the prefix's last `axios.`; calls of the starter's own before it are context.
    // Without one, the whole prefix is context and the call is still to come.
    const last = prefix.lastIndexOf('axios.');
    const callStart = last === -1 ? prefix.length : last;
    return ConstraintMatcher.forSetup(spec, { starter: prefix, callStart, definitions: {} });
  }

  /**
   * A matcher for a setup (see api/setup.ts): its language takes the names in scope at the call
   * (namesInScope: the starter's declarations as a parser reads them, and the sample's
   * definitions), and it starts at `callStart`, whatever calls of Axios the starter holds before
   * it; the starter from there is fed through it. Offsets count from the start of the starter.
   */
  static forSetup(spec: ApiSpec, setup: Pick<Setup, 'starter' | 'callStart' | 'definitions'>): { readonly matcher: ConstraintMatcher; readonly fed: FeedResult } {
    const compiled = compileConstraints(spec, namesInScope(setup));
    const matcher = new ConstraintMatcher([push(new FreeFrame(compiled, 0, false), null)], setup.callStart, compiled);
    return { matcher, fed: matcher.feed(setup.starter.slice(setup.callStart)) };
  }

  clone(): ConstraintMatcher {
    return new ConstraintMatcher(this.threads, this.consumed, this.language);
  }

  /** Characters accepted so far. */
  get offset(): number {
    return this.consumed;
  }

  /** Tries one character; on success the matcher advances, on failure it stays as it was. */
  push(c: string): boolean {
    const threads = this.step(c);
    if (!threads) return false;
    this.threads = threads;
    this.consumed++;
    return true;
  }

  /**
   * The matcher after one more character, or undefined when it cannot follow; this one is left as
   * it was. For the token mask, which tries characters from states it keeps: a refused character
   * costs no copy.
   */
  after(c: string): ConstraintMatcher | undefined {
    const threads = this.step(c);
    return threads && new ConstraintMatcher(threads, this.consumed + 1, this.language);
  }

  /** The threads after one more character, undefined when none. */
  private step(c: string): Stack[] | undefined {
    // The steps go into a scratch array, and a state keeps an array of its own size: a fresh `[]`
    // per character was the largest allocation of a first-time mask (its first push reserves 17
    // places), and every state the mask keeps held one. Taken while in use, in case a step feeds
    // another matcher.
    const steps = stepScratch ?? { stacks: [], count: 0 };
    stepScratch = undefined;
    steps.count = 0;
    for (const t of this.threads) stepStack(t, c, steps);
    const { stacks, count } = steps;
    let threads: Stack[] | undefined;
    if (count === 1) threads = [stacks[0]!];
    else if (count > 1) {
      const seen = new Set<number>();
      threads = [];
      for (let i = 0; i < count; i++) {
        const id = stackId(stacks[i]!, this.language.stacks);
        if (seen.has(id)) continue;
        seen.add(id);
        threads.push(stacks[i]!);
      }
    }
    stepScratch = steps;
    return threads;
  }

  /** Feeds text; stops at the first character after which no legal continuation exists. */
  feed(text: string): FeedResult {
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      if (!this.push(c)) return { ok: false, offset: this.consumed, reason: `${JSON.stringify(c)} cannot follow ${JSON.stringify(text.slice(Math.max(0, i - 30), i))} here` };
    }
    return { ok: true };
  }

  /**
   * The shortest text that closes every open invocation ('' when none is open), checked by
   * feeding it to a copy; undefined would mean a dead end, which the language must never have.
   */
  completion(): string | undefined {
    if (this.isComplete()) return '';
    const options = [...new Set(this.threads.map(stackCompletion))].sort((a, b) => a.length - b.length);
    return options.find((text) => {
      const copy = this.clone();
      return copy.feed(text).ok && copy.isComplete();
    });
  }

  /** Identifies the state: equal keys accept the same continuations (used to memoise token masks). */
  stateKey(): StateKey {
    const names = this.language.stacks;
    if (this.threads.length === 1) return stackId(this.threads[0]!, names);
    return this.threads
      .map((t) => stackId(t, names))
      .sort((a, b) => a - b)
      .join(' ');
  }

  /**
   * A class of characters some thread accepts in any sequence (see Frame.openClass): every text
   * made of them is a legal continuation. The token mask uses it to skip the trie walk.
   */
  openClass(): CharClass | undefined {
    for (const t of this.threads) {
      const cls = t?.frame.openClass?.();
      if (cls) return cls;
    }
    return undefined;
  }

  /**
   * The open class when the state is one thread whose class is stable (string contents): each of
   * the class's characters then leads back to this very state, which the token mask takes
   * without a step (a walk that descends through a string tried every content character once per
   * new state, 15% of the token bench's matcher steps).
   */
  loopClass(): CharClass | undefined {
    if (this.threads.length !== 1) return undefined;
    const cls = this.threads[0]?.frame.openClass?.();
    return cls?.stable ? cls : undefined;
  }

  /**
   * The state every character outside `exits` leads to, when the state is one thread whose top
   * frame says so (see Frame.jump): after a string's backslash, its contents again. An escape
   * state's mask walk stepped each of its 60-odd next characters to that same state (50,000 of
   * the token bench's matcher steps).
   */
  jump(): { readonly exits: (c: string) => boolean; readonly to: ConstraintMatcher } | undefined {
    const top = this.alone();
    const jump = top?.frame.jump?.();
    if (!top || !jump) return undefined;
    return { exits: jump.exits, to: new ConstraintMatcher([push(jump.frame, top.parent)], this.consumed + 1, this.language) };
  }

  /**
   * Inside whitespace between tokens (one thread, a run of whitespace on top): the run so far,
   * and the state below it, which takes every character but whitespace: a run keeps only
   * whitespace and otherwise ends (see WsFrame), unless a `\r` waits for its `\n`. The token
   * mask walks whitespace tokens with these instead of a state per character.
   */
  whitespace(): { readonly frame: WsFrame; readonly under: ConstraintMatcher } | undefined {
    const top = this.threads.length === 1 ? this.threads[0]! : null;
    if (!top?.parent || !(top.frame instanceof WsFrame)) return undefined;
    return { frame: top.frame, under: new ConstraintMatcher([top.parent], this.consumed, this.language) };
  }

  /** The texts that are the only way on, when the state is one thread whose top frame says so (see Frame.literals). */
  literals(): readonly string[] | undefined {
    return this.alone()?.frame.literals?.();
  }

  /** The one thread, when the state is one and its top frame cannot end: that frame alone says what comes next. */
  private alone(): Stack {
    const top = this.threads.length === 1 ? this.threads[0]! : null;
    return top && !top.frame.canEnd() ? top : null;
  }

  /** True when no thread takes a character beyond ASCII next (the token mask then skips those branches). */
  asciiOnly(): boolean {
    return this.threads.every((t) => {
      for (let s = t; s; s = s.parent) {
        if (!s.frame.asciiOnly?.()) return false;
        if (!s.frame.canEnd()) return true;
      }
      return true;
    });
  }

  /**
   * The ASCII characters `push` may accept next, or a superset (see Frame.nextAscii); undefined
   * when some frame does not say, so any may follow. Read only: it may be a frame's own set, or
   * `into` (cleared first) when given, which a caller that keeps few of them passes to allocate none.
   */
  nextAscii(into?: AsciiSet): AsciiSet | undefined {
    // One frame that cannot end answers alone (most states): its own set, not a copy.
    const top = this.alone();
    if (top) return top.frame.nextAscii?.();
    const bits = into?.fill(0) ?? new Uint32Array(4);
    for (const thread of this.threads) {
      for (let s = thread; s; s = s.parent) {
        const own = s.frame.nextAscii?.();
        if (!own) return undefined;
        for (let w = 0; w < 4; w++) bits[w]! |= own[w]!;
        if (!s.frame.canEnd()) break;
      }
    }
    return bits;
  }

  /** True when part of `axios.` has been typed in free text (a token of raw bytes must not split it). */
  get pending(): boolean {
    return this.threads.some((t) => t !== null && t.parent === null && t.frame instanceof FreeFrame && t.frame.progress > 0);
  }

  /** True when no invocation is open: generation may end here. */
  isComplete(): boolean {
    return this.threads.some((t) => t !== null && t.parent === null && t.frame instanceof FreeFrame);
  }
}
