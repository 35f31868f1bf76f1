import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { compileConstraints, ConstraintMatcher, declaredNames, exportGbnf, preparedTokenIndex, TokenConstraint, tokenBytes, tokenIndex, vocabularyFromGguf, type Vocabulary } from '../main/constraints/index.js';
import { cacheDir } from '../main/generation/vocabularies.js';
import { readGgufMetadata } from '../main/gguf/index.js';
import { parseDataset } from '../main/dataset/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';
import { oracleProgram } from '../main/prompt/index.js';
import { fmt, percentiles } from './stats.js';
import { gbnfForXGrammar, type XGrammar, type XGrammarCompiled, type XGrammarMatcher } from './xgrammar.js';

/**
 * The character-level constraint matcher (no tokens, no model yet): compile time per spec (all
 * URL tries and endpoint rules, which are otherwise built lazily) and the cost of one character
 * along every ground-truth completion, with and without the copy a token check makes first.
 */
export async function benchConstraints(wapiibench: string): Promise<{ specs: Map<string, ApiSpec>; compileMs: number }> {
  const specs = new Map<string, ApiSpec>();
  console.log('\n## Constraints: character-level matcher\n');
  console.log('| spec | endpoints | compile ms |');
  console.log('|---|---|---|');
  let totalCompile = 0;
  for (const file of fs.readdirSync(path.join(wapiibench, 'specs')).sort()) {
    const loaded = await loadSpec(fs.readFileSync(path.join(wapiibench, 'specs', file), 'utf8'), file);
    if (!loaded.ok) throw new Error(loaded.error.message);
    const spec = loaded.value;
    specs.set(file.replace(/\.ya?ml$/, ''), spec);
    const t0 = performance.now();
    const compiled = compileConstraints(spec);
    for (const method of compiled.methods) compiled.urlTrie(method);
    for (const endpoint of spec.endpoints) compiled.rulesOf(endpoint);
    const ms = performance.now() - t0;
    totalCompile += ms;
    console.log(`| ${file} | ${spec.endpoints.length} | ${fmt(ms, 1)} |`);
  }
  console.log(`| all four | | ${fmt(totalCompile, 1)} |`);

  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);
  const perChar: number[] = [];
  const perCheck: number[] = [];
  for (const sample of parsed.value) {
    const { starter, program } = oracleProgram(sample, 'full', 'single');
    const matcher = ConstraintMatcher.create(specs.get(sample.api)!);
    matcher.feed(starter);
    for (const c of program.slice(starter.length)) {
      let t0 = performance.now();
      const probe = matcher.clone();
      probe.push(c);
      perCheck.push((performance.now() - t0) * 1000);
      t0 = performance.now();
      if (!matcher.push(c)) break;
      perChar.push((performance.now() - t0) * 1000);
    }
  }
  const a = percentiles(perChar);
  const b = percentiles(perCheck);
  console.log('\n| per character, 395 ground truths | p50 µs | p99 µs | max µs |');
  console.log('|---|---|---|---|');
  console.log(`| push | ${fmt(a.p50)} | ${fmt(a.p99)} | ${fmt(a.max, 0)} |`);
  console.log(`| clone + push (a check) | ${fmt(b.p50)} | ${fmt(b.p99)} | ${fmt(b.max, 0)} |`);
  console.log(`\n${perChar.length} characters.`);
  return { specs, compileMs: totalCompile };
}

/**
 * Token level along the 395 ground-truth completions tokenized with the qwen2 vocabulary
 * (151,936 tokens): our check and full mask per token beside XGrammar's mask (its WebAssembly
 * build, on the engine's GBNF export with the same declared names), timed at the same position
 * one after the other, and llama.cpp's native grammar engine on the exported GBNF (node-llama-cpp,
 * vocabulary-only model) as the older baseline. Every position's two masks are compared bit for
 * bit, and a hash of all of ours is printed: a speed change must leave it as it was.
 */
export async function benchTokenConstraints(
  wapiibench: string,
  compiled: { specs: ReadonlyMap<string, ApiSpec>; compileMs: number },
  vocabPath: string,
  loadModel: (file: string) => Promise<NativeGrammar>,
  xgrammar: XGrammar,
): Promise<void> {
  const { specs } = compiled;
  const gguf = fs.readFileSync(vocabPath);
  const prepared = vocabularyFromGguf(gguf);
  const native = await loadModel(vocabPath);
  const grammars = new Map<string, unknown>();
  for (const [api, spec] of specs) grammars.set(api, await native.grammar(exportGbnf(spec, ['axios'])));
  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);

  // XGrammar prepares the GGUF's own token strings (byte-level BPE spelling) with the same stop tokens.
  const encoded = readGgufMetadata(gguf).get('tokenizer.ggml.tokens') as string[];
  let t0 = performance.now();
  const xgCompiler = await xgrammar.prepare(encoded, prepared.model === 'gpt2' ? 'byte_level' : 'byte_fallback', prepared.eos);
  const xgPrepare = performance.now() - t0;
  // One grammar per API with the names the engine's constraint has (the first sample's starter), so both speak one language.
  const names = new Map<string, string[]>();
  for (const sample of parsed.value) if (!names.has(sample.api)) names.set(sample.api, declaredNames(oracleProgram(sample, 'full', 'single').starter));
  const xgGrammars = new Map<string, XGrammarCompiled>();
  let xgCompile = 0;
  for (const [api, spec] of specs) {
    const ebnf = gbnfForXGrammar(exportGbnf(spec, names.get(api) ?? []));
    t0 = performance.now();
    xgGrammars.set(api, await xgCompiler.compile(ebnf));
    xgCompile += performance.now() - t0;
  }
  const xgMatchers = new Map<string, XGrammarMatcher>();
  for (const [api, grammar] of xgGrammars) xgMatchers.set(api, await xgCompiler.matcher(grammar));

  const check: number[] = [];
  const memoised: number[] = [];
  const nativeCheck: number[] = [];
  const nativeMask: number[] = [];
  const firstSight: number[] = [];
  const xgAll: number[] = [];
  const xgAtFirst: number[] = [];
  // Garbage collections (any kind) that overlapped a first-time mask: the max is told apart from them.
  const gcs: { start: number; end: number; kind: string }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration, kind: gcKind(e) });
  });
  observer.observe({ entryTypes: ['gc'] });
  const firstSpans: { start: number; end: number; us: number; where: string }[] = [];
  let tokens = 0;
  // Masks and their tables are per vocabulary: a fresh one, so preparation is measured here, then
  // kept on disk and read back for another fresh one (as a later process would), whose masks are measured.
  t0 = performance.now();
  tokenIndex(prepared);
  const prepare = performance.now() - t0;
  const cache = cacheDir('vocab');
  const kept = preparedTokenIndex(prepared, cache);
  const vocabulary = vocabularyFromGguf(gguf);
  t0 = performance.now();
  const restored = preparedTokenIndex(vocabulary, cache);
  const restore = performance.now() - t0;
  const hash = createHash('sha256');
  const diff = new MaskDiff(vocabulary);
  if (restored.from !== 'cache') throw new Error(`bench: the token index was not read back from ${cache}: ${restored.note ?? kept.note ?? '?'}`);
  // One TokenConstraint per API, as a run keeps it: its masks are memoised per state across samples.
  const constraints = new Map<string, TokenConstraint>();
  for (const [n, sample] of parsed.value.entries()) {
    const { starter, program } = oracleProgram(sample, 'full', 'single');
    let constraint = constraints.get(sample.api);
    if (!constraint) constraints.set(sample.api, (constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(specs.get(sample.api)!, names.get(sample.api)!))));
    constraint.reset();
    constraint.state.feed(starter);
    const state = native.state(grammars.get(sample.api)!);
    const xg = xgMatchers.get(sample.api)!;
    xg.reset();
    let written = '';
    for (const token of native.tokenize(program.slice(starter.length))) {
      t0 = performance.now();
      const ok = constraint.check(token);
      check.push((performance.now() - t0) * 1000);
      const seen = constraint.memoised();
      // The two masks one after the other, which first alternating, so neither always meets the other's cache leftovers.
      let xgMask: Int32Array | undefined;
      let xgUs = 0;
      const timeXg = async (): Promise<void> => {
        const t = performance.now();
        xgMask = await xg.getNextTokenBitmask();
        xgUs = (performance.now() - t) * 1000;
      };
      if (tokens % 2 === 1) await timeXg();
      t0 = performance.now();
      const mask = constraint.mask();
      const t1 = performance.now();
      if (tokens % 2 === 0) await timeXg();
      (seen ? memoised : firstSight).push((t1 - t0) * 1000);
      xgAll.push(xgUs);
      if (!seen) {
        xgAtFirst.push(xgUs);
        firstSpans.push({ start: t0, end: t1, us: (t1 - t0) * 1000, where: `sample ${n} (${sample.api}), token ${tokens}` });
      }
      hash.update(new Uint8Array(mask.buffer, mask.byteOffset, mask.byteLength));
      diff.compare(mask, xgMask!, `sample ${n} (${sample.api}) after ${JSON.stringify(written.slice(-24))}`);
      t0 = performance.now();
      const nativeOk = native.canBeNext(state, token);
      nativeCheck.push((performance.now() - t0) * 1000);
      // A full native mask asks llama.cpp about every one of the 151,936 tokens: measured at 10 positions only.
      if (nativeMask.length < 10 && tokens % 7 === 0) {
        t0 = performance.now();
        for (let id = 0; id < vocabulary.text.length; id++) native.canBeNext(state, id);
        nativeMask.push((performance.now() - t0) * 1000);
      }
      const xgOk = xg.acceptToken(token);
      if (!ok || !nativeOk || !xgOk) {
        if (ok !== xgOk) diff.refused(`sample ${n} (${sample.api}): the ground truth's token ${JSON.stringify(vocabulary.text[token])} ${ok ? 'refused by XGrammar' : 'refused by the engine'}`);
        break;
      }
      constraint.advance(token);
      native.accept(state, token);
      written += vocabulary.text[token] ?? '';
      tokens++;
    }
  }
  // Entries arrive after the collection: let the last ones in.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  const inside = (m: { start: number; end: number }): typeof gcs => gcs.filter((g) => g.start < m.end && g.end > m.start);
  const withGc = firstSpans.filter((m) => inside(m).length > 0);
  const withoutGc = firstSpans.filter((m) => !withGc.includes(m)).sort((a, b) => b.us - a.us);
  const worst = [...firstSpans].sort((a, b) => b.us - a.us)[0];
  const row = (name: string, v: number[]): string => {
    const p = percentiles(v);
    return `| ${name} | ${fmt(p.p50, 1)} | ${fmt(p.p99, 1)} | ${fmt(p.max, 0)} | ${v.length} |`;
  };
  console.log(`\n## Constraints: token level, qwen2 vocabulary (${vocabulary.text.length} tokens), ${tokens} tokens of the 395 ground truths\n`);
  console.log(`Vocabulary preparation: ours ${fmt(prepare, 0)} ms built (token tries and every character class's tables), ${fmt(restore, 1)} ms read back from the cache on disk (${cache}: the vocabulary's hash, the file read, its arrays' views; the masks below are the read-back index's); XGrammar ${xgrammar.version} (WebAssembly) ${fmt(xgPrepare, 0)} ms (TokenizerInfo and GrammarCompiler).`);
  console.log(`Compile, the four specs: ours ${fmt(compiled.compileMs, 0)} ms (above: every URL trie and endpoint rule); XGrammar ${fmt(xgCompile, 0)} ms (the GBNF export, its token mask caches).\n`);
  console.log('| per token | p50 µs | p99 µs | max µs | n |');
  console.log('|---|---|---|---|---|');
  console.log(row('ours: check (the model\'s pick)', check));
  console.log(row('ours: full mask, first-time states (computed)', firstSight));
  console.log(row('ours: full mask, memoised states', memoised));
  console.log(row(`XGrammar ${xgrammar.version} (WebAssembly): full mask, every position`, xgAll));
  console.log(row('XGrammar: full mask, at our first-time positions', xgAtFirst));
  console.log(row('llama.cpp GBNF: check', nativeCheck));
  console.log(row('llama.cpp GBNF: full mask (10 positions)', nativeMask));
  const [ours, theirs] = [percentiles(firstSight), percentiles(xgAll)];
  console.log(
    `\nOurs (first-time) / XGrammar (every position): p50 ${fmt(ours.p50 / theirs.p50, 3)}x, p99 ${fmt(ours.p99 / theirs.p99, 4)}x, max ${fmt(ours.max / theirs.max, 4)}x (targets <= 0.5, 0.01, 0.1).`,
  );
  const collections = (m: { start: number; end: number }): string =>
    inside(m)
      .map((g) => `${g.kind} ${fmt(g.end - g.start, 1)} ms`)
      .join(', ');
  const byKind = new Map<string, number>();
  for (const g of withGc.flatMap(inside)) byKind.set(g.kind, (byKind.get(g.kind) ?? 0) + 1);
  console.log(
    `\nFirst-time masks with a garbage collection inside: ${withGc.length} of ${firstSpans.length} (${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}). Max without one: ${fmt(withoutGc[0]?.us ?? NaN, 0)} µs (${withoutGc[0]?.where ?? '-'}); the max itself: ${worst?.where ?? '-'}${worst && withGc.includes(worst) ? `, with a collection inside (${collections(worst)})` : ''}.`,
  );
  console.log(`\nHash of all our masks at these positions (sha-256): ${hash.digest('hex')}`);
  diff.report();
}

/**
 * Our masks against XGrammar's, bit for bit, with each differing token put in a kind: XGrammar
 * allows or refuses partial UTF-8 and control tokens by rules of its own (ours allow them only
 * where the invocation is complete), so those are counted apart from whole-text tokens, whose
 * differences are the languages' and are listed with examples.
 */
class MaskDiff {
  private positions = 0;
  private same = 0;
  private readonly kinds = new Map<string, { positions: number; tokens: number; examples: string[] }>();
  private readonly refusals: string[] = [];
  private readonly kindOf: string[];

  constructor(private readonly vocabulary: Vocabulary) {
    const eos = new Set(vocabulary.eos);
    this.kindOf = vocabulary.text.map((text, id) => (eos.has(id) ? 'end of generation' : text !== null ? 'whole text' : tokenBytes(vocabulary, id).length > 0 ? 'partial UTF-8' : 'control'));
  }

  compare(ours: Uint32Array, theirs: Int32Array, where: string): void {
    this.positions++;
    const found = new Map<string, string[]>();
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
        list.push(JSON.stringify(this.vocabulary.text[id] ?? `<${id}>`));
      }
    }
    if (found.size === 0) this.same++;
    for (const [kind, ids] of found) {
      let entry = this.kinds.get(kind);
      if (!entry) this.kinds.set(kind, (entry = { positions: 0, tokens: 0, examples: [] }));
      entry.positions++;
      entry.tokens += ids.length;
      if (entry.examples.length < 3) entry.examples.push(`${where}: ${ids.slice(0, 6).join(' ')}${ids.length > 6 ? ` (${ids.length} in all)` : ''}`);
    }
  }

  refused(what: string): void {
    this.refusals.push(what);
  }

  report(): void {
    console.log(`\nMasks compared with XGrammar's at ${this.positions} positions: ${this.same} the same bit for bit.`);
    if (this.kinds.size > 0) {
      console.log('\n| differing tokens | positions | tokens | examples |');
      console.log('|---|---|---|---|');
      for (const [kind, e] of [...this.kinds].sort((a, b) => b[1].positions - a[1].positions)) console.log(`| ${kind} | ${e.positions} | ${e.tokens} | ${e.examples.join('; ').replace(/\|/g, '\\|')} |`);
    }
    if (this.refusals.length > 0) console.log(`\nGround-truth tokens one engine refused: ${this.refusals.length}; ${this.refusals.slice(0, 5).join('; ')}.`);
  }
}

/** A collection's kind as node names it (perf_hooks' NODE_PERFORMANCE_GC_* flags). */
function gcKind(entry: PerformanceEntry): string {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return kind === 1 ? 'scavenge' : kind === 2 ? 'minor mark-sweep' : kind === 4 ? 'mark-compact' : kind === 8 ? 'incremental marking' : kind === 16 ? 'weak callbacks' : 'collection';
}

export interface NativeGrammar {
  grammar(text: string): Promise<unknown>;
  state(grammar: unknown): unknown;
  tokenize(text: string): number[];
  canBeNext(state: unknown, token: number): boolean;
  accept(state: unknown, token: number): void;
}
