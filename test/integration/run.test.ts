import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import { exportGbnf } from '../../main/constraints/index.js';
import type { SampleDraft } from '../../main/dataset/index.js';
import { unwrap } from '../../main/api/result.js';
import { cachedTestModel } from '../../main/generation/index.js';
import type { ApiSpec } from '../../main/openapi/index.js';
import { completionPrompt, oracleProgram } from '../../main/prompt/index.js';
import { prepareDataset } from '../../main/service/index.js';
import { Store, type StoredRun } from '../../main/store/index.js';
import { DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';
import { cli } from '../support/cli.js';
import { startCompletionStandIn } from '../support/completionStandIn.js';

function withStore<T>(db: string, f: (store: Store) => T): T {
  const store = unwrap(Store.open(db));
  try {
    return f(store);
  } finally {
    store.close();
  }
}

async function demo(): Promise<{ samples: SampleDraft[]; spec: ApiSpec }> {
  const prepared = unwrap(await prepareDataset(unwrap(readFileInput(DEMO_DATASET)), unwrap(readSpecDir(DEMO_SPECS))));
  return { samples: [...prepared.samples], spec: prepared.specs.get('harbor')!.spec };
}

/**
 * A stand-in for llama-server / vLLM: answers with the ground-truth completion of the sample
 * whose prompt it got, and fails the requests `fail` picks.
 */
function fakeServer(samples: SampleDraft[], fail: (n: number, prompt: string) => 'error' | 'garbage' | undefined) {
  const byPrompt = new Map(samples.map((s) => [completionPrompt(s, 'full').text, oracleProgram(s, 'full').completion.replace(/\n\n[\s\S]*$/, '')]));
  return startCompletionStandIn(({ prompt }, n) => {
    const outcome = fail(n, prompt);
    // A 400 is not retried (a 503 now is, with backoff): the sample fails with the server's message.
    if (outcome === 'error') return { status: 400, message: 'the request exceeds the available context size' };
    return { text: outcome === 'garbage' ? "get('https://elsewhere.example/x');" : (byPrompt.get(prompt) ?? 'no such prompt') };
  });
}

describe('wapii run against an OpenAI-compatible server, report, compare, retry', () => {
  let db: string;
  let samples: SampleDraft[];
  let spec: ApiSpec;
  beforeAll(async () => {
    db = path.join(tempDir(), 'wapii.db');
    ({ samples, spec } = await demo());
  });

  it('sends the prompt, sampling settings and the exported grammar; stores failures as errors and retries only those', async () => {
    const server = await fakeServer(samples, (n) => (n === 2 ? 'error' : undefined));
    try {
      const first = await cli('--db', db, 'run', '--remote', server.url, '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--setting', 'constrained', '--limit', '6', '--json');
      expect(first.stderr).toContain('run 1: 6 outputs to generate');
      expect(first.code).toBe(0);
      expect(server.received).toHaveLength(6);
      // For the names in scope at the call: the fixed starter declares `axios` (as the local decoder's constraint has it).
      const grammar = exportGbnf(spec, ['axios']);
      for (const r of server.received) {
        expect(r).toMatchObject({ method: 'POST', url: '/v1/completions', contentType: 'application/json' });
        expect(r.body).toMatchObject({ max_tokens: 250, temperature: 0, stop: ['\n\n'], grammar, guided_grammar: grammar });
      }
      // Each sample's own prompt and seed (seed + index * 1000 + attempt), whichever order the requests came in.
      const bySeed = new Map(server.received.map((r) => [r.body['seed'], r.body['prompt']]));
      for (let i = 0; i < 6; i++) expect(bySeed.get(1 + i * 1000)).toBe(completionPrompt(samples[i]!, 'full').text);

      const report = JSON.parse(first.stdout) as { run: number; statistics: Record<string, number>; samples: Record<string, unknown> };
      expect(report.run).toBe(1);
      // The failed request is stored as an error, left out of the metrics, and waits for a retry.
      expect(report.statistics['samples_total']).toBe(5);
      expect(Object.keys(report.samples)).toHaveLength(5);
      const stored = withStore(db, (s) => s.getRun(1)!);
      const errored = stored.samples.filter((s) => s.error !== undefined);
      expect(errored).toHaveLength(1);
      expect(errored[0]!.error).toMatch(/answered 400: the request exceeds the available context size/);
      expect(stored.manifest).toMatchObject({ engine: 'openai-compatible', grammar: 'gbnf', promptTemplate: expect.any(String), datasetSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

      const retried = await cli('--db', db, 'run', '--remote', server.url, '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--setting', 'constrained', '--limit', '6', '--resume', '1', '--retry-errors', '--json');
      expect(retried.stderr).toContain('resuming run 1: 6 outputs stored, 1 to generate');
      // The progress line counts what the run already holds.
      expect(retried.stderr).toMatch(/\] 5\/6 {2}correct 5 \(100\.0%\)/);
      expect(server.received).toHaveLength(7);
      expect(server.received[6]!.body['seed']).toBe(1 + errored[0]!.index * 1000);
      const after = JSON.parse(retried.stdout) as { run: number; statistics: Record<string, number> };
      // The ground truth, echoed back by the server, scores as correct on every sample.
      expect(after.statistics).toMatchObject({ samples_total: 6, samples_correct: 6 });

      // `run --json` prints exactly what `report --json` prints, plus the run's number.
      const reported = await cli('--db', db, 'report', '1', '--json');
      const { run, ...rest } = after;
      expect(run).toBe(1);
      expect(JSON.parse(reported.stdout)).toEqual(rest);
      expect((await cli('--db', db, 'report', '1')).stdout).toMatch(/Correct implementations \(t\)[^\n]*100\.0%/);
    } finally {
      await server.close();
    }
  });

  it('compares two runs: metric deltas and the samples whose verdict changed', async () => {
    const garbageFor = completionPrompt(samples[3]!, 'full').text;
    const server = await fakeServer(samples, (_n, prompt) => (prompt === garbageFor ? 'garbage' : undefined));
    try {
      const second = await cli('--db', db, 'run', '--remote', server.url, '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--limit', '6', '--json');
      expect(JSON.parse(second.stdout)).toMatchObject({ run: 2, statistics: { samples_correct: 5, samples_illegal: 1 } });
      const compared = JSON.parse((await cli('--db', db, 'compare', '1', '2', '--json')).stdout) as { metrics: { key: string; delta: number }[]; changed: unknown[] };
      expect(compared.changed).toEqual([{ index: 3, a: 'correct', b: expect.stringMatching(/^illegal/) }]);
      expect(compared.metrics.find((m) => m.key === 'samples_correct_wrt_total')!.delta).toBeCloseTo(-1 / 6, 6);
      const table = await cli('--db', db, 'compare', '1', '2');
      expect(table.stdout).toContain('1 samples changed verdict');
      expect(table.stdout).toMatch(/Correct implementations \(t\)[^\n]*-16\.7/);
    } finally {
      await server.close();
    }
  });

  it('refuses a resume with other settings, and an unknown run, in one line', async () => {
    const other = await cli('--db', db, 'run', '--remote', 'http://127.0.0.1:9', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--setting', 'constrained', '--limit', '6', '--temperature', '0.7', '--resume', '1');
    expect(other.code).not.toBe(0);
    expect(other.stderr.trim().split('\n').at(-1)).toMatch(/run 1 was made with temperature = 0, not 0\.7; resume it with the same options/);
    const missing = await cli('--db', db, 'report', '99');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/^wapii: no run 99 in .*\(have: 1, 2\)\n$/);
  });
});

/**
 * The real thing: a `wapii run` process on a local model, killed with SIGKILL mid-run, then
 * resumed. Nothing finished may be generated again, and the database must stay whole.
 */
describe.skipIf(!hasVocabBundle)('a run killed with SIGKILL resumes without redoing finished samples', () => {
  const model = hasVocabBundle ? cachedTestModel('qwen2') : '';
  const wapii = (db: string, ...args: string[]) =>
    spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'run', '--model', model, '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--setting', 'constrained', '--temperature', '1', '--max-tokens', '24', '--limit', '10', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const dir = tempDir();
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('kills, resumes, and compares what was stored before with what is there after', async () => {
    const db = path.join(dir, 'wapii.db');
    const child = wapii(db);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Poll the database (WAL: readers never block the writer) until some samples are stored.
    let storedBefore = 0;
    for (let i = 0; i < 2400 && storedBefore < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      if (fs.existsSync(db)) storedBefore = withStore(db, (s) => s.listRuns()[0]?.samples ?? 0);
    }
    expect(storedBefore, stderr).toBeGreaterThanOrEqual(3);
    // The run says what it chose for decoding, and why: the tiny test model decodes on one thread.
    expect(stderr).toMatch(/^decoding: 4 sequences at a time \(the default on the CPU: [^)]+\); 1 CPU thread \(one: a model under 64 MiB on the CPU/m);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const before = withStore(db, (s) => s.getRun(1)!);
    expect(before.status).toBe('running');
    expect(before.samples.length).toBeLessThan(10);
    const snapshot = (run: StoredRun) => new Map(run.samples.map((s) => [`${s.index}.${s.attempt}`, JSON.stringify([s.rawOutput, s.generation, s.code, s.verdict])]));

    const resumed = wapii(db, '--resume', '1', '--json');
    let out = '';
    let err = '';
    resumed.stdout.on('data', (c: Buffer) => (out += c.toString()));
    resumed.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const code = await new Promise<number | null>((resolve) => resumed.on('exit', resolve));
    expect(code, err).toBe(0);
    expect(err).toContain(`resuming run 1: ${before.samples.length} outputs stored, ${10 - before.samples.length} to generate`);

    const after = withStore(db, (s) => ({ run: s.getRun(1)!, integrity: s.integrityCheck() }));
    expect(after.integrity).toBe('ok');
    expect(after.run.status).toBe('finished');
    expect(after.run.samples.map((s) => s.index).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // What was stored before the kill is byte for byte what is stored now: generated once, never again.
    const now = snapshot(after.run);
    for (const [key, value] of snapshot(before)) expect(now.get(key)).toBe(value);
    const report = JSON.parse(out) as { run: number; statistics: Record<string, number> };
    expect(report).toMatchObject({ run: 1, statistics: { samples_total: 10, samples_illegal: 0 } });
    // Constrained: whatever the random model said, every executable sample is legal.
    expect(report.statistics['samples_executable']).toBeGreaterThan(0);
  }, 300_000);

  it('Ctrl-C stops after the samples in flight, stores them, and says how to resume', async () => {
    const db = path.join(dir, 'interrupted.db');
    const child = wapii(db);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    for (let i = 0; i < 2400 && !/\] [1-9]\d*\/10/.test(stderr); i++) await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    // The file was stored as dataset 1 and run on the service's queue: Ctrl-C cancels the run, and a resume continues it there.
    expect(stderr).toMatch(/cancelled: \d+ finished outputs of run 1 are stored; continue with `wapii run --dataset 1 --resume 1`/);
    const run = withStore(db, (s) => s.getRun(1)!);
    expect(run.status).toBe('cancelled');
    expect(run.samples.length).toBeGreaterThan(0);
    expect(run.samples.length).toBeLessThan(10);
  }, 300_000);
});
