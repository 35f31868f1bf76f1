import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../api/contract.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';
import { overHttp } from '../../test/support/overHttp.js';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';

const demo = readDemo(REPO_ROOT);

/**
 * A stand-in for an OpenAI-compatible server whose "model" knows only what the prompt tells it:
 * given an `Endpoint:` line it calls that endpoint with the token and nothing else; without one it
 * calls an endpoint the API does not have. So `endpoint` fixes the URL of every sample and leaves
 * the arguments missing, and `none` hallucinates every endpoint.
 */
function knowledgeOnlyServer(): ReturnType<typeof startCompletionStandIn> {
  return startCompletionStandIn(({ prompt }) => {
    const endpoint = /\/\/ Endpoint: (\w+) (\S+)/.exec(prompt);
    const call = endpoint ? `${endpoint[1]!.toLowerCase()}('${endpoint[2]}'` : "get('https://api.harbor.example/v2/nowhere'";
    return { text: `${call}, { headers: { Authorization: 'Bearer <token>' } });\n`, tokens: 20 };
  });
}

const until = async (what: () => Promise<boolean>, ms = 120_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

interface Setup {
  client: WorkbenchApi;
  workbench: Workbench;
  close: () => Promise<void>;
}

async function open(): Promise<Workbench> {
  const dir = tempDir();
  const workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
  const seeded = await workbench.service.seedIfEmpty(demo);
  if (!seeded.ok) throw new Error(seeded.error.message);
  return workbench;
}

function knowledgeSuite(name: string, setup: () => Promise<Setup>): void {
  describe(`knowledge conditions through the service, over ${name}`, () => {
    let s: Setup;
    let server: Awaited<ReturnType<typeof knowledgeOnlyServer>>;
    let datasetId: number;
    let runIds: number[] = [];
    beforeAll(async () => {
      s = await setup();
      server = await knowledgeOnlyServer();
      datasetId = (await s.client.listDatasets({}))[0]!.id;
    });
    afterAll(async () => {
      await server.close();
      await s.close();
    });

    it('refuses an unknown condition before writing anything, and previews one run per condition', async () => {
      const before = s.workbench.store.counts();
      const model = { remote: { url: server.url, model: 'fake' } };
      await expect(s.client.startRun({ datasetId, model, knowledge: ['none', 'endpoint+typo'] })).rejects.toMatchObject({
        code: 'bad_input',
        message: 'unknown knowledge condition "typo" in "endpoint+typo": use none, endpoint, params, docs, example, full or retrieved:<k>, joined by + (endpoint+params)',
      });
      expect(s.workbench.store.counts()).toEqual(before);
      const preview = await s.client.previewRun({ datasetId, model, subset: { limit: 6 }, knowledge: ['none', 'endpoint', 'full', 'retrieved:3'] });
      expect(preview).toMatchObject({ samples: 6, runs: 4, outputs: 24 });
    });

    it('queues a run per condition, records the condition, and puts its knowledge in the prompts', async () => {
      const started = await s.client.startRun({ datasetId, model: { remote: { url: server.url, model: 'fake' } }, subset: { limit: 6 }, knowledge: ['none', 'endpoint', 'full', 'retrieved:3'] });
      runIds = started.runIds;
      expect(runIds).toHaveLength(4);
      expect(started.runId).toBe(runIds[0]);
      await until(async () => (await s.client.getRun({ runId: runIds[3]! })).status === 'finished');
      const listed = (await s.client.listRuns({})).filter((r) => runIds.includes(r.id));
      expect(listed.map((r) => [r.knowledge, r.status, r.done])).toEqual([
        ['none', 'finished', 6],
        ['endpoint', 'finished', 6],
        ['full', 'finished', 6],
        ['retrieved:3', 'finished', 6],
      ]);
      expect((await s.client.listRuns({})).filter((r) => r.demo).map((r) => r.knowledge)).toEqual([null, null, null, null]);
      const endpointRun = await s.client.getRun({ runId: runIds[1]! });
      expect(endpointRun).toMatchObject({ knowledge: 'endpoint', settings: { knowledge: 'endpoint' }, manifest: { knowledge: 'endpoint' } });

      // Sample 0 expects GET /me: `none` says nothing, `endpoint` names exactly it, `full` adds parameters and an example of another sample.
      const prompt = async (runId: number): Promise<string> => (await s.client.getRunSample({ runId, index: 0 })).prompt ?? '';
      expect(await prompt(runIds[0]!)).not.toContain('// Endpoint:');
      expect(await prompt(runIds[1]!)).toContain('// Endpoint: GET https://api.harbor.example/v2/me\n');
      expect(await prompt(runIds[1]!)).not.toContain('Parameters:');
      const full = await prompt(runIds[2]!);
      expect(full).toContain('// Endpoint: GET https://api.harbor.example/v2/me\n');
      expect(full).toContain('// Parameters:');
      expect(await prompt(runIds[3]!)).toContain('// Endpoints that may be relevant:');

      // The stand-in only knows what the prompt says: `endpoint` fixes every URL, `none` hallucinates them all.
      const urls = async (runId: number): Promise<(string | null)[]> => (await s.client.listRunSamples({ runId })).rows.map((r) => r.url_verdict);
      expect(await urls(runIds[0]!)).toEqual(Array(6).fill('illegal'));
      expect(await urls(runIds[1]!)).toEqual(Array(6).fill('correct'));
      expect((await s.client.getRunSample({ runId: runIds[1]!, index: 0 })).sample_verdict).toBe('correct');
    }, 120_000);

    it('classifies every output: classes per row, a failure filter, counts per run and API that agree with the verdicts', async () => {
      // `none` calls an endpoint the API lacks: every output is a hallucinated endpoint, as many as illegal URLs.
      const none = await s.client.getRun({ runId: runIds[0]! });
      expect(none.failures).toMatchObject({ counts: { hallucinated_endpoint: 6, wrong_endpoint: 0 }, per_api: { harbor: { hallucinated_endpoint: 6 } }, unclassified: 0 });
      expect((none.statistics?.['urls_illegal_wrt_executable'] as number) * (none.statistics?.['samples_executable'] as number)).toBe(6);
      expect((await s.client.listRunSamples({ runId: none.id, filter: { failures: ['hallucinated_endpoint'] } })).total).toBe(6);
      // `endpoint` gets the URL right and sends no argument: sample 1 (region, limit) misses them, sample 0 is correct and carries no class.
      const rows = (await s.client.listRunSamples({ runId: runIds[1]! })).rows;
      expect(rows[0]!.failures).toEqual([]);
      expect(rows[1]!.failures).toEqual(['missing_argument']);
      const detail = await s.client.getRunSample({ runId: runIds[1]!, index: 1 });
      expect(detail.failures).toEqual(['missing_argument']);
      const endpoint = await s.client.getRun({ runId: runIds[1]! });
      const missing = rows.filter((r) => r.failures.includes('missing_argument') || r.failures.includes('missing_required_argument')).length;
      expect(missing).toBe(rows.filter((r) => (r.argumentCounts['missing'] ?? 0) > 0).length);
      expect(endpoint.failures?.counts.hallucinated_endpoint).toBe(0);
      const filtered = await s.client.listRunSamples({ runId: runIds[1]!, filter: { failures: ['missing_argument', 'missing_required_argument'] } });
      expect(filtered.total).toBe(missing);
    });

    it('classifies the outputs of runs stored before failure classes were, on read, and stores them; an override reclassifies', async () => {
      const demo = (await s.client.listRuns({})).find((r) => r.demo && r.model?.startsWith('demo-coder-7b') && r.setting === 'unconstrained')!;
      const db = s.workbench.store.connection;
      const stored = (): (string | null)[] => (db.prepare('SELECT failures FROM run_samples WHERE run_id = ? ORDER BY sample_index').all(demo.id) as { failures: string | null }[]).map((r) => r.failures);
      const first = await s.client.getRun({ runId: demo.id });
      db.prepare('UPDATE run_samples SET failures = NULL WHERE run_id = ?').run(demo.id);
      s.workbench.service.evaluation.results.invalidate(demo.id);
      expect(stored().every((f) => f === null)).toBe(true);
      const run = await s.client.getRun({ runId: demo.id });
      expect(run.failures).toEqual(first.failures);
      expect(stored().every((f) => f !== null)).toBe(true);
      // The demo's sample 12 sends limit "50" for 50; sample 13 throws; sample 4 calls an illegal URL.
      const rows = (await s.client.listRunSamples({ runId: demo.id })).rows;
      expect(rows[12]!.failures).toEqual(['wrong_value_type']);
      expect(rows[13]!.failures).toEqual(['runtime_error']);
      expect(rows[4]!.failures).toContain('hallucinated_endpoint');
      expect(run.failures!.counts.hallucinated_endpoint).toBe(rows.filter((r) => r.url_verdict === 'illegal').length);
      expect(run.failures!.counts.runtime_error).toBe(rows.filter((r) => r.error_verdict === 'runtime_error').length);
      await s.client.overrideVerdict({ runId: demo.id, index: 12, verdict: 'correct', reason: 'the API accepts "50"' });
      expect((await s.client.getRunSample({ runId: demo.id, index: 12 })).failures).toEqual([]);
      expect((await s.client.getRun({ runId: demo.id })).failures!.counts.wrong_value_type).toBe(run.failures!.counts.wrong_value_type - 1);
      await s.client.overrideVerdict({ runId: demo.id, index: 12, verdict: null, reason: 'restored' });
    });

    it('compares the conditions: correct (t), illegal (e), gain over none, failure classes; refuses runs of another model', async () => {
      const result = await s.client.compareConditions({ runIds });
      expect(result).toMatchObject({ dataset: 'demo', model: 'fake' });
      expect(result.rows.map((r) => [r.runId, r.knowledge, r.setup, r.setting, r.outputs])).toEqual([
        [runIds[0], 'none', 'full', 'unconstrained', 6],
        [runIds[1], 'endpoint', 'full', 'unconstrained', 6],
        [runIds[2], 'full', 'full', 'unconstrained', 6],
        [runIds[3], 'retrieved:3', 'full', 'unconstrained', 6],
      ]);
      const [none, endpoint] = [result.rows[0]!, result.rows[1]!];
      expect(none).toMatchObject({ correct: 0, illegal: 1, gain: 0 });
      expect(endpoint.illegal).toBeLessThan(none.illegal);
      expect(endpoint.correct).toBeGreaterThan(0);
      expect(endpoint.gain).toBeCloseTo(endpoint.correct - none.correct, 10);
      for (const row of result.rows) {
        const run = await s.client.getRun({ runId: row.runId });
        expect(row.correct).toBe(run.correct);
        expect(row.failures).toEqual(run.failures?.counts);
      }
      expect(none.failures.hallucinated_endpoint).toBe(6);
      expect(result.classes).toContain('hallucinated_endpoint');
      expect(result.classes).toContain('missing_argument');
      const demo = (await s.client.listRuns({})).find((r) => r.demo)!;
      await expect(s.client.compareConditions({ runIds: [runIds[0]!, demo.id] })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^the runs use different models \(fake, demo-coder/) });
    });

    it('resumes a knowledge run with the prompts it started with', async () => {
      const runId = runIds[1]!;
      const asked = server.received.length;
      await s.client.resumeRun({ runId, retryErrors: true });
      await until(async () => (await s.client.getRun({ runId })).status === 'finished');
      // Nothing errored, so nothing is generated again; the condition stays.
      expect(server.received.length).toBe(asked);
      expect((await s.client.getRun({ runId })).knowledge).toBe('endpoint');
    }, 60_000);
  });
}

knowledgeSuite('the in-process client', async () => {
  const workbench = await open();
  return { client: localClient(workbench.service), workbench, close: () => workbench.shutdown() };
});

knowledgeSuite('HTTP (wapii serve)', async () => {
  const workbench = await open();
  return { ...(await overHttp(workbench)), workbench };
});
