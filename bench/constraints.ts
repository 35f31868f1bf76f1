import fs from 'node:fs';
import path from 'node:path';
import { compileConstraints, ConstraintMatcher } from '../main/constraints/index.js';
import { parseDataset } from '../main/dataset/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';
import { oracleProgram } from '../main/prompt/index.js';
import { fmt, percentiles } from './stats.js';

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

