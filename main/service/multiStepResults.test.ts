import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedMultiStepRuns } from '../../test/support/multiStepRun.js';
import { tempDir } from '../../test/support/paths.js';
import type { WorkbenchApi } from '../api/contract.js';
import { CompareResultSchema, RunSampleDetailSchema, RunSampleRowSchema } from '../api/evaluation.js';
import { localClient, openWorkbench, type Workbench } from './index.js';

/**
 * The result pages on runs of multi-step samples (scoring.md §7; issue 37 item 5) through the real
 * service on SQLite: outputs whose verdicts come from running each program whole in the sandbox
 * (test/support/multiStepRun.ts) — run A planned, skipped the lookup, made an extra mutating call,
 * carried a path parameter; run B the other way round; run C as A but failing sample 1 at another
 * step — then the inspector's timeline, the rows,
 * Results' step rate and Compare's per-step alignment.
 */
let workbench: Workbench;
let client: WorkbenchApi;
let runA: number;
let runB: number;
let runC: number;
beforeAll(async () => {
  const dir = tempDir('wapii-steps-results-');
  workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
  client = localClient(workbench.service);
  ({ runA, runB, runC } = await seedMultiStepRuns(workbench));
}, 120_000);
afterAll(() => workbench?.shutdown());

const LIST = 'https://slack.com/api/conversations.list';
const POST = 'https://slack.com/api/chat.postMessage';

describe("the inspector's timeline of a multi-step output", () => {
  it('a planned program: each step beside the request it took, argument by argument, with its stubbed response and the carried value held and sent', async () => {
    const detail = await client.getRunSample({ runId: runA, index: 0 });
    expect(() => RunSampleDetailSchema.parse(detail)).not.toThrow();
    expect(detail.sample_verdict).toBe('correct');
    expect(detail.extraction).toEqual({ rule: 'whole program', call: '', runs: 'as-written' });
    // The program ran whole: nothing was cut, nothing to highlight.
    expect(detail.callRange).toBeNull();
    const timeline = detail.timeline!;
    expect(timeline.steps.map((s) => [s.requestIndex, s.request?.method, s.request?.url, s.verdict.sample_verdict])).toEqual([
      [0, 'get', LIST, 'correct'],
      [1, 'post', POST, 'correct'],
    ]);
    expect(timeline.steps.map((s) => s.endpoint)).toEqual(['GET /conversations.list', 'POST /chat.postMessage']);
    expect(timeline.steps[0]!.response).toEqual({ status: 200, data: { ok: true, channels: [{ id: 'C0GENERAL', name: 'general' }, { id: 'C0DEPLOY1', name: 'deploys' }] } });
    expect(timeline.steps[0]!.arguments).toEqual([
      { location: 'headers', key: 'Authorization', expected: 'Bearer <token>', actual: 'Bearer <token>', verdict: 'correct' },
      { location: 'params', key: 'types', expected: 'public_channel', actual: 'public_channel', verdict: 'correct' },
    ]);
    expect(timeline.steps[1]!.carried).toEqual([{ where: 'data.channel', source: '0:/data/channels/1/id', held: 'C0DEPLOY1', sent: 'C0DEPLOY1', correct: true }]);
    expect(timeline.extra).toEqual([]);
    expect(timeline.counts).toEqual({ steps_total: 2, steps_correct: 2, steps_missing: 0, extra_requests: 0, first_failed_step: null, carried_correct: 1, carried_total: 1 });
  });

  it('a skipped lookup: the first step missing (every argument missing), the second took the only request and sent the name where the ID belongs', async () => {
    const timeline = (await client.getRunSample({ runId: runA, index: 1 })).timeline!;
    const [lookup, post] = timeline.steps;
    expect([lookup!.requestIndex, lookup!.request, lookup!.verdict.error_verdict]).toEqual([null, null, 'no_request']);
    expect(lookup!.arguments.map((a) => a.verdict)).toEqual(['missing', 'missing']);
    expect([post!.requestIndex, post!.verdict.sample_verdict]).toEqual([0, 'wrong']);
    expect(post!.arguments.find((a) => a.key === 'channel')).toEqual({ location: 'data', key: 'channel', expected: 'C0DEPLOY1', actual: 'deploys', verdict: 'incorrect_value' });
    expect(post!.carried).toEqual([{ where: 'data.channel', source: '0:/data/channels/1/id', held: 'C0DEPLOY1', sent: 'deploys', correct: false }]);
    expect(timeline.counts).toMatchObject({ steps_correct: 0, steps_missing: 1, first_failed_step: 0, carried_correct: 0 });
  });

  it('an extra mutating call: every step correct, the second post marked extra and mutating, the sample wrong', async () => {
    const detail = await client.getRunSample({ runId: runA, index: 2 });
    expect(detail.sample_verdict).toBe('wrong');
    const timeline = detail.timeline!;
    expect(timeline.steps.map((s) => s.verdict.sample_verdict)).toEqual(['correct', 'correct']);
    expect(timeline.extra).toEqual([{ requestIndex: 2, request: expect.objectContaining({ method: 'post', url: POST, data: { text: 'Release 2.4 is out', channel: 'C0GENERAL' } }), mutating: true }]);
    expect(timeline.counts).toMatchObject({ steps_correct: 2, extra_requests: 1, first_failed_step: null });
  });

  it('a path parameter carried: what the URL sent there, from the step verdict, against the response', async () => {
    expect((await client.getRunSample({ runId: runA, index: 3 })).timeline!.steps[1]!.carried).toEqual([{ where: 'path_params.task_gid', source: '0:/data/data/0/gid', held: '1209000', sent: '1209000', correct: true }]);
    const guessed = (await client.getRunSample({ runId: runB, index: 3 })).timeline!.steps[1]!;
    expect(guessed.carried).toEqual([{ where: 'path_params.task_gid', source: '0:/data/data/0/gid', held: '1209000', sent: '1200042', correct: false }]);
    expect(guessed.verdict.sample_verdict).toBe('wrong');
  });

  it('an override changes the sample verdict; the timeline stays the scorer’s', async () => {
    const overridden = await client.overrideVerdict({ runId: runB, index: 3, verdict: 'correct', reason: 'the guessed id is the project’s first task' });
    expect(overridden.sample_verdict).toBe('correct');
    expect(overridden.timeline!.steps[1]!.verdict.sample_verdict).toBe('wrong');
    await client.overrideVerdict({ runId: runB, index: 3, verdict: null, reason: 'withdrawn' });
  });
});

describe('rows and Results on multi-step samples', () => {
  it("each row says its steps correct of all, its steps' endpoints, and counts every step's arguments", async () => {
    const { rows } = await client.listRunSamples({ runId: runA });
    for (const row of rows) expect(() => RunSampleRowSchema.parse(row)).not.toThrow();
    expect(rows.map((r) => [r.sample_verdict, r.steps_correct, r.steps_total, r.endpoint])).toEqual([
      ['correct', 2, 2, 'GET /conversations.list → POST /chat.postMessage'],
      ['wrong', 0, 2, 'GET /conversations.list → POST /chat.postMessage'],
      ['wrong', 2, 2, 'GET /conversations.list → POST /chat.postMessage'],
      ['correct', 2, 2, 'GET /tasks → PUT /tasks/{task_gid}'],
    ]);
    expect(rows[1]!.argumentCounts).toEqual({ missing: 2, correct: 2, incorrect_value: 1 });
    // The argument filter finds a step's argument.
    const incorrect = await client.listRunSamples({ runId: runA, filter: { argumentVerdicts: ['incorrect_value'] } });
    expect(incorrect.rows.map((r) => r.index)).toEqual([1]);
    expect((await client.listRunSamples({ runId: runA, filter: { endpoint: 'PUT /tasks' } })).rows.map((r) => r.index)).toEqual([3]);
  });

  it('getRun: the task rate and the step rate with their Wilson intervals, and where samples first failed', async () => {
    const run = await client.getRun({ runId: runA });
    expect(run.uncertainty!.counts['samples_correct_wrt_total']).toEqual({ k: 2, n: 4 });
    expect(run.uncertainty!.counts['steps_correct_wrt_total']).toEqual({ k: 6, n: 8 });
    const [low, high] = run.uncertainty!.intervals['steps_correct_wrt_total']!;
    // Wilson 6/8: [0.4093, 0.9285].
    expect(low).toBeCloseTo(0.4093, 4);
    expect(high).toBeCloseTo(0.9285, 4);
    expect(run.statistics!['first_failed_step']).toEqual({ '0': 1 });
    expect(run.statistics!['samples_multistep']).toBe(4);
    expect(run.per_api_uncertainty['asana']!.counts['steps_correct_wrt_total']).toEqual({ k: 2, n: 2 });
  });
});

describe('Compare on multi-step samples', () => {
  it("aligns per sample and per step: each step's verdict in both runs side by side, McNemar on the sample verdicts", async () => {
    const result = await client.compareRuns({ baselineId: runA, runIds: [runB] });
    expect(() => CompareResultSchema.parse(result)).not.toThrow();
    expect(result.rows.map((r) => [r.baseline, r.others[0], r.changes[0]])).toEqual([
      ['correct', 'wrong', 'regressed'],
      ['wrong', 'correct', 'fixed'],
      ['wrong', 'correct', 'fixed'],
      ['correct', 'wrong', 'regressed'],
    ]);
    expect(result.rows[0]!.steps).toEqual([
      { step: 0, endpoint: 'GET /conversations.list', verdicts: ['correct', 'missing'], changes: ['regressed'] },
      { step: 1, endpoint: 'POST /chat.postMessage', verdicts: ['correct', 'wrong'], changes: ['regressed'] },
    ]);
    // The extra call made A's sample 2 wrong with both its steps correct: its steps are the same in both runs.
    expect(result.rows[2]!.steps!.map((s) => s.changes[0])).toEqual(['same', 'same']);
    expect(result.rows[3]!.steps!.map((s) => [s.endpoint, ...s.verdicts])).toEqual([
      ['GET /tasks', 'correct', 'correct'],
      ['PUT /tasks/{task_gid}', 'correct', 'wrong'],
    ]);
    expect(result.paired[0]!['samples_correct']).toMatchObject({ both: 0, a_only: 2, b_only: 2, neither: 0 });
    const steps = result.metrics.find((m) => m.key === 'steps_correct_wrt_total')!;
    expect([steps.of, steps.deltas]).toEqual([[{ k: 6, n: 8 }, { k: 5, n: 8 }], [-0.125]]);
    expect(result.metrics.find((m) => m.key === 'carried_correct_wrt_total')!.of).toEqual([{ k: 3, n: 4 }, { k: 2, n: 4 }]);
  });

  it('changed only keeps a sample whose verdict stayed but whose first failing step moved; the counts stay on sample verdicts', async () => {
    const result = await client.compareRuns({ baselineId: runA, runIds: [runC], changedOnly: true });
    expect(result.counts[0]).toEqual({ fixed: 0, regressed: 0, changed: 0, same: 4 });
    expect(result.rows.map((r) => [r.index, r.baseline, r.others[0], r.changes[0]])).toEqual([[1, 'wrong', 'wrong', 'same']]);
    expect(result.rows[0]!.steps!.map((s) => [...s.verdicts, s.changes[0]])).toEqual([
      ['missing', 'correct', 'fixed'],
      ['wrong', 'wrong', 'same'],
    ]);
  });
});
