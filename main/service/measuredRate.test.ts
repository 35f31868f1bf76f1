import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { oracleProgram } from '../prompt/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';

const demo = readDemo(REPO_ROOT);

async function open(db: string): Promise<Workbench> {
  const workbench = openWorkbench({ db, author: 'tester', evaluation: { modelsFolder: path.join(path.dirname(db), 'models'), gpu: 'cpu' } });
  const seeded = await workbench.service.seedIfEmpty(demo);
  if (!seeded.ok) throw new Error(seeded.error.message);
  return workbench;
}

/**
 * New run's time estimate comes from the outputs earlier runs of the same model stored: their
 * tokens over the time they took, read from the database, so a restart keeps it. A model no run
 * has measured gets a typical rate, called a guess.
 */
describe("the run estimate at the model's measured rate", () => {
  it('reads the stored outputs of earlier runs of the model, across a restart, and calls a typical rate a guess', async () => {
    const db = path.join(tempDir(), 'w.db');
    const url = 'http://127.0.0.1:9/v1';
    const model = { remote: { url, model: 'measured' } };
    let workbench = await open(db);
    const datasetId = (await localClient(workbench.service).listDatasets({}))[0]!.id;
    const preview = async (): Promise<string> => (await localClient(workbench.service).previewRun({ datasetId, model, subset: { limit: 10 }, sampling: { maxTokens: 100 } })).estimate;
    expect(await preview()).toBe('10 outputs, up to 1,000 generated tokens: at most about 9 s at a typical 30 tok/s per request, 4 at once (a guess: no earlier run of this model measured one)');

    // An earlier run on this server and model: 4 outputs of 100 tokens, each 2 s of the run's time
    // (the last took 4 s decoded two at a time); an errored output and another model's run do not count.
    const runs = workbench.service.evaluation.runs;
    const stored = (name: string): number =>
      runs.create({ kind: 'generation', status: 'finished', dataset: 'demo', datasetId, settings: { setting: 'unconstrained' }, manifest: {}, model: { name, remote: url }, subset: {}, total: 5, ownerPid: null, inputs: [] });
    const runId = stored('measured');
    const output = (index: number, tokens: number, durationMs: number, batched: number, error?: string): void =>
      workbench.store.addRunSample(runId, { index, api: 'harbor', code: '', verdict: null, extraction: {}, durationMs, generation: { tokens, batched, generateMs: durationMs, promptMs: 0 }, ...(error ? { error } : {}) });
    output(0, 100, 2000, 1);
    output(1, 100, 2000, 1);
    output(2, 100, 2000, 1);
    output(3, 100, 4000, 2);
    output(4, 100, 1, 1, 'the server went away');
    const other = stored('another');
    workbench.store.addRunSample(other, { index: 0, api: 'harbor', code: '', verdict: null, extraction: {}, durationMs: 1, generation: { tokens: 1000, batched: 1 } });
    await workbench.shutdown();

    workbench = await open(db);
    // 400 tokens over 8 s: 50 tok/s per request, 4 requests at once: 1,000 tokens in 5 s.
    expect(await preview()).toBe('10 outputs, up to 1,000 generated tokens: at most about 5 s at 50 tok/s per request, 4 at once measured over 4 outputs of earlier runs');
    await workbench.shutdown();
  });

  it("measures a real run's outputs: the next estimate names how many", async () => {
    const db = path.join(tempDir(), 'w.db');
    let workbench = await open(db);
    const samples = workbench.store.listSamples(workbench.store.listDatasets()[0]!.id);
    const server = await startCompletionStandIn((r) => {
      const sample = samples.find((s) => r.prompt.includes(s.task))!;
      return { text: oracleProgram(sample, 'full').completion, tokens: 20 };
    });
    try {
      const client = localClient(workbench.service);
      const datasetId = (await client.listDatasets({}))[0]!.id;
      const model = { remote: { url: server.url, model: 'stand-in' } };
      await client.startRun({ datasetId, model, subset: { limit: 3 }, parallel: 1 });
      await workbench.service.evaluation.jobs.idle();
      await workbench.shutdown();
      workbench = await open(db);
      const { estimate } = await localClient(workbench.service).previewRun({ datasetId, model, subset: { limit: 3 }, parallel: 1 });
      expect(estimate).toMatch(/^3 outputs, up to 750 generated tokens: at most about \d+ (s|min|h) at \d+ tok\/s measured over 3 outputs of earlier runs$/);
    } finally {
      await workbench.shutdown();
      await server.close();
    }
  });
});
