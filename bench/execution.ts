import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseDataset } from '../main/dataset/index.js';
import { createExecutor, extractInvocation, referenceProgram, Sandbox } from '../main/execution/index.js';
import { oracleProgram } from '../main/prompt/index.js';
import { benchExecutionSteps } from './executionSteps.js';
import { fmt, percentiles } from './stats.js';

const require = createRequire(import.meta.url);

/**
 * The reference design, rebuilt for comparison: one `node` process per snippet, the real Axios
 * with axios-mock-adapter answering every request and printing the config it saw.
 */
const MOCK_PRELUDE = `
const axios = require(${JSON.stringify(require.resolve('axios'))});
const MockAdapter = require(${JSON.stringify(require.resolve('axios-mock-adapter'))});
new MockAdapter(axios).onAny().reply((config) => { process.stdout.write(JSON.stringify({ url: config.url, method: config.method })); return [200, {}]; });
`;

function runInNodeProcess(call: string): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-'], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('close', (code) => resolve({ ms: performance.now() - started, ok: code === 0 && out.includes('"url"') }));
    // The reference ran the extracted call after its mock prelude, with the call's own `require`.
    child.stdin.end(MOCK_PRELUDE + call.replace(/^const axios = require\('axios'\);\n/, ''));
  });
}

export async function benchExecution(wapiibench: string): Promise<void> {
  const parsed = parseDataset(fs.readFileSync(path.join(wapiibench, 'dataset', 'all.json'), 'utf8'), 'all.json');
  if (!parsed.ok) throw new Error(parsed.error.message);
  const programs = parsed.value.map((s) => oracleProgram(s, 'full', 'single').program);
  const calls = programs.map((p) => {
    const e = extractInvocation(p);
    if (e.status !== 'ok') throw new Error('oracle program without a call');
    return e;
  });

  const sandbox = new Sandbox();
  for (const c of calls.slice(0, 20)) sandbox.run(c.program); // warm the isolate and V8's code caches
  const ours = calls.map((c) => sandbox.run(c.program));
  const oursFailed = ours.filter((r) => r.error || r.requests.length === 0).length;
  sandbox.dispose();

  // What every caller uses: one supervised sandbox process, one message per program, measured
  // from the caller's side (the message there and back included), one program at a time.
  const supervised: number[] = [];
  let supervisedFailed = 0;
  {
    await using executor = createExecutor({ workers: 1 });
    for (const c of calls.slice(0, 20)) await executor.run(c.program);
    for (const c of calls) {
      const started = performance.now();
      const r = await executor.run(c.program);
      supervised.push(performance.now() - started);
      if (r.error || r.requests.length === 0) supervisedFailed++;
    }
  }

  const reference: number[] = [];
  let referenceFailed = 0;
  for (const c of calls) {
    const r = await runInNodeProcess(referenceProgram(c.call));
    reference.push(r.ms);
    if (!r.ok) referenceFailed++;
  }

  const a = percentiles(ours.map((r) => r.durationMs));
  const s = percentiles(supervised);
  const b = percentiles(reference);
  console.log('\n## Execution: the 395 oracle programs (full completion)\n');
  console.log('| design | p50 ms | p99 ms | max ms | failed |');
  console.log('|---|---|---|---|---|');
  console.log(`| supervised sandbox process, one message per program (what every caller uses) | ${fmt(s.p50, 3)} | ${fmt(s.p99, 3)} | ${fmt(s.max, 2)} | ${supervisedFailed} |`);
  console.log(`| the same sandbox in this process, unsupervised (its share of the above) | ${fmt(a.p50, 3)} | ${fmt(a.p99, 3)} | ${fmt(a.max, 2)} | ${oursFailed} |`);
  console.log(`| reference: one node process per program + axios-mock-adapter | ${fmt(b.p50, 1)} | ${fmt(b.p99, 1)} | ${fmt(b.max, 1)} | ${referenceFailed} |`);
  console.log(`\nsupervised vs reference: ${fmt(b.p50 / s.p50, 1)}x at p50, ${fmt(b.p99 / s.p99, 1)}x at p99 (target: supervised p50 <= 3 ms, >= 70x the reference)`);

  // Issue 37: a multi-step sample's execution beside a single request's (target: 4-step p50 <= 3x the 1-step).
  await benchExecutionSteps(wapiibench);
}
