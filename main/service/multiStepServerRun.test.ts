import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';
import type { WorkbenchApi } from '../api/contract.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';

/**
 * A run on the demo's tasks of several requests through an OpenAI-compatible server (issue 37
 * item 4), as a user starts one: the server is asked for the task only and told to stop where the
 * starter's function closes; each program runs whole and is scored by its steps.
 */
let workbench: Workbench;
let client: WorkbenchApi;
beforeAll(async () => {
  const dir = tempDir('wapii-steps-server-');
  workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
  client = localClient(workbench.service);
  const seeded = await workbench.service.seedIfEmpty(readDemo(REPO_ROOT));
  if (!seeded.ok) throw new Error(seeded.error.message);
});
afterAll(() => workbench.shutdown());

describe('a multi-step run through an OpenAI-compatible server', () => {
  it('prompts the task only, stops at the function\'s close, and scores each program by its steps', async () => {
    const dataset = (await client.listDatasets({})).find((d) => d.name === 'demo-multistep')!;
    // The starter ends in `const response = await axios.`: the "model" writes the lookup, binds the ID, then the stock read.
    const planned = "get('https://api.harbor.example/v2/warehouses', { headers: { Authorization: 'Bearer <token>' }, params: { region: 'eu' } });\n  const id = response.data.data.find((w) => w.name === 'Rotterdam North').id;\n  await axios.get(`https://api.harbor.example/v2/warehouses/${id}/inventory`, { headers: { Authorization: 'Bearer <token>' }, params: { sku: 'PAL-1200' } });";
    const server = await startCompletionStandIn(({ prompt }) => (prompt.includes('Rotterdam North') ? { text: planned, tokens: 40 } : { text: "get('https://api.harbor.example/v2/me', { headers: { Authorization: 'Bearer <token>' } });", tokens: 12 }));
    try {
      const { runId } = await client.startRun({ datasetId: dataset.id, model: { remote: { url: server.url, model: 'stand-in' } }, subset: { limit: 2 } });
      await workbench.service.evaluation.jobs.idle();
      const run = await client.getRun({ runId });
      expect(run.status).toBe('finished');
      for (const request of server.received) {
        expect(request.body['stop']).toEqual(['\n})()']);
        // Nothing of the stubbed answers: the IDs they hold are the model's to look up.
        for (const secret of ['wh_rtm_02', 'wh_ams_01', 'shp_7c41', '/inventory', '/cancel']) expect(request.prompt).not.toContain(secret);
      }
      const first = await client.getRunSample({ runId, index: 0 });
      expect(first).toMatchObject({ sample_verdict: 'correct' });
      expect(first.timeline?.counts).toMatchObject({ steps_total: 2, steps_correct: 2, carried_correct: 1 });
      // The second task's program made one unrelated read: its steps missing, the read extra.
      const second = await client.getRunSample({ runId, index: 1 });
      expect(second.timeline?.counts).toMatchObject({ steps_correct: 0, steps_missing: 2, extra_requests: 1 });
      expect(run.statistics).toMatchObject({ samples_multistep: 2, steps_total: 4, steps_correct: 2 });
    } finally {
      await server.close();
    }
  }, 120_000);
});
