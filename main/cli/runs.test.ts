import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { unwrap } from '../api/result.js';
import { cachedTestModel } from '../generation/index.js';
import { loadSpec } from '../openapi/index.js';
import { seedDemoRuns } from '../service/demoRuns.js';
import { localClient, openWorkbench, readDemo } from '../service/index.js';
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

describe('what the reports give (issue 36 items 21, 22)', () => {
  const model = cachedTestModel('qwen2');

  it('run --json and report --json give, per sample, the repair rounds used and each round\'s verdict, as the inspector has them', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    expect((await cli('--db', db, 'import', DEMO_DATASET, '--specs', DEMO_SPECS)).code).toBe(0);
    type Report = { run: number; samples: Record<string, { sample_verdict: string }>; repair?: Record<string, { rounds_used: number; rounds: { round: number; sample_verdict: string; error_verdict: string | null; feedback: string[]; tokens: number }[] }> };
    const ran = await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--setting', 'repair', '--repair-rounds', '1', '--limit', '2', '--max-tokens', '8', '--gpu', 'cpu', '--json');
    expect(ran.code, ran.stderr).toBe(0);
    const fromRun = JSON.parse(ran.stdout) as Report;
    const report = JSON.parse((await cli('--db', db, 'report', String(fromRun.run), '--json')).stdout) as Report;
    expect(report.repair).toEqual(fromRun.repair);
    expect(Object.keys(report.repair!)).toEqual(Object.keys(report.samples));
    const wb = openWorkbench({ db });
    try {
      for (const [index, entry] of Object.entries(report.repair!)) {
        expect(entry.rounds.length).toBe(entry.rounds_used + 1);
        expect(entry.rounds_used).toBeLessThanOrEqual(1);
        // The last round is the scored program; a round with findings left was sent back, unless it was the last one allowed.
        expect(entry.rounds.at(-1)!.sample_verdict).toBe(report.samples[index]!.sample_verdict);
        entry.rounds.slice(0, -1).forEach((r) => expect(r.feedback.length).toBeGreaterThan(0));
        const inspector = await localClient(wb.service).getRunSample({ runId: fromRun.run, index: Number(index), attempt: 0 });
        expect(entry.rounds).toEqual(inspector.generation!.repair!.map((r) => ({ round: r.round, sample_verdict: r.verdict, error_verdict: r.error, feedback: r.feedback, tokens: r.tokens })));
      }
    } finally {
      await wb.shutdown();
    }
    // A dataset file's run prints them too; a run of another setting has no `repair`.
    const file = JSON.parse((await cli('--db', db, 'run', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--model', model, '--setting', 'repair', '--repair-rounds', '1', '--limit', '1', '--max-tokens', '8', '--gpu', 'cpu', '--json')).stdout) as Report;
    expect(Object.keys(file.repair!)).toEqual(['0']);
    expect(file.repair!['0']!.rounds.at(-1)!.sample_verdict).toBe(file.samples['0']!.sample_verdict);
    const plain = JSON.parse((await cli('--db', db, 'run', '--dataset', 'demo', '--model', model, '--limit', '1', '--max-tokens', '4', '--gpu', 'cpu', '--json')).stdout) as Report;
    expect(plain.repair).toBeUndefined();
  }, 300_000);

  it('compare pairs a run on three of the demo samples with a demo run by sample identity, and lists only shared samples', async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const demo = readDemo(REPO_ROOT);
    const wb = openWorkbench({ db, evaluation: { modelsFolder: path.join(tempDir(), 'models'), gpu: 'cpu' } });
    let three: number;
    try {
      const client = localClient(wb.service);
      unwrap(await wb.service.seedIfEmpty(demo));
      const samples = JSON.parse(demo.dataset.content) as unknown[];
      const ds = await client.importDataset({ name: 'three', dataset: { filename: 'three.json', content: JSON.stringify([5, 6, 7].map((i) => samples[i])) }, specs: demo.specs });
      const source = demo.runs!.find((r) => r.name === 'demo-1b-unconstrained')!;
      const spec = async (hash: string) => unwrap(await loadSpec(wb.store.getSpec(hash)!.content, wb.store.getSpec(hash)!.filename));
      const e = wb.service.evaluation;
      [three] = (await seedDemoRuns({ store: wb.store, runs: e.runs, results: e.results, datasetId: ds.id, demoRuns: [{ ...source, name: 'three', codes: new Map([5, 6, 7].map((from, to) => [to, source.codes.get(from)!])) }], spec })) as [number];
    } finally {
      await wb.shutdown();
    }
    const runs = JSON.parse((await cli('--db', db, 'runs', '--json')).stdout) as { id: number; model: string; setting: string; dataset: string }[];
    const demo1b = runs.find((r) => r.dataset === 'demo' && r.model.includes('1b'))!.id;
    const demo7b = runs.find((r) => r.dataset === 'demo' && r.model.includes('7b') && r.setting === 'unconstrained')!.id;
    const compared = await cli('--db', db, 'compare', String(demo7b), String(three), '--json');
    expect(compared.code, compared.stderr).toBe(0);
    const out = JSON.parse(compared.stdout) as { changed: { index: number; b_index?: number; a: string; b: string }[]; alignment: { by: string; common: number; aLacks: number; bLacks: number } };
    expect(out.alignment).toEqual({ by: 'content hash', common: 3, aLacks: 0, bLacks: 29 });
    // Before: 30 "changed" samples, run 4's first three paired with the demo's first three by position.
    expect(out.changed.length).toBeLessThanOrEqual(3);
    for (const c of out.changed) expect(c.b_index).toBe(c.index - 5);
    // The same programs at the same samples: the changes are the demo 1b run's at 5–7.
    const direct = JSON.parse((await cli('--db', db, 'compare', String(demo7b), String(demo1b), '--json')).stdout) as { changed: { index: number; a: string; b: string }[] };
    expect(out.changed.map(({ index, a, b }) => ({ index, a, b }))).toEqual(direct.changed.filter((c) => c.index >= 5 && c.index <= 7));
    const text = (await cli('--db', db, 'compare', String(demo7b), String(three))).stdout;
    expect(text).toContain(`${out.changed.length} samples changed verdict`);
    expect(text).toMatch(/3 samples paired by content hash \(run \d+ lacks 0, run \d+ lacks 29\)/);
  }, 120_000);
});
