import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { fmt } from './stats.js';

interface Measured {
  readonly bytes: number;
  readonly endpoints: number;
  readonly gbnfBytes: number;
  /** CPU ms per phase. */
  readonly times: Record<'import' | 'load' | 'checks' | 'coverage' | 'constraints' | 'gbnf', number>;
  readonly wall: Record<string, number>;
  readonly peakRssMb: number;
}

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs specCompileChild.ts on one file in a fresh Node process (its peak RSS is that spec's alone). */
function measure(file: string): Measured {
  const out = execFileSync(process.execPath, ['--import', 'tsx', path.join(here, 'specCompileChild.ts'), file], { encoding: 'utf8', maxBuffer: 16 << 20 });
  return JSON.parse(out.trim().split('\n').pop()!) as Measured;
}

/**
 * A multi-megabyte description made from WAPIIBench's Slack spec (Apache-2.0 in WAPIIBench): its
 * paths copied under `/v<k>` prefixes until the JSON text passes `minBytes`, components shared.
 * Used when no real large description is given (WAPII_BENCH_SPEC).
 */
function generateLarge(wapiibench: string, minBytes: number): string {
  const slack = parse(fs.readFileSync(path.join(wapiibench, 'specs', 'slack.yaml'), 'utf8')) as Record<string, unknown>;
  const paths = slack['paths'] as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const one = JSON.stringify(paths).length;
  const copies = Math.ceil(minBytes / one);
  for (let k = 0; k < copies; k++) for (const [p, item] of Object.entries(paths)) out[`/v${k}${p}`] = item;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'wapii-bench-spec-')), 'generated.json');
  fs.writeFileSync(file, JSON.stringify({ ...slack, info: { title: `Slack x${copies}`, version: '1' }, paths: out }));
  return file;
}

/**
 * Compile time and peak memory of a large description beside WAPIIBench's four: import
 * (Swagger conversion check), load (parse, dereference, model), a check and an endpoint match per
 * endpoint (what checks and coverage do per sample), the constraint language compiled eagerly
 * (URL tries of every method, rules of every endpoint), and the GBNF export. The large one is
 * WAPII_BENCH_SPEC when set (e.g. GitHub's api.github.com.json, MIT, from the npm package
 * @octokit/openapi: `npm pack @octokit/openapi`), else one generated from Slack's spec.
 */
export async function benchSpecCompile(wapiibench: string): Promise<void> {
  console.log('\n## Spec compile time and peak memory (one process per spec)\n');
  const large = process.env['WAPII_BENCH_SPEC'] ?? generateLarge(wapiibench, 8 << 20);
  const files = [...fs.readdirSync(path.join(wapiibench, 'specs')).sort().map((f) => path.join(wapiibench, 'specs', f)), large];
  console.log('CPU ms per phase (user + system of the spec\'s own process); wall ms in the total column beside it.\n');
  console.log('| spec | size | endpoints | import | load | checks | coverage | constraints | gbnf (size) | total CPU ms (wall) | peak RSS MB |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  const rows: { name: string; m: Measured; total: number }[] = [];
  for (const file of files) {
    const m = measure(file);
    const total = Object.values(m.times).reduce((a, b) => a + b, 0);
    rows.push({ name: path.basename(file), m, total });
    const t = m.times;
    console.log(
      `| ${path.basename(file)} | ${fmt(m.bytes / 1024 / 1024, 2)} MB | ${m.endpoints} | ${fmt(t.import, 0)} | ${fmt(t.load, 0)} | ${fmt(t.checks, 0)} | ${fmt(t.coverage, 0)} | ${fmt(t.constraints, 0)} | ${fmt(t.gbnf, 0)} (${fmt(m.gbnfBytes / 1024, 0)} KiB) | ${fmt(total, 0)} (${fmt(Object.values(m.wall).reduce((a, b) => a + b, 0), 0)}) | ${fmt(m.peakRssMb, 0)} |`,
    );
  }
  const big = rows.at(-1)!;
  const wapii = rows.slice(0, -1);
  const largest = wapii.reduce((a, b) => (b.m.bytes > a.m.bytes ? b : a));
  console.log(
    `\n${big.name} against WAPIIBench's largest (${largest.name}): ${fmt(big.m.bytes / largest.m.bytes, 1)}x the size, ${fmt(big.m.endpoints / largest.m.endpoints, 1)}x the endpoints, ` +
      `${fmt(big.total / largest.total, 1)}x the compile CPU time, ${fmt(big.m.peakRssMb / largest.m.peakRssMb, 2)}x the peak memory ` +
      `(all four WAPIIBench specs together: ${fmt(wapii.reduce((a, r) => a + r.total, 0), 0)} CPU ms).`,
  );
}
