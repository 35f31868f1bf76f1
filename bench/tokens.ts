import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConstraintMatcher, declaredNames, exportGbnf, preparedTokenIndex, TokenConstraint, tokenIndex, vocabularyFromGguf, type Vocabulary } from '../main/constraints/index.js';
import { parseDataset, type SampleDraft as Sample } from '../main/dataset/index.js';
import { cacheDir } from '../main/generation/vocabularies.js';
import { readGgufMetadata } from '../main/gguf/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';
import { oracleProgram } from '../main/prompt/index.js';
import { MaskDiff, type DiffTally } from './maskDiff.js';
import { fmt, percentiles } from './stats.js';
import { gbnfForXGrammar, type XGrammar, type XGrammarCompiler, type XGrammarMatcher } from './xgrammar.js';

export interface NativeGrammar {
  /** True for a stand-in with no grammar engine (see pretokenized.ts): its rows are left out. */
  readonly absent?: boolean;
  grammar(text: string): Promise<unknown>;
  state(grammar: unknown): unknown;
  tokenize(text: string): number[];
  canBeNext(state: unknown, token: number): boolean;
  accept(state: unknown, token: number): void;
}

/** What one range of samples' walk measured (see measureRange); plain data, so a child process can send it. */
export interface RangeResult {
  readonly tokens: number;
  /** XGrammar's compile of each API's grammar, in this walk. */
  readonly xgCompileMs: Record<string, number>;
  readonly check: number[];
  readonly memoised: number[];
  readonly nativeCheck: number[];
  readonly nativeMask: number[];
  readonly firstSight: number[];
  /**
   * The process's page faults while each first-time mask ran (beside firstSight), read just
   * outside its timing: on the 2-core machine a fault on fresh memory costs about 17 µs, and the
   * masks that take one are most of the median.
   */
  readonly firstFaults: number[];
  readonly xgAll: number[];
  readonly xgAtFirst: number[];
  /** Each first-time mask: µs, where, and the collections that overlapped it ('' for none). */
  readonly firstSpans: { us: number; where: string; gc: string }[];
  readonly gcKinds: Record<string, number>;
  /** Per sample walked (its index): sha-256 of its masks in order. */
  readonly hashes: [number, string][];
  readonly diff: DiffTally;
}

/** What every API's walk needs, made once per process. */
export interface TokenBenchContext {
  readonly specs: ReadonlyMap<string, ApiSpec>;
  readonly samples: readonly Sample[];
  readonly vocabulary: Vocabulary;
  readonly native: NativeGrammar;
  readonly xgCompiler: XGrammarCompiler;
  /** The names each API's constraint and grammar have (its first sample's starter). */
  readonly names: ReadonlyMap<string, string[]>;
}

export async function loadSpecs(wapiibench: string): Promise<Map<string, ApiSpec>> {
  const specs = new Map<string, ApiSpec>();
  for (const file of fs.readdirSync(path.join(wapiibench, 'specs')).sort()) {
    const loaded = await loadSpec(fs.readFileSync(path.join(wapiibench, 'specs', file), 'utf8'), file);
    if (!loaded.ok) throw new Error(loaded.error.message);
    specs.set(file.replace(/\.ya?ml$/, ''), loaded.value);
  }
  return specs;
}

export function loadSamples(wapiibench: string): Sample[] {
  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

/** WAPII_BENCH_TOKEN_SAMPLES=n keeps every k-th sample (about n of them), for a quick look; the bench's figures are over all 395. */
function keptSamples(samples: readonly Sample[]): readonly Sample[] {
  const limit = Number(process.env['WAPII_BENCH_TOKEN_SAMPLES'] ?? 0);
  return limit > 0 ? samples.filter((_, n) => n % Math.max(1, Math.floor(samples.length / limit)) === 0) : samples;
}

function namesOf(samples: readonly Sample[]): Map<string, string[]> {
  const names = new Map<string, string[]>();
  for (const sample of samples) if (!names.has(sample.api)) names.set(sample.api, declaredNames(oracleProgram(sample, 'full', 'single').starter));
  return names;
}

/** XGrammar's preparation of the GGUF's own token strings (byte-level BPE spelling) with the same stop tokens. */
function prepareXGrammar(xgrammar: XGrammar, gguf: Buffer, vocabulary: Vocabulary): Promise<XGrammarCompiler> {
  const encoded = readGgufMetadata(gguf).get('tokenizer.ggml.tokens') as string[];
  return xgrammar.prepare(encoded, vocabulary.model === 'gpt2' ? 'byte_level' : 'byte_fallback', vocabulary.eos);
}

/**
 * The vocabulary whose masks are measured: its token index read back from the disk cache, as a
 * later process would, and how long that took (the vocabulary's hash, the file read, its arrays'
 * views; not the GGUF's parse, which every process pays either way).
 */
function cachedVocabulary(gguf: Buffer): { vocabulary: Vocabulary; ms: number } {
  const vocabulary = vocabularyFromGguf(gguf);
  const cache = cacheDir('vocab');
  const t0 = performance.now();
  const restored = preparedTokenIndex(vocabulary, cache);
  const ms = performance.now() - t0;
  if (restored.from !== 'cache') throw new Error(`bench: the token index was not read back from ${cache}: ${restored.note ?? '?'}`);
  return { vocabulary, ms };
}

/** One API's constraint (one per API, as a run keeps it: its masks are memoised per state across samples) and XGrammar's matcher. */
interface ApiWalk {
  readonly constraint: TokenConstraint;
  readonly grammar: unknown;
  readonly xg: XGrammarMatcher;
}

/**
 * The samples `from .. to` (in the dataset's order), token by token: our check and full mask
 * beside XGrammar's mask, timed at the same position one after the other, and llama.cpp's check
 * (and its full mask at `nativeMasks` positions). Each API's constraint first replays the API's
 * samples before `from` (ours only, untimed: the same checks, masks and steps), so its memoised
 * masks and automaton are those of a walk from the first sample, and the first-time masks of a
 * range are the same whether the ranges run one after the other or side by side.
 */
export async function measureRange(context: TokenBenchContext, from: number, to: number, nativeMasks: number): Promise<RangeResult> {
  const { vocabulary, native, xgCompiler } = context;
  const r: RangeResult = { tokens: 0, xgCompileMs: {}, check: [], memoised: [], nativeCheck: [], nativeMask: [], firstSight: [], firstFaults: [], xgAll: [], xgAtFirst: [], firstSpans: [], gcKinds: {}, hashes: [], diff: { positions: 0, same: 0, kinds: [], refusals: [] } };
  const walks = new Map<string, ApiWalk>();
  const walkOf = async (api: string): Promise<ApiWalk> => {
    const known = walks.get(api);
    if (known) return known;
    const spec = context.specs.get(api)!;
    const names = context.names.get(api)!;
    const constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(spec, names));
    for (const sample of context.samples.slice(0, from)) {
      if (sample.api !== api) continue;
      const { starter, program } = oracleProgram(sample, 'full', 'single');
      constraint.reset();
      constraint.state.feed(starter);
      for (const token of native.tokenize(program.slice(starter.length))) {
        const ok = constraint.check(token);
        constraint.mask();
        if (!ok) break;
        constraint.advance(token);
      }
    }
    const t0 = performance.now();
    const xgGrammar = await xgCompiler.compile(gbnfForXGrammar(exportGbnf(spec, names)));
    r.xgCompileMs[api] = performance.now() - t0;
    const walk = { constraint, grammar: await native.grammar(exportGbnf(spec, ['axios'])), xg: await xgCompiler.matcher(xgGrammar) };
    walks.set(api, walk);
    return walk;
  };
  // Garbage collections (any kind) that overlapped a first-time mask: the max is told apart from them.
  const gcs: { start: number; end: number; kind: string }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration, kind: gcKind(e) });
  });
  observer.observe({ entryTypes: ['gc'] });
  const spans: { start: number; end: number; us: number; where: string }[] = [];
  const diff = new MaskDiff(vocabulary);
  let tokens = 0;
  for (let n = from; n < to; n++) {
    const sample = context.samples[n]!;
    const api = sample.api;
    const { constraint, grammar, xg } = await walkOf(api);
    const { starter, program } = oracleProgram(sample, 'full', 'single');
    const hash = createHash('sha256');
    constraint.reset();
    constraint.state.feed(starter);
    const state = native.state(grammar);
    xg.reset();
    diff.startSample();
    let written = '';
    for (const token of native.tokenize(program.slice(starter.length))) {
      let t0 = performance.now();
      const ok = constraint.check(token);
      r.check.push((performance.now() - t0) * 1000);
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
      const faults = process.resourceUsage().minorPageFault;
      t0 = performance.now();
      const mask = constraint.mask();
      const t1 = performance.now();
      if (!seen) r.firstFaults.push(process.resourceUsage().minorPageFault - faults);
      if (tokens % 2 === 0) await timeXg();
      (seen ? r.memoised : r.firstSight).push((t1 - t0) * 1000);
      r.xgAll.push(xgUs);
      if (!seen) {
        r.xgAtFirst.push(xgUs);
        spans.push({ start: t0, end: t1, us: (t1 - t0) * 1000, where: `sample ${n} (${api}), token ${tokens}` });
      }
      hash.update(new Uint8Array(mask.buffer, mask.byteOffset, mask.byteLength));
      diff.compare(mask, xgMask!, constraint.state, `sample ${n} (${api}) after ${JSON.stringify(written.slice(-24))}`);
      t0 = performance.now();
      const nativeOk = native.canBeNext(state, token);
      r.nativeCheck.push((performance.now() - t0) * 1000);
      // A full native mask asks llama.cpp about every one of the 151,936 tokens: measured at a few positions only.
      if (r.nativeMask.length < nativeMasks && tokens % 7 === 0) {
        t0 = performance.now();
        for (let id = 0; id < vocabulary.text.length; id++) native.canBeNext(state, id);
        r.nativeMask.push((performance.now() - t0) * 1000);
      }
      const xgOk = xg.acceptToken(token);
      if (!ok || !nativeOk || !xgOk) {
        if (ok !== xgOk) diff.refused(`sample ${n} (${api}): the ground truth's token ${JSON.stringify(vocabulary.text[token])} ${ok ? 'refused by XGrammar' : 'refused by the engine'}`);
        break;
      }
      constraint.advance(token);
      native.accept(state, token);
      written += vocabulary.text[token] ?? '';
      tokens++;
      // One turn of the event loop per position, as a generation has (each token's evaluation
      // comes back from llama.cpp's thread through it): the collector's tasks run there, outside
      // any timing, where a loop that never yields has them finish inside whichever mask is running.
      if (process.env['WAPII_BENCH_NO_TURN'] !== '1') await new Promise<void>((resolve) => setImmediate(resolve));
    }
    r.hashes.push([n, hash.digest('hex')]);
  }
  for (const walk of walks.values()) walk.xg.dispose();
  // Entries arrive after the collection: let the last ones in.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  for (const m of spans) {
    const inside = gcs.filter((g) => g.start < m.end && g.end > m.start);
    for (const g of inside) r.gcKinds[g.kind] = (r.gcKinds[g.kind] ?? 0) + 1;
    r.firstSpans.push({ us: m.us, where: m.where, gc: inside.map((g) => `${g.kind} ${fmt(g.end - g.start, 1)} ms`).join(', ') });
  }
  return { ...r, tokens, diff: diff.tally() };
}

/** How many processes walk ranges of samples at once: WAPII_BENCH_JOBS, else all cores but two where there are 8 or more, else one (this process). */
function jobsWanted(): number {
  const asked = Number(process.env['WAPII_BENCH_JOBS'] ?? 0);
  if (asked > 0) return asked;
  const cores = os.availableParallelism();
  return cores >= 8 ? cores - 2 : 1;
}

/** One range's walk in a child process of its own (tokenShard.ts beside this file), its result sent back. */
function measureRangeApart(wapiibench: string, vocabPath: string, from: number, to: number, nativeMasks: number): Promise<RangeResult> {
  // Beside this file: tokenShard.ts under tsx, tokenShard.mjs where the bench was bundled.
  const entry = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './tokenShard.ts' : './tokenShard.mjs', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = fork(entry, [wapiibench, vocabPath, String(from), String(to), String(nativeMasks)], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    let result: RangeResult | undefined;
    child.on('message', (m) => (result = m as RangeResult));
    child.on('error', reject);
    child.on('exit', (code) => (result ? resolve(result) : reject(new Error(`bench: the walk of samples ${from} to ${to} exited with ${code} before its result`))));
  });
}

/**
 * Ranges of samples with about equal numbers of tokens, `count` of them, for processes side by
 * side: XGrammar's masks are nearly all of the bench's time (its tail is hundreds of
 * milliseconds inside strings), and a range's walk is the same wherever it runs (see measureRange).
 */
function rangesOf(tokenCounts: readonly number[], count: number): [number, number][] {
  const total = tokenCounts.reduce((a, b) => a + b, 0);
  const ranges: [number, number][] = [];
  let from = 0;
  let sum = 0;
  for (let n = 0; n < tokenCounts.length; n++) {
    sum += tokenCounts[n]!;
    if (sum >= (total * (ranges.length + 1)) / count && n + 1 < tokenCounts.length) {
      ranges.push([from, n + 1]);
      from = n + 1;
    }
  }
  ranges.push([from, tokenCounts.length]);
  return ranges;
}

/** The context of a child process's walk (see tokenShard.ts): the vocabulary from the cache, XGrammar prepared there. */
export async function apartContext(wapiibench: string, vocabPath: string, loadModel: (file: string) => Promise<NativeGrammar>, xgrammar: XGrammar): Promise<TokenBenchContext> {
  const gguf = fs.readFileSync(vocabPath);
  const samples = loadSamples(wapiibench);
  const { vocabulary } = cachedVocabulary(gguf);
  return { specs: await loadSpecs(wapiibench), samples: keptSamples(samples), vocabulary, native: await loadModel(vocabPath), xgCompiler: await prepareXGrammar(xgrammar, gguf, vocabulary), names: namesOf(samples) };
}

/**
 * Token level along the 395 ground-truth completions tokenized with the qwen2 vocabulary
 * (151,936 tokens): our check and full mask per token beside XGrammar's mask (its WebAssembly
 * build, on the engine's GBNF export with the same declared names), and llama.cpp's native
 * grammar engine on the exported GBNF (node-llama-cpp, vocabulary-only model) as the older
 * baseline. Every position's two masks are compared bit for bit, each difference put in a class
 * with its reason (see maskDiff.ts), and a hash of all of ours is printed: a speed change must
 * leave it as it was. XGrammar's masks are nearly all of the time (its median is ours, its tail
 * hundreds of milliseconds), so on a machine with cores to spare the four APIs walk in four
 * processes at once; each API's walk is the same either way (its own constraint, its own
 * XGrammar matcher), so the figures are too.
 */
export async function benchTokenConstraints(
  wapiibench: string,
  compiled: { specs: ReadonlyMap<string, ApiSpec>; compileMs: number },
  vocabPath: string,
  loadModel: (file: string) => Promise<NativeGrammar>,
  xgrammar: XGrammar,
): Promise<void> {
  const started = performance.now();
  const gguf = fs.readFileSync(vocabPath);
  const samples = loadSamples(wapiibench);
  // Preparation, measured here: XGrammar's, ours built on a fresh vocabulary, then kept on disk and read back for another fresh one (as a later process would).
  let t0 = performance.now();
  const xgCompiler = await prepareXGrammar(xgrammar, gguf, vocabularyFromGguf(gguf));
  const xgPrepare = performance.now() - t0;
  const fresh = vocabularyFromGguf(gguf);
  t0 = performance.now();
  tokenIndex(fresh);
  const prepare = performance.now() - t0;
  const cache = cacheDir('vocab');
  preparedTokenIndex(fresh, cache);
  const { vocabulary, ms: restore } = cachedVocabulary(gguf);
  const jobs = jobsWanted();
  const kept = keptSamples(samples);
  const native = await loadModel(vocabPath);
  const nativeAbsent = native.absent === true;
  // WAPII_BENCH_TOKENIZED_WRITE=file keeps llama.cpp's tokens of every ground truth, for a run without it (see pretokenized.ts).
  const write = process.env['WAPII_BENCH_TOKENIZED_WRITE'];
  if (write) fs.writeFileSync(write, JSON.stringify(Object.fromEntries(samples.map((s) => oracleProgram(s, 'full', 'single')).map(({ starter, program }) => [program.slice(starter.length), native.tokenize(program.slice(starter.length))]))));
  let results: RangeResult[];
  const walking = performance.now();
  if (jobs > 1) {
    // Three ranges per process, taken as processes come free, so one slow range does not hold the rest up.
    const ranges = rangesOf(kept.map((sample) => { const { starter, program } = oracleProgram(sample, 'full', 'single'); return native.tokenize(program.slice(starter.length)).length; }), jobs * 3);
    results = new Array<RangeResult>(ranges.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < ranges.length) {
        const i = next++;
        const [from, to] = ranges[i]!;
        results[i] = await measureRangeApart(wapiibench, vocabPath, from, to, from === 0 ? 10 : 0);
      }
    };
    await Promise.all(Array.from({ length: Math.min(jobs, ranges.length) }, worker));
  } else {
    const context: TokenBenchContext = { specs: compiled.specs, samples: kept, vocabulary, native, xgCompiler, names: namesOf(samples) };
    results = [await measureRange(context, 0, kept.length, 10)];
  }
  const walkSeconds = (performance.now() - walking) / 1000;
  const all = (pick: (r: RangeResult) => number[]): number[] => results.flatMap(pick);
  const [check, firstSight, memoised, xgAll, xgAtFirst, nativeCheck, nativeMask] = [all((r) => r.check), all((r) => r.firstSight), all((r) => r.memoised), all((r) => r.xgAll), all((r) => r.xgAtFirst), all((r) => r.nativeCheck), all((r) => r.nativeMask)];
  const tokens = results.reduce((a, r) => a + r.tokens, 0);
  // Each API's compile as the range with its first sample measured it (a range that starts later compiles it again).
  const compiles = new Map<string, number>();
  for (const r of results) for (const [api, ms] of Object.entries(r.xgCompileMs)) if (!compiles.has(api)) compiles.set(api, ms);
  const xgCompile = [...compiles.values()].reduce((a, b) => a + b, 0);
  const row = (name: string, v: number[]): string => {
    const p = percentiles(v);
    return `| ${name} | ${fmt(p.p50, 1)} | ${fmt(p.p99, 1)} | ${fmt(p.max, 0)} | ${v.length} |`;
  };
  console.log(`\n## Constraints: token level, qwen2 vocabulary (${vocabulary.text.length} tokens), ${tokens} tokens of the 395 ground truths\n`);
  console.log(`Vocabulary preparation: ours ${fmt(prepare, 0)} ms built (token tries and every character class's tables), ${fmt(restore, 1)} ms read back from the cache on disk (${cache}: the vocabulary's hash, the tries read; the tokens' texts and each character class's tables are read after, in the background, a piece per turn of the event loop, or by a mask that needs one first; the masks below are the read-back index's); XGrammar ${xgrammar.version} (WebAssembly) ${fmt(xgPrepare, 0)} ms (TokenizerInfo and GrammarCompiler).`);
  console.log(`Compile, the four specs: ours ${fmt(compiled.compileMs, 0)} ms (above: every URL trie and endpoint rule); XGrammar ${fmt(xgCompile, 0)} ms (the GBNF export, its token mask caches).`);
  console.log(`The samples walked ${jobs > 1 ? `in ${results.length} ranges, ${Math.min(jobs, results.length)} processes side by side (${os.availableParallelism()} cores)` : 'in this process'}, ${fmt(walkSeconds, 0)} s${kept.length < samples.length ? `; ${kept.length} of the ${samples.length} samples (WAPII_BENCH_TOKEN_SAMPLES)` : ''}.\n`);
  console.log('| per token | p50 µs | p99 µs | max µs | n |');
  console.log('|---|---|---|---|---|');
  console.log(row("ours: check (the model's pick)", check));
  console.log(row('ours: full mask, first-time states (computed)', firstSight));
  console.log(row('ours: full mask, memoised states', memoised));
  console.log(row(`XGrammar ${xgrammar.version} (WebAssembly): full mask, every position`, xgAll));
  console.log(row('XGrammar: full mask, at our first-time positions', xgAtFirst));
  if (!nativeAbsent) {
    console.log(row('llama.cpp GBNF: check', nativeCheck));
    console.log(row(`llama.cpp GBNF: full mask (${nativeMask.length} positions)`, nativeMask));
  }
  const [ours, theirs] = [percentiles(firstSight), percentiles(xgAll)];
  console.log(`\nOurs (first-time) / XGrammar (every position): p50 ${fmt(ours.p50 / theirs.p50, 3)}x, p99 ${fmt(ours.p99 / theirs.p99, 4)}x, max ${fmt(ours.max / theirs.max, 4)}x (targets <= 0.5, 0.01, 0.1).`);
  const firstFaults = all((r) => r.firstFaults);
  const faulted = firstSight.filter((_, i) => firstFaults[i]! > 0);
  const clean = firstSight.filter((_, i) => firstFaults[i] === 0);
  console.log(
    `\nPage faults of this process inside our first-time masks: ${firstFaults.reduce((a, b) => a + b, 0)}, in ${faulted.length} of ${firstSight.length} masks (their p50 ${fmt(percentiles(faulted).p50, 1)} µs; the others' ${fmt(percentiles(clean).p50, 1)} µs).`,
  );
  const spans = results.flatMap((r) => r.firstSpans);
  const withGc = spans.filter((m) => m.gc !== '');
  const withoutGc = spans.filter((m) => m.gc === '').sort((a, b) => b.us - a.us);
  const worst = [...spans].sort((a, b) => b.us - a.us)[0];
  const byKind = new Map<string, number>();
  for (const r of results) for (const [k, n] of Object.entries(r.gcKinds)) byKind.set(k, (byKind.get(k) ?? 0) + n);
  console.log(
    `\nFirst-time masks with a garbage collection inside: ${withGc.length} of ${spans.length} (${[...byKind].map(([k, n]) => `${n} ${k}`).join(', ') || 'none'}). Max without one: ${fmt(withoutGc[0]?.us ?? NaN, 0)} µs (${withoutGc[0]?.where ?? '-'}); the max itself: ${worst?.where ?? '-'}${worst && worst.gc !== '' ? `, with a collection inside (${worst.gc})` : ''}.`,
  );
  // Each sample's masks hashed in order, then the samples' hashes in the dataset's order: the same however the walks ran.
  const hash = createHash('sha256');
  for (const [, h] of results.flatMap((r) => r.hashes).sort((a, b) => a[0] - b[0])) hash.update(h);
  console.log(`\nHash of all our masks at these positions (sha-256 of each sample's sha-256): ${hash.digest('hex')}`);
  MaskDiff.report(results.map((r) => r.diff));
  console.log(`\nThe token bench took ${fmt((performance.now() - started) / 1000, 0)} s.`);
}

/** A collection's kind as node names it (perf_hooks' NODE_PERFORMANCE_GC_* flags). */
function gcKind(entry: PerformanceEntry): string {
  const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return kind === 1 ? 'scavenge' : kind === 2 ? 'minor mark-sweep' : kind === 4 ? 'mark-compact' : kind === 8 ? 'incremental marking' : kind === 16 ? 'weak callbacks' : 'collection';
}
