import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../main/store/index.js';
import { DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { CANARY, grammar, LIST, random } from '../support/hostileGrammar.js';
import { watchMemory } from '../support/processWatch.js';

/**
 * Random programs from a grammar of hostile fragments (getters, proxies, throws, timers, big
 * allocations, prototype edits, odd URLs and encodings, odd configs and bodies) through one real
 * `wapii score` process. The process must finish and answer every program; no program may take
 * longer than its limit plus the supervisor's margin; correct programs interleaved with them stay
 * `correct`. Seeded, so a failure reproduces; WAPII_FUZZ_SEED and WAPII_FUZZ_COUNT vary it.
 */
const SEED = Number(process.env['WAPII_FUZZ_SEED'] ?? 20261123);
const COUNT = Number(process.env['WAPII_FUZZ_COUNT'] ?? 2000);
const CANARY_EVERY = 25;
// Generous enough that a correct program finishes on a loaded 2-core machine; loops cost this much each.
const TIMEOUT_MS = 200;
const MARGIN_MS = 1000;

describe('fuzz: random hostile programs through the real `wapii score` process', () => {
  it(`${COUNT} programs (seed ${SEED}): every one answered within its limit plus the margin, no host failure, correct programs stay correct`, async () => {
    const generate = grammar(random(SEED));
    const dir = tempDir();
    const codes = path.join(dir, 'codes');
    fs.mkdirSync(codes);
    const canaries = new Set<number>();
    for (let i = 0; i < COUNT; i++) {
      const canary = i % CANARY_EVERY === CANARY_EVERY - 1;
      if (canary) canaries.add(i);
      fs.writeFileSync(path.join(codes, `${String(i).padStart(4, '0')}.js`), canary ? CANARY : generate());
    }
    const dataset = path.join(dir, 'dataset.json');
    fs.writeFileSync(dataset, JSON.stringify(Array.from({ length: COUNT }, () => ({ api: 'harbor', task: 'fuzz', config: LIST }))));
    const db = path.join(dir, 'wapii.db');

    const child = execFile(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'score', '--dataset', dataset, '--specs', DEMO_SPECS, '--codes', codes, '--timeout', String(TIMEOUT_MS), '--json', '--save'],
      { maxBuffer: 256 * 1024 * 1024, timeout: 600_000 },
    );
    const stop = watchMemory(child.pid!);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    const memory = stop();
    expect({ ...exit, stderr: stderr.split('\n').filter((l) => l && !l.startsWith('npm warn')) }).toEqual({ code: 0, signal: null, stderr: [] });
    const result = JSON.parse(stdout) as { samples: Record<string, { sample_verdict: string }>; run: number };
    expect(Object.keys(result.samples)).toHaveLength(COUNT);
    expect(memory.hostMb).toBeLessThan(600);
    expect(memory.childMb).toBeLessThan(600);

    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    const stored = opened.value.getRun(result.run);
    opened.value.close();
    const failedCanaries = [...canaries].filter((i) => result.samples[String(i)]?.sample_verdict !== 'correct').map((i) => [i, stored?.samples.find((s) => s.index === i)?.execution]);
    expect(failedCanaries).toEqual([]);
    // The bound the supervisor enforces: the limit, the margin, and a little for a loaded machine to deliver the kill.
    const overran = (stored?.samples ?? []).filter((s) => (s.durationMs ?? 0) > TIMEOUT_MS + MARGIN_MS + 1000).map((s) => [s.index, s.durationMs]);
    expect(overran).toEqual([]);
    expect(stored?.samples).toHaveLength(COUNT);
  }, 600_000);
});
