import { tokenBytes, type ConstraintMatcher, type Vocabulary } from '../main/constraints/index.js';

/** A MaskDiff's counts as plain data (a child process sends them), merged by MaskDiff.report. */
export interface DiffTally {
  positions: number;
  same: number;
  kinds: { kind: string; positions: number; tokens: number; examples: string[] }[];
  refusals: string[];
}

/**
 * Our masks against XGrammar's, bit for bit, with each differing token put in a kind: XGrammar
 * allows or refuses partial UTF-8 and control tokens by rules of its own (ours allow them only
 * where the invocation is complete), so those are counted apart from whole-text tokens, whose
 * differences are the languages' and are listed with examples.
 */
export class MaskDiff {
  private positions = 0;
  private same = 0;
  private readonly kinds = new Map<string, { positions: number; tokens: number; examples: string[] }>();
  private readonly refusals: string[] = [];
  private readonly kindOf: string[];

  constructor(private readonly vocabulary: Vocabulary) {
    const eos = new Set(vocabulary.eos);
    this.kindOf = vocabulary.text.map((text, id) => (eos.has(id) ? 'end of generation' : text !== null ? 'whole text' : tokenBytes(vocabulary, id).length > 0 ? 'partial UTF-8' : 'control'));
  }

  compare(ours: Uint32Array, theirs: Int32Array, _state: ConstraintMatcher, where: string): void {
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
        const kind = `${this.kindOf[id]}: ${side}`;
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
      console.log('\n| differing tokens | positions | tokens | examples |');
      console.log('|---|---|---|---|');
      for (const [kind, e] of [...kinds].sort((a, b) => b[1].positions - a[1].positions)) console.log(`| ${kind} | ${e.positions} | ${e.tokens} | ${e.examples.join('; ').replace(/\|/g, '\\|')} |`);
    }
    const refusals = tallies.flatMap((t) => t.refusals);
    if (refusals.length > 0) console.log(`\nGround-truth tokens one engine refused: ${refusals.length}; ${refusals.slice(0, 5).join('; ')}.`);
  }
}
