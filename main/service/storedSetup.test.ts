import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCompletionStandIn } from '../../test/support/completionStandIn.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { setupFor, setupSampleOf } from '../prompt/index.js';
import { RunRepository } from '../store/runs.js';
import { localClient, openWorkbench, readDemo } from './index.js';

/**
 * One Setup per sample (issue 35 item 3): taken when the run takes its snapshot and stored with
 * the run's input, so the run, a resume and the inspector read that one instead of each building
 * its own from the run's settings.
 */
describe('a run stores each sample’s Setup with its snapshot', () => {
  it('a fetch run: each input carries the setup its prompt was made from, and the inspector cuts the call with it', async () => {
    const dir = tempDir('wapii-setup-');
    const workbench = openWorkbench({ db: path.join(dir, 'w.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
    const seeded = await workbench.service.seedIfEmpty(readDemo(REPO_ROOT));
    if (!seeded.ok) throw new Error(seeded.error.message);
    const client = localClient(workbench.service);
    const datasetId = (await client.listDatasets({}))[0]!.id;
    const server = await startCompletionStandIn(() => ({ text: "'https://api.harbor.example/v2/carriers').then((r) => r.json());" }));
    try {
      const { runId } = await client.startRun({ datasetId, model: { remote: { url: server.url, model: 'm' } }, client: 'fetch', setup: 'full', subset: { limit: 3 } });
      await workbench.service.evaluation.jobs.idle();
      const inputs = new RunRepository(workbench.store).inputs(runId);
      expect(inputs).toHaveLength(3);
      for (const input of inputs) {
        expect(input.setup).toEqual(setupFor(setupSampleOf(input), 'full', { client: 'fetch', style: 'completion' }));
        // The prompt the server got ends with the stored starter: the run was given that setup.
        expect(server.received.some((r) => r.prompt.endsWith(input.setup!.starter))).toBe(true);
      }
      const detail = await client.getRunSample({ runId, index: inputs[0]!.index });
      expect(detail.extraction).toMatchObject({ call: expect.stringMatching(/^fetch\('https:\/\/api\.harbor\.example\/v2\/carriers'\)/) });
    } finally {
      await server.close();
      await workbench.shutdown();
    }
  });
});
