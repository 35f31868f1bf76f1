import fs from 'node:fs';
import path from 'node:path';
import { checkSample, parseDataset } from '../main/dataset/index.js';
import { loadSpec, type ApiSpec } from '../main/openapi/index.js';
import { fmt, percentiles } from './stats.js';

/**
 * Dataset checks on WAPIIBench: spec load (parse + dereference + model) per spec, then the
 * checks per sample, cold (validators compiled on first use) and warm (second pass).
 */
export async function benchChecks(wapiibench: string): Promise<void> {
  const specs = new Map<string, ApiSpec>();
  console.log('\n## Dataset checks (WAPIIBench, 395 samples)\n');
  console.log('| spec | size | load ms |');
  console.log('|---|---|---|');
  for (const file of fs.readdirSync(path.join(wapiibench, 'specs')).sort()) {
    const text = fs.readFileSync(path.join(wapiibench, 'specs', file), 'utf8');
    const t0 = performance.now();
    const spec = await loadSpec(text, file);
    const ms = performance.now() - t0;
    if (!spec.ok) throw new Error(spec.error.message);
    specs.set(file.replace(/\.ya?ml$/, ''), spec.value);
    console.log(`| ${file} | ${(text.length / 1024).toFixed(0)} KiB | ${fmt(ms, 0)} |`);
  }
  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);
  const pass = (): number[] =>
    parsed.value.map((sample) => {
      const t0 = performance.now();
      checkSample(specs.get(sample.api), sample);
      return performance.now() - t0;
    });
  const cold = pass();
  const warm = pass();
  console.log('\n| pass | total ms | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const [name, times] of [['cold', cold], ['warm', warm]] as const) {
    const p = percentiles(times);
    console.log(`| ${name} | ${fmt(times.reduce((a, b) => a + b, 0), 0)} | ${fmt(p.p50, 3)} | ${fmt(p.p99, 3)} | ${fmt(p.max, 1)} |`);
  }
  console.log(`\nwarm/cold total ratio: ${fmt(warm.reduce((a, b) => a + b, 0) / cold.reduce((a, b) => a + b, 0), 3)}`);
}
