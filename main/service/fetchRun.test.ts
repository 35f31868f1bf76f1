import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fetchOracleProgram } from '../prompt/index.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { startHostedStandIn, type HostedRequest } from '../../test/support/hostedStandIn.js';
import { environmentKeys } from './apiKeys.js';
import { localClient, openWorkbench, readDemo } from './index.js';

const demo = readDemo(REPO_ROOT);
const KEY = 'sk-test-fetch';
const MODEL = 'gpt-4o';
const userTurn = (r: HostedRequest): string => ((r.body['messages'] ?? []) as { role: string; content: string }[]).filter((m) => m.role === 'user').map((m) => m.content).join('\n');

/**
 * StartRunInput.client reaches the run's plan (issue 25 item 5): a run with `client: 'fetch'`
 * prompts with the fetch starter and scores the fetch programs a model writes. The stand-in
 * answers each task with the fetch oracle's program only when the prompt's starter uses fetch.
 */
describe('a run with the fetch client', () => {
  it('prompts with the fetch starter and scores fetch programs correct; constrained fetch is refused in one line', async () => {
    const dir = tempDir();
    const workbench = openWorkbench({
      db: path.join(dir, 'w.db'),
      author: 'tester',
      apiKeys: environmentKeys({ OPENAI_API_KEY: KEY }),
      evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu', providerTimeoutMs: 5000, providerRetry: { retries: 0, minDelayMs: 10, maxDelayMs: 10, maxRetryAfterMs: 10 } },
    });
    const seeded = await workbench.service.seedIfEmpty(demo);
    if (!seeded.ok) throw new Error(seeded.error.message);
    const client = localClient(workbench.service);
    const datasetId = (await client.listDatasets({}))[0]!.id;
    const samples = workbench.store.listSamples(datasetId).slice(0, 3);
    const server = await startHostedStandIn({
      kind: 'openai',
      key: KEY,
      model: MODEL,
      reply: (r) => {
        const prompt = userTurn(r);
        const sample = samples.find((s) => prompt.includes(s.task));
        if (!sample || !prompt.includes('fetch(')) return { text: '```javascript\nconsole.log(1);\n```' };
        const { starter, completion } = fetchOracleProgram(sample, 'full');
        return { text: `\`\`\`javascript\n${starter}${completion}\n\`\`\`` };
      },
    });
    try {
      const model = { provider: { name: 'openai' as const, model: MODEL, baseUrl: server.url, concurrency: 1, batch: false } };
      const subset = { sampleIds: samples.map((s) => s.id) };
      const { runId } = await client.startRun({ datasetId, model, subset, client: 'fetch' });
      await workbench.service.evaluation.jobs.idle();
      const run = await client.getRun({ runId });
      expect(run.status).toBe('finished');
      for (const sample of samples) {
        const detail = await client.getRunSample({ runId, index: sample.position });
        expect(detail.sample_verdict).toBe('correct');
        expect(detail.code).toContain('fetch(');
        expect(detail.code).not.toContain('axios');
        // The inspector cuts the call as the run did, by the run's setup (its client): the fetch call is the one highlighted.
        expect(detail.callRange).not.toBeNull();
        expect(detail.code.slice(...detail.callRange!)).toMatch(/^fetch\(/);
      }

      await expect(client.startRun({ datasetId, model, subset, client: 'fetch', setting: 'constrained' })).rejects.toThrow(/^constrained decoding covers Axios calls only/);
    } finally {
      await server.close();
      workbench.store.close();
    }
  }, 240_000);
});
