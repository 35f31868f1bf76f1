import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { runCli } from './program.js';

async function cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

interface Json {
  run: number;
  statistics: Record<string, number>;
  intervals: Record<string, [number, number]>;
  counts: Record<string, { k: number; n: number }>;
  bootstrap: { seed: number; resamples: number };
  per_api_intervals: Record<string, Record<string, [number, number]>>;
}

/** `wapii score --save`, `report`, `compare` and `runs` carry intervals, counts and paired tests (the demo programs, no model needed). */
describe('intervals and paired tests on the command line', () => {
  const db = path.join(tempDir(), 'wapii.db');
  const codes = (name: string): string => path.join(REPO_ROOT, 'datasets', 'demo-runs', name);
  let unconstrained: Json;
  let constrained: Json;
  beforeAll(async () => {
    const score = async (dir: string): Promise<Json> => {
      const r = await cli('--db', db, 'score', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--codes', dir, '--json', '--save');
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as Json;
    };
    unconstrained = await score(codes('demo-7b-unconstrained'));
    constrained = await score(codes('demo-7b-constrained'));
  }, 120_000);

  it('score --json: a Wilson interval and the counts beside every sample-level rate, bootstrap intervals of the mean metrics, per API', () => {
    expect(unconstrained.counts['samples_correct_wrt_total']).toEqual({ k: 19, n: 32 });
    expect(unconstrained.intervals['samples_correct_wrt_total']![0]).toBeCloseTo(0.4226, 4);
    expect(unconstrained.intervals['samples_correct_wrt_total']![1]).toBeCloseTo(0.7448, 4);
    expect(unconstrained.intervals['argument_name_mean_precision_wrt_executable']).toHaveLength(2);
    expect(unconstrained.bootstrap).toMatchObject({ seed: 1, resamples: 2000 });
    for (const api of Object.keys(unconstrained.per_api_intervals)) expect(unconstrained.per_api_intervals[api]!['samples_correct_wrt_total']).toHaveLength(2);
    expect(Object.keys(unconstrained.per_api_intervals).length).toBeGreaterThan(0);
  });

  it('report --json of a `score --save` run carries the same intervals', async () => {
    const report = JSON.parse((await cli('--db', db, 'report', String(unconstrained.run), '--json')).stdout) as Json;
    expect(report.intervals['samples_correct_wrt_total']).toEqual(unconstrained.intervals['samples_correct_wrt_total']);
    expect(report.intervals['argument_name_mean_recall_wrt_total']).toEqual(unconstrained.intervals['argument_name_mean_recall_wrt_total']);
    expect(report.counts['samples_illegal_wrt_executable']).toEqual(unconstrained.counts['samples_illegal_wrt_executable']);
  });

  it('compare --json: exact McNemar per outcome on the samples both runs have', async () => {
    const r = await cli('--db', db, 'compare', String(unconstrained.run), String(constrained.run), '--json');
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { paired: Record<string, { both: number; a_only: number; b_only: number; neither: number; p_value: number }>; alignment: { by: string; common: number } };
    expect(Object.keys(out.paired).sort()).toEqual(['methods_correct', 'samples_correct', 'samples_executable', 'samples_illegal', 'urls_correct']);
    // 19 → 28 correct of 32, 9 fixed and none broken: p = 2 / 2^9.
    expect(out.paired['samples_correct']).toMatchObject({ both: 19, a_only: 0, b_only: 9, neither: 4 });
    expect(out.paired['samples_correct']!.p_value).toBeCloseTo(2 / 512, 10);
    expect(out.alignment).toMatchObject({ by: 'position', common: 32 });
    const text = (await cli('--db', db, 'compare', String(unconstrained.run), String(constrained.run))).stdout;
    expect(text).toMatch(/32 samples paired by position; \* p < 0\.05/);
    expect(text).toMatch(/samples_correct +│ 19 +│ 0 +│ 9 +│ 4 +│ 0\.004 \*/);
  });

  it('an undefined rate reads "–" with its counts in the tables; the JSON keeps the reference\'s 0 and the counts', async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, '0000.js'), 'throw new Error("no request")\n');
    fs.writeFileSync(path.join(dir, '0001.js'), 'throw new Error("no request")\n');
    const json = JSON.parse((await cli('--db', db, 'score', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--codes', dir, '--json', '--save')).stdout) as Json;
    expect(json.statistics['samples_illegal_wrt_executable']).toBe(0);
    expect(json.counts['samples_illegal_wrt_executable']).toEqual({ k: 0, n: 0 });
    expect(json.intervals['samples_illegal_wrt_executable']).toEqual([0, 1]);
    const table = (await cli('--db', db, 'score', '--dataset', DEMO_DATASET, '--specs', DEMO_SPECS, '--codes', dir)).stdout;
    expect(table).toMatch(/Illegal implementations \(e\) +│ – \(0\/0\)/);
    const runs = (await cli('--db', db, 'runs')).stdout;
    expect(runs).toMatch(new RegExp(`│ ${json.run} +│ finished .*│ 0\\.0% +│ – \\(0/0\\) +│`));
    const conditions = await cli('--db', db, 'conditions', String(json.run), String(unconstrained.run), '--specs', DEMO_SPECS);
    expect(conditions.code, conditions.stderr).toBe(0);
    expect(conditions.stdout).toMatch(new RegExp(`│ ${json.run} +│ .*│ 0\\.0% +│ – \\(0/0\\) +│`));
    // Compare: the delta against an undefined rate is no number.
    const cmp = JSON.parse((await cli('--db', db, 'compare', String(json.run), String(unconstrained.run), '--json')).stdout) as { metrics: { key: string; delta: number | null }[] };
    expect(cmp.metrics.find((m) => m.key === 'samples_illegal_wrt_executable')!.delta).toBeNull();
  });
});
