import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConstraintMatcher, declaredNames, preparedTokenIndex, TokenConstraint, vocabularyFromGguf } from '../main/constraints/index.js';
import { cacheDir } from '../main/generation/vocabularies.js';
import { oracleProgram } from '../main/prompt/index.js';
import { vocabFile } from '../test/support/vocab.js';
import { nativeGrammar } from './native.js';
import { fmt, percentiles } from './stats.js';
import { loadSamples, loadSpecs } from './tokens.js';

// `npx tsx bench/ourMasks.ts`: the engine's masks alone along the token bench's walks (no
// XGrammar, no llama.cpp grammar; a walk stops only where the engine refuses), for working on
// mask speed in seconds: first-time mask percentiles and the hash of every mask, which a speed
// change must leave as it was.
const root = path.resolve(import.meta.dirname, '..');
const wapiibench = process.env['WAPIIBENCH'] ?? path.resolve(root, '..', 'shared', 'wapiibench');
const vocabPath = vocabFile('qwen2');
const gguf = fs.readFileSync(vocabPath);
const vocabulary = vocabularyFromGguf(gguf);
preparedTokenIndex(vocabulary, cacheDir('vocab'));
const native = await nativeGrammar(vocabPath);
const specs = await loadSpecs(wapiibench);
const samples = loadSamples(wapiibench);
const first: number[] = [];
const hash = createHash('sha256');
const constraints = new Map<string, TokenConstraint>();
let positions = 0;
const started = performance.now();
for (const sample of samples) {
  const { starter, program } = oracleProgram(sample, 'full', 'single');
  let constraint = constraints.get(sample.api);
  if (!constraint) constraints.set(sample.api, (constraint = new TokenConstraint(vocabulary, ConstraintMatcher.create(specs.get(sample.api)!, declaredNames(starter)))));
  constraint.reset();
  constraint.state.feed(starter);
  for (const token of native.tokenize(program.slice(starter.length))) {
    const ok = constraint.check(token);
    const seen = constraint.memoised();
    const t0 = performance.now();
    const mask = constraint.mask();
    if (!seen) first.push((performance.now() - t0) * 1000);
    hash.update(new Uint8Array(mask.buffer, mask.byteOffset, mask.byteLength));
    positions++;
    if (!ok) break;
    constraint.advance(token);
  }
}
const p = percentiles(first);
console.log(`${positions} positions, ${first.length} first-time masks: p50 ${fmt(p.p50, 1)} µs, p99 ${fmt(p.p99, 1)}, max ${fmt(p.max, 0)}, sum ${fmt((p.mean * first.length) / 1000, 0)} ms; all in ${fmt((performance.now() - started) / 1000, 1)} s`);
console.log(`hash ${hash.digest('hex')}`);
