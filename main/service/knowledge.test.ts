import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../api/contract.js';
import { createFetchClient } from '../api/fetchClient.js';
import { startHttpTransport } from '../api/http.js';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { callMethod, localClient, openWorkbench, readDemo, type Workbench } from './index.js';

const demo = readDemo(REPO_ROOT);

/**
 * A stand-in for an OpenAI-compatible server whose "model" knows only what the prompt tells it:
 * given an `Endpoint:` line it calls that endpoint with the token and nothing else; without one it
 * calls an endpoint the API does not have. So `endpoint` fixes the URL of every sample and leaves
 * the arguments missing, and `none` hallucinates every endpoint.
 */
async function knowledgeOnlyServer(): Promise<{ url: string; prompts: string[]; close: () => void }> {
  const prompts: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const prompt = (JSON.parse(body) as { prompt: string }).prompt;
      prompts.push(prompt);
      const endpoint = /\/\/ Endpoint: (\w+) (\S+)/.exec(prompt);
      const call = endpoint ? `${endpoint[1]!.toLowerCase()}('${endpoint[2]}'` : "get('https://api.harbor.example/v2/nowhere'";
      const text = `${call}, { headers: { Authorization: 'Bearer <token>' } });\n`;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ choices: [{ text, finish_reason: 'stop' }], usage: { completion_tokens: 20 } }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    prompts,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
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
      server.close();
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
      expect((await s.client.listRuns({})).filter((r) => r.demo).map((r) => r.knowledge)).toEqual([null, null, null]);
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

    it('resumes a knowledge run with the prompts it started with', async () => {
      const runId = runIds[1]!;
      const asked = server.prompts.length;
      await s.client.resumeRun({ runId, retryErrors: true });
      await until(async () => (await s.client.getRun({ runId })).status === 'finished');
      // Nothing errored, so nothing is generated again; the condition stays.
      expect(server.prompts.length).toBe(asked);
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
  const transport = await startHttpTransport({ call: (m, i) => callMethod(workbench.service, m, i), subscribe: (l) => workbench.service.onEvent(l), staticDir: tempDir() });
  const client = createFetchClient({ baseUrl: transport.url, token: transport.token });
  return {
    client,
    workbench,
    close: async () => {
      await transport.close();
      await workbench.shutdown();
    },
  };
});
