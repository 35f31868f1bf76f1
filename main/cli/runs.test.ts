import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { cachedTestModel } from '../generation/index.js';
import { Store } from '../store/index.js';
import { RunRepository } from '../store/runs.js';
import { runCli } from './program.js';

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

function withStore<T>(db: string, fn: (store: Store) => T): T {
  const opened = Store.open(db);
  if (!opened.ok) throw new Error(opened.error.message);
  try {
    return fn(opened.value);
  } finally {
    opened.value.close();
  }
}

describe('wapii run --dataset <stored> / wapii runs', () => {
  let db: string;
  const model = cachedTestModel('qwen2');
  beforeAll(async () => {
    db = path.join(tempDir(), 'wapii.db');
    expect((await cli('--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS)).code).toBe(0);
  });

  it('runs a model on a stored dataset through the service queue and lists the run', async () => {
    const run = await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--limit', '2', '--max-tokens', '8', '--gpu', 'cpu', '--json');
    expect(run.stderr).toMatch(/^run 1: 2 outputs to generate on dataset "demo"\n/);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { run: number; statistics: Record<string, unknown>; samples: Record<string, unknown>; intervals: Record<string, number[]>; counts: Record<string, { n: number }> };
    expect(report.run).toBe(1);
    expect(report.statistics['samples_total']).toBe(2);
    // Intervals and counts beside the statistics, as `report --json` and `score --json` give them.
    expect(report.intervals['samples_correct_wrt_total']).toHaveLength(2);
    expect(report.counts['samples_correct_wrt_total']!.n).toBe(2);
    expect(Object.keys(report.samples)).toEqual(['0', '1']);
    const runs = await cli('--db', db, 'runs', '--json');
    expect(JSON.parse(runs.stdout)).toEqual([
      expect.objectContaining({ id: 1, status: 'finished', dataset: 'demo', model: 'qwen2-L2-D64-S1', setup: 'full', setting: 'unconstrained', kind: 'generation', total: 2, done: 2 }),
    ]);
    const table = await cli('--db', db, 'runs');
    expect(table.stdout).toMatch(/│ 1 +│ finished +│ demo +│ qwen2-L2-D64-S1 +│ full +│ unconstrained +│ none +│ 2\/2 /);
  }, 300_000);

  it('queues one run per --knowledge condition on a stored dataset, each recording its condition and prompting with it', async () => {
    const bad = await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--knowledge', 'none,nope');
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^wapii: unknown knowledge condition "nope" in "nope"/);
    const grid = await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--limit', '2', '--max-tokens', '4', '--gpu', 'cpu', '--knowledge', 'none,endpoint', '--json');
    expect(grid.code).toBe(0);
    expect(grid.stderr).toMatch(/^run 2: 2 outputs to generate on dataset "demo" \(knowledge: none\)\nrun 3: 2 outputs to generate on dataset "demo" \(knowledge: endpoint\)\n/);
    const reports = JSON.parse(grid.stdout) as { run: number; knowledge?: string }[];
    expect(reports.map((r) => [r.run, r.knowledge])).toEqual([[2, undefined], [3, 'endpoint']]);
    const runs = JSON.parse((await cli('--db', db, 'runs', '--json')).stdout) as { id: number; knowledge: string }[];
    expect(runs.filter((r) => r.id >= 2).map((r) => r.knowledge)).toEqual(['none', 'endpoint']);
    const prompts = withStore(db, (s) => [2, 3].map((id) => s.getRun(id)!.samples[0]!.prompt ?? ''));
    expect(prompts[0]).not.toContain('// Endpoint:');
    expect(prompts[1]).toContain('// Endpoint: GET https://api.harbor.example/v2/me\n');

    // `wapii report` counts the failure classes: every output that is not correct carries at least one.
    const report = JSON.parse((await cli('--db', db, 'report', '3', '--json')).stdout) as { statistics: Record<string, number>; failures: { counts: Record<string, number>; unclassified: number } };
    const failing = 2 - Math.round(report.statistics['samples_correct_wrt_total']! * 2);
    expect(report.failures.unclassified).toBe(0);
    expect(Object.values(report.failures.counts).reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(failing);
    const text = (await cli('--db', db, 'report', '3')).stdout;
    expect(text).toMatch(failing > 0 ? /failure class \(outputs\)/ : /no failures/);

    // `wapii conditions` on runs of a stored dataset needs no --specs: it is the service's comparison.
    const conditions = await cli('--db', db, 'conditions', '2', '3', '--json');
    expect(conditions.code, conditions.stderr).toBe(0);
    const rows = JSON.parse(conditions.stdout) as { run: number; knowledge: string; outputs: number; correct: number; gain: number | null }[];
    expect(rows.map((r) => [r.run, r.knowledge, r.outputs])).toEqual([[2, 'none', 2], [3, 'endpoint', 2]]);
    expect(rows[1]!.gain).toBeCloseTo(rows[1]!.correct - rows[0]!.correct, 10);
    expect((await cli('--db', db, 'conditions', '2', '3')).stdout).toMatch(/│ 3 +│ endpoint +│ 2 +│/);
  }, 300_000);

  it('refuses a subset with no sample, an unknown dataset and a model busy in another process: one line, nothing written', async () => {
    const before = withStore(db, (s) => JSON.stringify([s.counts(), new RunRepository(s).list()]));
    const empty = await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--review', 'accepted');
    expect(empty).toMatchObject({ code: 1, stdout: '', stderr: 'wapii: the subset leaves no sample: none of the 32 samples of dataset "demo" matches review states accepted\n' });
    const unknown = await cli('--db', db, 'run', '--dataset', 'nope', '--model', model);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^wapii: no stored dataset "nope" in .*wapii\.db \(have: 1 "demo"\); a dataset file needs --specs <dir>\n$/);
    expect(withStore(db, (s) => JSON.stringify([s.counts(), new RunRepository(s).list()]))).toBe(before);

    // Another live process (here: this test's parent) generating with the same model file.
    withStore(db, (s) =>
      new RunRepository(s).create({ kind: 'generation', status: 'running', dataset: 'demo', datasetId: 1, settings: {}, manifest: null, model: { modelId: 1, name: 'qwen2-L2-D64-S1', path: model }, subset: null, total: 1, ownerPid: process.ppid, inputs: [] }),
    );
    const snapshot = withStore(db, (s) => JSON.stringify([s.counts(), new RunRepository(s).list()]));
    const busy = await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--limit', '1');
    expect(busy).toMatchObject({ code: 1, stdout: '', stderr: `wapii: model qwen2-L2-D64-S1 is busy: run 4 (process ${process.ppid}) is generating with it; wait for it or cancel it there\n` });
    expect(withStore(db, (s) => JSON.stringify([s.counts(), new RunRepository(s).list()]))).toBe(snapshot);
  }, 120_000);
});
