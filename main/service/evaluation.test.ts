import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi, WorkbenchEvent } from '../api/contract.js';
import { cachedTestModel } from '../generation/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { RunRepository } from '../store/runs.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';
import { overHttp } from '../../test/support/overHttp.js';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';

const demo = readDemo(REPO_ROOT);

interface Setup {
  client: WorkbenchApi;
  workbench: Workbench;
  events: WorkbenchEvent[];
  /** Free RAM the model library believes in (a test poses as a small machine). */
  memory: { free: number };
  close: () => Promise<void>;
}

async function open(): Promise<{ workbench: Workbench; events: WorkbenchEvent[]; memory: { free: number } }> {
  const dir = tempDir();
  const memory = { free: 64 * 2 ** 30 };
  const workbench = openWorkbench({
    db: path.join(dir, 'w.db'),
    author: 'tester',
    evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu', memory: { ram: async () => ({ total: 64 * 2 ** 30, free: memory.free }) } },
  });
  const events: WorkbenchEvent[] = [];
  workbench.service.onEvent((e) => events.push(e));
  const seeded = await workbench.service.seedIfEmpty(demo);
  if (!seeded.ok) throw new Error(seeded.error.message);
  return { workbench, events, memory };
}

const until = async (what: () => Promise<boolean>, ms = 120_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

function evaluationSuite(name: string, setup: () => Promise<Setup>): void {
  describe(`evaluation contract over ${name}`, () => {
    let s: Setup;
    let datasetId: number;
    const runOf = async (demoName: string): Promise<number> => (await s.client.listRuns({})).find((r) => r.demo && r.setting && r.model && r.dataset === 'demo' && JSON.stringify(r).includes(demoName.split('-')[1]!) && r.setting === demoName.split('-')[2])!.id;
    beforeAll(async () => {
      s = await setup();
      datasetId = (await s.client.listDatasets({}))[0]!.id;
    });
    afterAll(() => s.close());

    it('seeds the demo runs with the paper\'s statistics under the reference names', async () => {
      const runs = await s.client.listRuns({});
      expect(runs.map((r) => [r.kind, r.status, r.model, r.setting, r.total, r.done, r.demo])).toEqual([
        ['imported codes', 'finished', 'demo-coder-1b-q8 (scored programs)', 'unconstrained', 32, 32, true],
        ['imported codes', 'finished', 'demo-coder-7b-q4 (scored programs)', 'constrained', 32, 32, true],
        ['imported codes', 'finished', 'demo-coder-7b-q4 (scored programs)', 'unconstrained', 32, 32, true],
        ['imported codes', 'finished', 'demo-coder-7b-q4 (scored programs)', 'unconstrained', 6, 6, true],
      ]);
      // The multi-step demo: six tasks of the Harbor API, each step scored, two tasks right.
      const multi = await s.client.getRun({ runId: runs[3]!.id });
      expect(multi.dataset).toBe('demo-multistep');
      expect(multi.statistics).toMatchObject({ samples_total: 6, samples_correct: 2, samples_multistep: 6, steps_total: 13, steps_correct: 8, carried_total: 7, carried_correct: 4, first_failed_step: { '0': 1, '1': 2 } });
      expect(multi.uncertainty!.intervals['steps_correct_wrt_total']).toHaveLength(2);
      expect(multi.uncertainty!.counts['steps_correct_wrt_total']).toEqual({ k: 8, n: 13 });
      // Failure classes of multi-step outputs: a skipped lookup, an extra mutating call.
      expect((await s.client.getRunSample({ runId: multi.id, index: 1 })).failures).toEqual(['skipped_step']);
      expect((await s.client.getRunSample({ runId: multi.id, index: 4 })).failures).toEqual(['extra_request']);
      const run = await s.client.getRun({ runId: runs[2]!.id });
      expect(run.statistics?.['samples_total']).toBe(32);
      expect(run.correct).toBeCloseTo(19 / 32);
      expect(Object.keys(run.per_api)).toEqual(['harbor']);
      expect(run.datasetChanged).toBe(false);
      expect(run.apis).toEqual(['harbor']);
    });

    it('filters, sorts and pages a run\'s samples', async () => {
      const runId = await runOf('demo-7b-unconstrained');
      const all = await s.client.listRunSamples({ runId });
      expect(all.total).toBe(32);
      const wrong = await s.client.listRunSamples({ runId, filter: { sampleVerdicts: ['wrong', 'illegal', 'nonexecutable'] } });
      expect(wrong.rows.map((r) => r.index)).toEqual([1, 2, 4, 6, 9, 12, 13, 16, 19, 21, 22, 24, 29]);
      const runtime = await s.client.listRunSamples({ runId, filter: { errorVerdicts: ['runtime_error'] } });
      expect(runtime.rows.map((r) => r.index)).toEqual([13]);
      const missing = await s.client.listRunSamples({ runId, filter: { argumentVerdicts: ['missing'], text: 'rates' } });
      expect(missing.rows.map((r) => r.index)).toEqual([22]);
      const byEndpoint = await s.client.listRunSamples({ runId, filter: { endpoint: 'GET /shipments' } });
      expect(byEndpoint.rows.map((r) => r.endpoint)).toContain('GET /shipments/{shipment_id}');
      const page = await s.client.listRunSamples({ runId, sort: { by: 'verdict', dir: 'desc' }, offset: 0, limit: 2 });
      expect(page.total).toBe(32);
      expect(page.rows.map((r) => r.sample_verdict)).toEqual(['nonexecutable', 'nonexecutable']);
    });

    it('shows a sample: the extracted call, expected vs captured request, argument verdicts, console and error', async () => {
      const runId = await runOf('demo-7b-unconstrained');
      const twelve = await s.client.getRunSample({ runId, index: 12 });
      expect(twelve.sample_verdict).toBe('wrong');
      expect(twelve.extraction).toMatchObject({ rule: '.then' });
      expect(twelve.code.slice(...twelve.callRange!)).toMatch(/^axios\.get\('https:\/\/api\.harbor\.example\/v2\/shipments'/);
      expect(twelve.arguments.find((a) => a.key === 'limit')).toEqual({ location: 'params', key: 'limit', expected: 50, actual: '50', verdict: 'incorrect_value' });
      expect(twelve.expectedEndpoint).toEqual({ method: 'get', path: '/shipments' });
      expect(twelve.request?.params).toMatchObject({ limit: '50' });
      expect(twelve.expected.params).toMatchObject({ limit: 50 });
      expect(twelve.previous).toBe(11);
      expect(twelve.next).toBe(13);
      const thirteen = await s.client.getRunSample({ runId, index: 13 });
      expect(thirteen).toMatchObject({ sample_verdict: 'nonexecutable', error_verdict: 'runtime_error', request: null });
      expect(thirteen.runtimeError).toMatch(/warehouseId is not defined/);
      const four = await s.client.getRunSample({ runId, index: 4 });
      expect(four).toMatchObject({ sample_verdict: 'illegal', url_verdict: 'illegal' });
      await expect(s.client.getRunSample({ runId, index: 99 })).rejects.toMatchObject({ code: 'not_found', message: `run ${runId} has no output for sample 99` });
    });

    it('compares runs: metric deltas, aligned samples, fixes and regressions', async () => {
      const constrained = await runOf('demo-7b-constrained');
      const unconstrained = await runOf('demo-7b-unconstrained');
      const small = await runOf('demo-1b-unconstrained');
      const result = await s.client.compareRuns({ baselineId: unconstrained, runIds: [constrained, small], changedOnly: true });
      const correct = result.metrics.find((m) => m.key === 'samples_correct_wrt_total')!;
      expect(correct.baseline).toBeCloseTo(19 / 32);
      expect(correct.deltas[0]).toBeCloseTo(28 / 32 - 19 / 32);
      expect(result.counts[0]).toMatchObject({ fixed: 9, regressed: 0 });
      expect(result.counts[1]).toMatchObject({ regressed: 5, fixed: 0 });
      expect(result.rows.find((r) => r.index === 13)).toMatchObject({ baseline: 'nonexecutable (runtime_error)', others: ['correct', 'nonexecutable (runtime_error)'], changes: ['fixed', 'same'] });
      expect(result.total).toBe(result.rows.length);
    });

    it('overrides a verdict with a reason, keeps the history and recomputes the statistics', async () => {
      const runId = await runOf('demo-1b-unconstrained');
      const before = await s.client.getRun({ runId });
      const detail = await s.client.overrideVerdict({ runId, index: 29, verdict: 'correct', reason: 'max_price accepts a numeric string' });
      expect(detail).toMatchObject({ sample_verdict: 'correct', overridden: true, scorerVerdict: { sample_verdict: 'wrong' } });
      expect(detail.overrides).toEqual([expect.objectContaining({ author: 'tester', reason: 'max_price accepts a numeric string', from: 'wrong', to: 'correct' })]);
      const after = await s.client.getRun({ runId });
      expect(after.correct! - before.correct!).toBeCloseTo(1 / 32);
      expect(after.overridden).toBe(1);
      expect((await s.client.listRuns({})).find((r) => r.id === runId)?.correct).toBeCloseTo(after.correct!);
      expect((await s.client.listRunSamples({ runId, filter: { overridden: true } })).rows.map((r) => r.index)).toEqual([29]);
      await expect(s.client.overrideVerdict({ runId, index: 29, verdict: 'correct', reason: 'again' })).rejects.toMatchObject({ code: 'conflict' });
      const restored = await s.client.overrideVerdict({ runId, index: 29, verdict: null, reason: 'the spec says number' });
      expect(restored).toMatchObject({ sample_verdict: 'wrong', overridden: false });
      expect(restored.overrides.map((o) => o.to)).toEqual(['correct', null]);
      expect((await s.client.getRun({ runId })).correct).toBeCloseTo(before.correct!);
      // Two reviewers override one output at once: one lands, the other is told, none stacks on a state it never saw.
      const both = await Promise.allSettled(['correct', 'correct'].map((verdict, i) => s.client.overrideVerdict({ runId, index: 29, verdict: verdict as 'correct', reason: `reviewer ${i}` })));
      expect(both.map((b) => b.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(both.find((b) => b.status === 'rejected')).toMatchObject({ reason: { code: 'conflict' } });
      expect((await s.client.getRunSample({ runId, index: 29 })).overrides.map((o) => o.to)).toEqual(['correct', null, 'correct']);
      // The same race across processes: an override based on two overrides, when there are three now, is not written.
      const stale = new RunRepository(s.workbench.store).addOverride(runId, { sampleIndex: 29, attempt: 0, author: 'other', reason: 'stale', from: 'wrong', to: 'correct' }, 2);
      expect(stale).toBe(false);
      expect((await s.client.getRunSample({ runId, index: 29 })).overrides).toHaveLength(3);
    });

    it('exports a run as CSV, JSON, Markdown, LaTeX and a folder of programs', async () => {
      const runId = await runOf('demo-7b-unconstrained');
      const csv = Object.values((await s.client.exportRun({ runId, format: 'csv' })).files)[0]!;
      const lines = csv.trim().split('\r\n');
      expect(lines[0]).toMatch(/^index,attempt,sample_id,api,task,endpoint,expected_method,expected_url,captured_method,captured_url,sample_verdict,error_verdict,url_verdict/);
      expect(csv.match(/^\d+,0,/gm)).toHaveLength(32);
      expect(lines.find((l) => l.startsWith('12,0,'))).toMatch(/^12,0,[^,]*,harbor,(?:"(?:[^"]|"")*"|[^,]*),GET \/shipments,GET,https:\/\/[^,]*,GET,https:\/\/[^,]*,wrong,,correct,correct,correct,/);
      const json = JSON.parse(Object.values((await s.client.exportRun({ runId, format: 'json' })).files)[0]!) as { statistics: Record<string, unknown>; samples: Record<string, { sample_verdict: string }> };
      expect(json.statistics['samples_correct_wrt_total']).toBeCloseTo(19 / 32);
      expect(json.samples['13']?.sample_verdict).toBe('nonexecutable');
      const md = Object.values((await s.client.exportRun({ runId, format: 'markdown' })).files)[0]!;
      expect(md).toContain('| Correct implementations (t) | 59.4% [42.3, 74.5] |');
      const tex = Object.values((await s.client.exportRun({ runId, format: 'latex' })).files)[0]!;
      expect(tex).toContain('Correct implementations (t) & 59.4\\% [42.3, 74.5] & 59.4\\% [42.3, 74.5] \\\\');
      const codes = (await s.client.exportRun({ runId, format: 'codes' })).files;
      expect(Object.keys(codes)).toHaveLength(32);
      expect(codes[`run-${runId}/0013_code.js`]).toContain('origin_warehouse_id: warehouseId');
    });

    it('adds a GGUF model with its metadata, and refuses a missing file, a non-GGUF file and a model that does not fit', async () => {
      const before = s.workbench.store.counts();
      await expect(s.client.addModel({ path: '/nonexistent/model.gguf' })).rejects.toMatchObject({ code: 'bad_input', message: 'model file not found: /nonexistent/model.gguf' });
      const notGguf = path.join(tempDir(), 'notes.gguf');
      fs.writeFileSync(notGguf, 'this is not a model');
      await expect(s.client.addModel({ path: notGguf })).rejects.toMatchObject({ code: 'bad_input', message: 'notes.gguf is not a GGUF model file (it does not start with the GGUF magic bytes)' });
      const file = cachedTestModel('qwen2');
      s.memory.free = 1024;
      await expect(s.client.addModel({ path: file })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^qwen2-L2-D64-S1 does not fit: needs [\d.]+ GiB RAM for 4 sequences of 1,024 tokens, 0\.00 GiB RAM free$/) });
      s.memory.free = 64 * 2 ** 30;
      expect(s.workbench.store.counts()).toEqual(before);
      expect(await s.client.listModels({})).toEqual([]);
      const model = await s.client.addModel({ path: file });
      expect(model).toMatchObject({ name: 'qwen2-L2-D64-S1', architecture: 'llama', quantisation: 'MOSTLY_F16', present: true, fit: { fitsRam: true } });
      expect(model.parameters).toBeGreaterThan(0);
      expect(model.contextLength).toBeGreaterThan(0);
      expect(typeof model.chatTemplate).toBe('boolean');
      expect((await s.client.listModels({})).map((m) => m.id)).toEqual([model.id]);
      expect((await s.client.addModel({ path: file })).id).toBe(model.id);
    });

    it('runs a model on a subset of the stored dataset, streams progress, and keeps the result when the dataset changes', async () => {
      const [model] = await s.client.listModels({});
      const before = s.workbench.store.counts();
      await expect(s.client.startRun({ datasetId, model: { modelId: model!.id }, subset: { apis: ['slack'] } })).rejects.toMatchObject({
        code: 'bad_input',
        message: 'the subset leaves no sample: none of the 32 samples of dataset "demo" matches APIs slack',
      });
      await expect(s.client.startRun({ datasetId, model: { modelId: 999 } })).rejects.toMatchObject({ code: 'not_found', message: 'model 999 is not in the library' });
      expect(s.workbench.store.counts()).toEqual(before);
      const preview = await s.client.previewRun({ datasetId, model: { modelId: model!.id }, subset: { limit: 3 }, sampling: { maxTokens: 16 } });
      expect(preview).toMatchObject({ samples: 3, outputs: 3, apis: ['harbor'] });
      const { runId } = await s.client.startRun({ datasetId, model: { modelId: model!.id }, subset: { limit: 3 }, setting: 'constrained', sampling: { maxTokens: 8 } });
      await until(async () => ['finished', 'failed'].includes((await s.client.getRun({ runId })).status));
      const run = await s.client.getRun({ runId });
      expect(run).toMatchObject({ status: 'finished', total: 3, done: 3, kind: 'generation', setting: 'constrained', model: 'qwen2-L2-D64-S1', error: null });
      expect(run.manifest).toMatchObject({ modelSha256: expect.stringMatching(/^[0-9a-f]{64}$/), specSha256: { harbor: expect.any(String) } });
      expect(s.events.some((e) => e.type === 'runProgress' && e.runId === runId && e.done === 3 && e.total === 3)).toBe(true);
      expect(s.events.filter((e) => e.type === 'runStatus' && e.runId === runId).map((e) => e.type === 'runStatus' && e.status)).toEqual(['queued', 'running', 'finished']);
      const sample = await s.client.getRunSample({ runId, index: 0 });
      expect(sample.prompt).toContain('axios');
      expect(sample.generation?.tokens).toBeGreaterThan(0);
      // The token trace and the constraint's interventions reach the inspector: a random model at an
      // 8-token limit is overruled and its open invocation closed.
      const generated = await Promise.all([0, 1, 2].map((index) => s.client.getRunSample({ runId, index })));
      for (const g of generated) expect(g.generation?.trace).toHaveLength(g.generation!.tokens);
      const interventions = generated.flatMap((g) => g.generation!.interventions);
      expect(interventions.length).toBeGreaterThan(0);
      for (const i of interventions) if (i.kind === 'closed') expect(generated.some((g) => g.code.includes(i.text))).toBe(true);
      expect((await s.client.listModels({}))[0]?.sha256).toBe(run.manifest?.['modelSha256']);

      // Editing a sample afterwards changes neither the run's report nor its snapshot; the run says so.
      const report = JSON.stringify([run.statistics, run.per_api]);
      const [first] = await s.client.listSamples({ datasetId });
      await s.client.editSample({ datasetId, sampleId: first!.id, task: `${first!.task} (reworded)`, reason: 'clearer task' });
      const after = await s.client.getRun({ runId });
      expect(JSON.stringify([after.statistics, after.per_api])).toBe(report);
      expect(after.datasetChanged).toBe(true);
      expect(after.datasetChanges).toEqual([{ sampleId: first!.id, index: 0, change: 'edited' }]);
      expect((await s.client.getRunSample({ runId, index: 0 })).task).toBe(first!.task);
    }, 300_000);

    it('scans a models folder, removes a model, deletes a run', async () => {
      const folder = tempDir('wapii-models-');
      fs.copyFileSync(cachedTestModel('llama-spm'), path.join(folder, 'spm.gguf'));
      fs.writeFileSync(path.join(folder, 'broken.gguf'), 'not a model');
      // Listing offers both files to pick from, nothing added yet.
      expect(await s.client.listModelFiles({ folder })).toEqual({
        folder,
        files: [
          { path: path.join(folder, 'broken.gguf'), name: 'broken.gguf', sizeBytes: 11, inLibrary: false },
          { path: path.join(folder, 'spm.gguf'), name: 'spm.gguf', sizeBytes: fs.statSync(path.join(folder, 'spm.gguf')).size, inLibrary: false },
        ],
      });
      const scan = await s.client.scanModels({ folder });
      expect(scan.added.map((m) => m.name)).toEqual(['spm']);
      expect((await s.client.listModelFiles({ folder })).files.map((f) => [f.name, f.inLibrary])).toEqual([
        ['broken.gguf', false],
        ['spm.gguf', true],
      ]);
      await expect(s.client.listModelFiles({ folder: path.join(folder, 'nope') })).rejects.toMatchObject({ code: 'bad_input', message: `models folder not found: ${path.join(folder, 'nope')}` });
      expect(scan.skipped).toEqual([{ path: path.join(folder, 'broken.gguf'), reason: 'broken.gguf is not a GGUF model file (it does not start with the GGUF magic bytes)' }]);
      expect((await s.client.scanModels({ folder })).added).toEqual([]);
      await expect(s.client.scanModels({ folder: path.join(folder, 'nope') })).rejects.toMatchObject({ code: 'bad_input', message: `models folder not found: ${path.join(folder, 'nope')}` });
      expect(await s.client.removeModel({ modelId: scan.added[0]!.id })).toEqual({ removed: true });
      expect((await s.client.listModels({})).map((m) => m.name)).toEqual(['qwen2-L2-D64-S1']);
      const demoRun = (await s.client.listRuns({}))[0]!;
      expect(await s.client.deleteRun({ runId: demoRun.id })).toEqual({ deleted: true });
      await expect(s.client.getRun({ runId: demoRun.id })).rejects.toMatchObject({ code: 'not_found', message: `run ${demoRun.id} does not exist` });
    });

    it('queues the paper\'s grid on one model load; cancelling the running run leaves the queued ones going', async () => {
      const [model] = await s.client.listModels({});
      const loads = s.workbench.service.evaluation.jobs.modelLoads;
      const grid: number[] = [];
      for (const setup of ['full', 'argument'] as const) {
        for (const setting of ['unconstrained', 'constrained'] as const) {
          // One sequence at a time, so that the first run is still going when it is cancelled (4 would finish it at once).
          grid.push((await s.client.startRun({ datasetId, model: { modelId: model!.id }, subset: { limit: setting === 'unconstrained' && setup === 'full' ? 6 : 1 }, setup, setting, sampling: { maxTokens: 6 }, parallel: 1 })).runId);
        }
      }
      // The first starts once the queue is free (the previous test's model may still be unloading); the rest wait behind it.
      await until(async () => (await s.client.getRun({ runId: grid[0]! })).status === 'running');
      expect((await s.client.listRuns({})).filter((r) => grid.includes(r.id)).map((r) => r.status)).toEqual(['running', 'queued', 'queued', 'queued']);
      await until(async () => (await s.client.getRun({ runId: grid[0]! })).done >= 1);
      expect((await s.client.cancelRun({ runId: grid[0]! })).status).toBe('cancelled');
      await until(async () => (await s.client.getRun({ runId: grid[3]! })).status === 'finished');
      expect((await s.client.listRuns({})).filter((r) => grid.includes(r.id)).map((r) => [r.status, r.setup, r.setting])).toEqual([
        ['cancelled', 'full', 'unconstrained'],
        ['finished', 'full', 'constrained'],
        ['finished', 'argument', 'unconstrained'],
        ['finished', 'argument', 'constrained'],
      ]);
      // Four runs, at most one load: none when the previous test's model was still loaded as they queued.
      expect(s.workbench.service.evaluation.jobs.modelLoads - loads).toBeLessThanOrEqual(1);
    }, 300_000);

    it('runs on a remote OpenAI-compatible server; failed outputs are marked, and resume with retryErrors regenerates only them', async () => {
      const samples = await s.client.listSamples({ datasetId });
      const failing = new Set([samples[1]!.task]);
      const server = await startCompletionStandIn(({ prompt }) =>
        [...failing].some((t) => prompt.includes(t)) ? { status: 503, message: 'model is loading' } : { text: "get('https://api.harbor.example/v2/me', { headers: { Authorization: 'Bearer <token>' } });\n", tokens: 21 },
      );
      try {
        const { runId } = await s.client.startRun({ datasetId, model: { remote: { url: server.url, model: 'fake' } }, subset: { limit: 3 } });
        await until(async () => (await s.client.getRun({ runId })).status === 'finished');
        const errored = await s.client.listRunSamples({ runId, filter: { errored: true } });
        expect(errored.rows.map((r) => [r.index, r.sample_verdict, r.error])).toEqual([[1, null, expect.stringMatching(/answered 503: model is loading$/)]]);
        expect((await s.client.getRunSample({ runId, index: 0 })).sample_verdict).toBe('correct');
        const first = await s.client.getRun({ runId });
        expect(first.statistics?.['samples_total']).toBe(2);
        failing.clear();
        const asked = server.received.length;
        await s.client.resumeRun({ runId, retryErrors: true });
        await until(async () => (await s.client.getRun({ runId })).status === 'finished');
        expect(server.received.slice(asked).map((r) => r.prompt.includes(samples[1]!.task))).toEqual([true]);
        expect((await s.client.listRunSamples({ runId, filter: { errored: true } })).total).toBe(0);
        expect((await s.client.getRun({ runId })).statistics?.['samples_total']).toBe(3);
      } finally {
        await server.close();
      }
    }, 120_000);

    it('cancels a run on 4 parallel sequences (the default): the outputs finished by then stay, byte for byte, through a resume', async () => {
      const [model] = await s.client.listModels({});
      const { runId } = await s.client.startRun({ datasetId, model: { modelId: model!.id }, subset: { limit: 16 }, sampling: { maxTokens: 8 } });
      // Not asked for: the settings leave it to the runtime, and the manifest records what the CPU took.
      expect((await s.client.getRun({ runId })).settings).not.toHaveProperty('parallel');
      await until(async () => (await s.client.getRun({ runId })).done >= 1);
      expect((await s.client.getRun({ runId })).manifest).toMatchObject({ backend: 'cpu', parallel: 4 });
      const cancelled = await s.client.cancelRun({ runId });
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.done).toBeLessThan(16);
      // Finished out of order (4 at a time): the stored rows say which.
      const { rows } = await s.client.listRunSamples({ runId });
      expect(rows).toHaveLength(cancelled.done);
      const kept = await Promise.all(rows.map((r) => s.client.getRunSample({ runId, index: r.index })));
      await s.client.resumeRun({ runId });
      await until(async () => (await s.client.getRun({ runId })).status === 'finished');
      expect((await s.client.getRun({ runId })).done).toBe(16);
      const output = ({ previous: _p, next: _n, ...rest }: Awaited<ReturnType<WorkbenchApi['getRunSample']>>): object => rest;
      for (const k of kept) expect(output(await s.client.getRunSample({ runId, index: k.index }))).toEqual(output(k));
    }, 300_000);

    it('cancels a run keeping its finished outputs, and resumes it without regenerating them', async () => {
      const [model] = await s.client.listModels({});
      // One sequence at a time: the outputs finish in order, so those kept are the first `done`.
      const { runId } = await s.client.startRun({ datasetId, model: { modelId: model!.id }, subset: { limit: 5 }, sampling: { maxTokens: 8 }, parallel: 1 });
      await until(async () => (await s.client.getRun({ runId })).done >= 1);
      const cancelled = await s.client.cancelRun({ runId });
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.done).toBeGreaterThanOrEqual(1);
      expect(cancelled.done).toBeLessThan(5);
      const kept = await Promise.all(Array.from({ length: cancelled.done }, (_, i) => s.client.getRunSample({ runId, index: i })));
      await expect(s.client.cancelRun({ runId })).rejects.toMatchObject({ code: 'conflict', message: `run ${runId} is cancelled, not queued or running` });
      expect(['queued', 'running']).toContain((await s.client.resumeRun({ runId })).status);
      await until(async () => (await s.client.getRun({ runId })).status === 'finished');
      expect((await s.client.getRun({ runId })).done).toBe(5);
      const output = ({ previous: _p, next: _n, ...rest }: Awaited<ReturnType<WorkbenchApi['getRunSample']>>): object => rest;
      for (const k of kept) expect(output(await s.client.getRunSample({ runId, index: k.index }))).toEqual(output(k));
      // The model's measured pace (its stored outputs) now feeds the New run page's estimate.
      const preview = await s.client.previewRun({ datasetId, model: { modelId: model!.id }, subset: { limit: 4 }, sampling: { maxTokens: 10 } });
      expect(preview.estimate).toMatch(/^4 outputs, up to 40 generated tokens: at most about \d+ s at \d+ tok\/s measured over \d+ outputs of earlier runs$/);
    }, 300_000);
  });
}

evaluationSuite('the in-process client', async () => {
  const { workbench, events, memory } = await open();
  return { client: localClient(workbench.service), workbench, events, memory, close: () => workbench.shutdown() };
});

evaluationSuite('HTTP (wapii serve)', async () => {
  const { workbench, events, memory } = await open();
  return { ...(await overHttp(workbench)), workbench, events, memory };
});
