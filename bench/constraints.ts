import fs from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { compileConstraints, ConstraintMatcher, declaredNames, exportGbnf, TokenConstraint, tokenIndex, vocabularyFromGguf } from '../main/constraints/index.js';
import { parseDataset } from '../main/dataset/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';
import { oracleProgram } from '../main/prompt/index.js';
import { fmt, percentiles } from './stats.js';

/**
 * The character-level constraint matcher (no tokens, no model yet): compile time per spec (all
 * URL tries and endpoint rules, which are otherwise built lazily) and the cost of one character
 * along every ground-truth completion, with and without the copy a token check makes first.
 */
export async function benchConstraints(wapiibench: string): Promise<Map<string, ApiSpec>> {
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
  return specs;
}

/**
 * Token level along the 395 ground-truth completions tokenized with the qwen2 vocabulary
 * (151,936 tokens): our check and full mask per token, and llama.cpp's native grammar engine on
 * the exported GBNF (node-llama-cpp, vocabulary-only model) as the side-by-side baseline.
 */
export async function benchTokenConstraints(wapiibench: string, specs: ReadonlyMap<string, ApiSpec>, vocabPath: string, loadModel: (file: string) => Promise<NativeGrammar>): Promise<void> {
  const vocabulary = vocabularyFromGguf(fs.readFileSync(vocabPath));
  const native = await loadModel(vocabPath);
  const grammars = new Map<string, unknown>();
  for (const [api, spec] of specs) grammars.set(api, await native.grammar(exportGbnf(spec, ['axios'])));
  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);
  const check: number[] = [];
  const memoised: number[] = [];
  const nativeCheck: number[] = [];
  const nativeMask: number[] = [];
  const firstSight: number[] = [];
  // Garbage collections (any kind) that overlapped a first-time mask: the max is told apart from them.
  const gcs: { start: number; end: number; kind: string }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration, kind: gcKind(e) });
  });
  observer.observe({ entryTypes: ['gc'] });
  const firstSpans: { start: number; end: number; us: number; where: string }[] = [];
  let tokens = 0;
  // Masks and their tables are per vocabulary: a fresh one, so preparation is measured here.
  let t0 = performance.now();
  tokenIndex(vocabulary);
  const prepare = performance.now() - t0;
  // One TokenConstraint per API, as a run keeps it: its masks are memoised per state across samples.
  const constraints = new Map<string, TokenConstraint>();
  for (const sample of parsed.value) {
    const { starter, program } = oracleProgram(sample, 'full', 'single');
    let constraint = constraints.get(sample.api);
    if (!constraint) constraints.set(sample.api, (constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(specs.get(sample.api)!, declaredNames(starter)))));
    constraint.reset();
    constraint.state.feed(starter);
    const state = native.state(grammars.get(sample.api)!);
    for (const token of native.tokenize(program.slice(starter.length))) {
      t0 = performance.now();
      const ok = constraint.check(token);
      check.push((performance.now() - t0) * 1000);
      const seen = constraint.memoised();
      t0 = performance.now();
      constraint.mask();
      const t1 = performance.now();
      (seen ? memoised : firstSight).push((t1 - t0) * 1000);
      if (!seen) firstSpans.push({ start: t0, end: t1, us: (t1 - t0) * 1000, where: `sample ${parsed.value.indexOf(sample)} (${sample.api}), token ${tokens}` });
      t0 = performance.now();
      const nativeOk = native.canBeNext(state, token);
      nativeCheck.push((performance.now() - t0) * 1000);
      // A full native mask asks llama.cpp about every one of the 151,936 tokens: measured at 10 positions only.
      if (nativeMask.length < 10 && tokens % 7 === 0) {
        t0 = performance.now();
        for (let id = 0; id < vocabulary.text.length; id++) native.canBeNext(state, id);
        nativeMask.push((performance.now() - t0) * 1000);
      }
      if (!ok || !nativeOk) break;
      constraint.advance(token);
      native.accept(state, token);
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
  console.log(`Vocabulary preparation (token trie in depth-first order, and every character class's exit table): ${fmt(prepare, 0)} ms, once per vocabulary.\n`);
  console.log('| per token | p50 µs | p99 µs | max µs | n |');
  console.log('|---|---|---|---|---|');
  console.log(row('ours: check (the model\'s pick)', check));
  console.log(row('ours: full mask, first-time states (computed)', firstSight));
  console.log(row('ours: full mask, memoised states', memoised));
  console.log(row('llama.cpp GBNF: check', nativeCheck));
  console.log(row('llama.cpp GBNF: full mask (10 positions)', nativeMask));
  const collections = (m: { start: number; end: number }): string =>
    inside(m)
      .map((g) => `${g.kind} ${fmt(g.end - g.start, 1)} ms`)
      .join(', ');
  const byKind = new Map<string, number>();
  for (const g of withGc.flatMap(inside)) byKind.set(g.kind, (byKind.get(g.kind) ?? 0) + 1);
  console.log(
    `\nFirst-time masks with a garbage collection inside: ${withGc.length} of ${firstSpans.length} (${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}). Max without one: ${fmt(withoutGc[0]?.us ?? NaN, 0)} µs (${withoutGc[0]?.where ?? '-'}); the max itself: ${worst?.where ?? '-'}${worst && withGc.includes(worst) ? `, with a collection inside (${collections(worst)})` : ''}.`,
  );
  console.log('\nTargets for first-time states: p50 <= 50 µs, p99 <= 1 ms, max <= 20 ms. A first-time state pays the trie walk down to the first open class; the per-class exit tables are built at vocabulary preparation (above), not inside these figures.');
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
