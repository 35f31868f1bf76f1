import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../api/contract.js';
import { unwrap } from '../api/result.js';
import { loadSpec } from '../openapi/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { seedDemoRuns } from './demoRuns.js';
import { csvField, markdownEscape } from './runExport.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';

/**
 * The result pages' numbers through the real service: intervals and counts beside the statistics,
 * undefined rates, Compare's alignment by sample identity with its paired tests, and the exports.
 */
const demo = readDemo(REPO_ROOT);
let workbench: Workbench;
let client: WorkbenchApi;
const runs: Record<string, number> = {};
/** The reordered copy of the demo dataset: position p holds the demo's sample ORDER[p]. */
const ORDER = Array.from({ length: 20 }, (_, i) => 19 - i);

beforeAll(async () => {
  workbench = openWorkbench({ db: path.join(tempDir(), 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(tempDir(), 'models'), gpu: 'cpu' } });
  client = localClient(workbench.service);
  unwrap(await workbench.service.seedIfEmpty(demo));
  for (const r of await client.listRuns({})) if (r.dataset === 'demo') runs[String(r.model).includes('1b') ? '1b' : r.setting!] = r.id;
  // A second dataset: the first 20 demo samples in reverse order, and a third that shares none of them.
  const samples = JSON.parse(demo.dataset.content) as unknown[];
  const store = workbench.store;
  const spec = async (hash: string) => {
    const stored = store.getSpec(hash)!;
    return unwrap(await loadSpec(stored.content, stored.filename));
  };
  const e = workbench.service.evaluation;
  const seed = async (name: string, order: number[], demoName: string): Promise<number> => {
    const ds = await client.importDataset({ name, dataset: { filename: `${name}.json`, content: JSON.stringify(order.map((i) => samples[i])) }, specs: demo.specs });
    const source = demo.runs!.find((r) => r.name === demoName)!;
    const codes = new Map(order.map((from, to) => [to, source.codes.get(from)!]));
    const [id] = await seedDemoRuns({ store, runs: e.runs, results: e.results, datasetId: ds.id, demoRuns: [{ ...source, name: `${demoName}-${name}`, codes }], spec });
    return id!;
  };
  runs['reordered'] = await seed('reordered', ORDER, 'demo-7b-constrained');
  runs['disjoint'] = await seed('disjoint', [20, 21, 22, 23], 'demo-7b-constrained');
  runs['three'] = await seed('three', [5, 6, 7], 'demo-1b-unconstrained');
}, 120_000);
afterAll(() => workbench?.shutdown());

describe('intervals and counts beside the statistics', () => {
  it('getRun carries a Wilson interval and the counts for every sample-level rate, bootstrap intervals for the mean metrics, per API too', async () => {
    const run = await client.getRun({ runId: runs['unconstrained']! });
    expect(run.uncertainty!.counts['samples_correct_wrt_total']).toEqual({ k: 19, n: 32 });
    const [low, high] = run.uncertainty!.intervals['samples_correct_wrt_total']!;
    // Wilson 19/32: [0.4226, 0.7448].
    expect(low).toBeCloseTo(0.4226, 4);
    expect(high).toBeCloseTo(0.7448, 4);
    expect(run.uncertainty!.intervals['argument_name_mean_recall_wrt_total']).toHaveLength(2);
    expect(run.bootstrap).toEqual({ seed: 1, resamples: 2000, method: 'percentile' });
    for (const api of Object.keys(run.per_api)) expect(run.per_api_uncertainty[api]!.intervals['samples_correct_wrt_total']).toHaveLength(2);
    expect(run.pass_at_k).toEqual({});
    const summary = (await client.listRuns({})).find((r) => r.id === run.id)!;
    expect(summary.correctOf).toEqual({ k: 19, n: 32 });
    expect(summary.illegalOf!.n).toBe(run.statistics!['samples_executable']);
  });
});

describe('Compare aligns samples by identity', () => {
  it('pairs runs on differently ordered datasets by content, says what each lacks, and tests the pairs', async () => {
    const result = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['reordered']!] });
    expect(result.alignment).toEqual({ by: 'content hash', runs: [{ common: 20, baselineLacks: 0, runLacks: 12 }] });
    // Demo sample 3 sits at position 16 of the reordered copy: one row holds both, by content.
    const row = result.rows.find((r) => r.indexes[0] === 3)!;
    expect(row.indexes).toEqual([3, ORDER.indexOf(3)]);
    // The same programs as the demo's constrained run on those samples: verdicts agree with a by-index compare of the demo runs.
    const direct = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['constrained']!] });
    expect(direct.alignment.by).toBe('sample id');
    for (const r of result.rows.filter((x) => x.indexes[1] !== null)) expect(r.others[0]).toBe(direct.rows.find((d) => d.index === r.indexes[0])!.others[0]);
    const p = result.paired[0]!['samples_correct'];
    expect(p.both + p.a_only + p.b_only + p.neither).toBe(20);
    expect(result.pairedStatistics['samples_correct']).toBe('samples_correct_wrt_total');
  });

  it('a run on three of the demo samples against a demo run: rows, counts and tests cover the three shared samples only (issue 36 item 21)', async () => {
    const result = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['three']!] });
    expect(result.alignment).toEqual({ by: 'content hash', runs: [{ common: 3, baselineLacks: 0, runLacks: 29 }] });
    // Before: every one of the demo run's 32 samples was a row, 17 counted regressed and 12 changed.
    const { fixed, regressed, changed, same } = result.counts[0]!;
    expect(fixed + regressed + changed + same).toBe(3);
    expect(result.total).toBe(3);
    expect(result.rows.map((r) => r.indexes)).toEqual([[5, 0], [6, 1], [7, 2]]);
    // The three programs are the 1b demo run's at 5–7: each row's verdicts are that pair's.
    const direct = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['1b']!] });
    for (const row of result.rows) {
      const same1b = direct.rows.find((d) => d.index === row.index)!;
      expect([row.baseline, row.others[0], row.changes[0]]).toEqual([same1b.baseline, same1b.others[0], same1b.changes[0]]);
    }
    const p = result.paired[0]!['samples_correct'];
    expect(p.both + p.a_only + p.b_only + p.neither).toBe(3);
    // With a run that has every sample beside it: the three-sample run is absent from the other rows, and counted on its three only.
    const both = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['three']!, runs['1b']!] });
    expect(both.total).toBe(32);
    expect(both.rows.filter((r) => r.changes[0] === 'absent')).toHaveLength(29);
    expect(Object.values(both.counts[0]!).reduce((a, b) => a + b, 0)).toBe(3);
    expect(Object.values(both.counts[1]!).reduce((a, b) => a + b, 0)).toBe(32);
    const changedOnly = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['three']!], changedOnly: true });
    expect(changedOnly.rows.every((r) => r.changes[0] !== 'same' && r.changes[0] !== 'absent')).toBe(true);
  });

  it('refuses runs with no sample in common, in one line', async () => {
    const error = await client.compareRuns({ baselineId: runs['reordered']!, runIds: [runs['disjoint']!] }).then(
      () => undefined,
      (e: unknown) => e as { code: string; message: string },
    );
    expect(error?.code).toBe('bad_input');
    expect(error?.message).toMatch(/^run \d+ shares no sample with run \d+ \(run \d+ on "reordered" vs run \d+ on "disjoint", aligned by content hash\); compare runs on the same samples$/);
  });

  it('a big gain is significant (McNemar) and marked per outcome; the delta of an undefined rate is null', async () => {
    const result = await client.compareRuns({ baselineId: runs['unconstrained']!, runIds: [runs['constrained']!, runs['1b']!] });
    const gain = result.paired[0]!['samples_correct'];
    // 19/32 → 28/32 with 9 fixed and none broken: p = 2 / 2^9.
    expect(gain).toMatchObject({ a_only: 0, b_only: 9 });
    expect(gain.p_value).toBeCloseTo(2 / 512, 10);
    const correct = result.metrics.find((m) => m.key === 'samples_correct_wrt_total')!;
    expect(correct.of[0]).toEqual({ k: 19, n: 32 });
    expect(correct.intervals[0]).toHaveLength(2);
    expect(result.rows.every((r) => r.overridden.length === 3)).toBe(true);
  });
});

describe('exports', () => {
  it('CSV cells that a spreadsheet would evaluate are neutralised (OWASP)', () => {
    expect(csvField('=HYPERLINK("http://x","y")')).toBe('"\'=HYPERLINK(""http://x"",""y"")"');
    for (const c of ['+', '-', '@', '\t', '\r']) expect(csvField(`${c}1+1`)).toBe(`"'${c}1+1"`);
    expect(csvField('plain')).toBe('plain');
    expect(csvField(-3)).toBe('-3');
    expect(markdownEscape('a|b *c* <img src=x> [l](u)\nx')).toBe('a\\|b \\*c\\* &lt;img src=x> \\[l\\](u) x');
    // Inside a line, `-`, `.`, `+`, `#`, `!` do nothing: a model's name stays readable.
    expect(markdownEscape('demo-coder-7b.Q4_K_M #1+!')).toBe('demo-coder-7b.Q4\\_K\\_M #1+!');
  });

  it('every sample in full: task, expected and captured request, each argument verdict, code, failures, override and its reason', async () => {
    const runId = runs['1b']!;
    await client.overrideVerdict({ runId, index: 29, verdict: 'correct', reason: '=cmd|/c calc' });
    const csv = Object.values((await client.exportRun({ runId, format: 'csv' })).files)[0]!;
    const header = csv.split('\r\n')[0]!.split(',');
    expect(header).toEqual(expect.arrayContaining(['index', 'sample_id', 'api', 'task', 'expected_method', 'expected_url', 'captured_method', 'captured_url', 'argument_verdicts', 'failures', 'overridden', 'override_reason', 'error', 'tokens', 'duration_ms', 'code']));
    // The reason begins with `=`: written so a spreadsheet shows it as text.
    expect(csv).toContain(`,"'=cmd|/c calc",`);
    const json = JSON.parse(Object.values((await client.exportRun({ runId, format: 'json' })).files)[0]!) as {
      intervals: Record<string, [number, number]>;
      counts: Record<string, { k: number; n: number }>;
      samples: Record<string, { overridden: boolean; override?: { reason: string; scorer_sample_verdict: string }; expected: { url: string }; code: string; duration_ms: number }>;
    };
    expect(json.samples['29']).toMatchObject({ overridden: true, override: { reason: '=cmd|/c calc', scorer_sample_verdict: 'wrong' } });
    expect(json.samples['0']!.expected.url).toMatch(/^https:\/\//);
    expect(Number.isInteger(json.samples['0']!.duration_ms)).toBe(true);
    expect(json.intervals['samples_correct_wrt_total']).toHaveLength(2);
    const md = Object.values((await client.exportRun({ runId, format: 'markdown' })).files)[0]!;
    expect(md).toMatch(/\| Correct implementations \(t\) \| \d+\.\d% \[\d+\.\d, \d+\.\d\]/);
    expect(md).toContain('1 verdict overridden by a reviewer');
    const tex = Object.values((await client.exportRun({ runId, format: 'latex' })).files)[0]!;
    expect(tex).toMatch(/Correct implementations \(t\) & \d+\.\d\\% \[\d+\.\d, \d+\.\d\]/);
    expect(tex).toContain('\\footnotesize 1 verdict overridden by a reviewer');
  });

  it('a rate with no denominator reads "–" with its counts, in Markdown and LaTeX', async () => {
    const samples = JSON.parse(demo.dataset.content) as unknown[];
    const ds = await client.importDataset({ name: 'x | *y* <b>', dataset: { filename: 'odd.json', content: JSON.stringify(samples.slice(0, 2)) }, specs: demo.specs });
    const e = workbench.service.evaluation;
    const store = workbench.store;
    const spec = async (hash: string) => unwrap(await loadSpec(store.getSpec(hash)!.content, store.getSpec(hash)!.filename));
    // Programs that throw: nothing is executable, so every (e) rate divides by 0.
    const [runId] = await seedDemoRuns({ store, runs: e.runs, results: e.results, datasetId: ds.id, demoRuns: [{ name: 'throws', meta: { model: 'm', setup: 'full', setting: 'unconstrained', prompt: 'completion' }, codes: new Map([[0, 'throw new Error("x")'], [1, 'throw new Error("y")']]) }], spec });
    const run = await client.getRun({ runId: runId! });
    expect(run.illegalOf).toEqual({ k: 0, n: 0 });
    expect(run.statistics!['samples_illegal_wrt_executable']).toBe(0);
    expect(run.uncertainty!.counts['samples_illegal_wrt_executable']).toEqual({ k: 0, n: 0 });
    const md = Object.values((await client.exportRun({ runId: runId!, format: 'markdown' })).files)[0]!;
    expect(md).toContain('| Illegal implementations (e) | – (0/0) |');
    expect(md).toContain('on x \\| \\*y\\* &lt;b>');
    const tex = Object.values((await client.exportRun({ runId: runId!, format: 'latex' })).files)[0]!;
    expect(tex).toContain('Illegal implementations (e) & -- (0/0) & -- (0/0) \\\\');
    // A mean metric with an empty denominator (no argument name was correct) is undefined, not 0.0%: the JSON has {}.
    expect(run.statistics!['argument_value_mean_accuracy_wrt_correct_executable']).toEqual({});
    expect(md).toContain('| Mean argument value cond. accuracy (e) | – | – |');
    expect(tex).toContain('Mean argument value cond. accuracy (e) & -- & -- \\\\');
    // The LaTeX comment names the setup and setting; both tables have the per-API columns Results shows.
    expect(tex.split('\n')[0]).toBe(`% Run ${runId}: m on x | *y* <b>, full completion, unconstrained`);
    expect(tex).toContain(' & all & harbor \\\\');
    expect(md).toContain('| | all | harbor |');
    // Compare: a delta against an undefined rate is no number.
    const other = await client.compareRuns({ baselineId: runId!, runIds: [runs['unconstrained']!] });
    expect(other.metrics.find((m) => m.key === 'samples_illegal_wrt_executable')!.deltas[0]).toBeNull();
    // So is a delta against a mean over no sample, whose value is undefined (null), not 0.
    const mean = other.metrics.find((m) => m.key === 'argument_value_mean_accuracy_wrt_correct_executable')!;
    expect(mean.baseline).toBeNull();
    expect(mean.values[0]).toBeGreaterThan(0);
    expect(mean.deltas[0]).toBeNull();
  });
});
