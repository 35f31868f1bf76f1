import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedTestModel } from '../../main/generation/index.js';
import { localClient, openWorkbench, readDemo, type Workbench } from '../../main/service/index.js';
import { llamaServerBinary, startLlamaServer, type LlamaServer } from '../support/llamaServer.js';
import { REPO_ROOT, tempDir } from '../support/paths.js';
import { hasVocabBundle } from '../support/vocab.js';

const binary = llamaServerBinary();
if (!binary) console.warn('llama-pool.test: skipped — no llama-server on this machine; build it with scripts/build-llama-server.sh, or set WAPII_LLAMA_SERVER');

/**
 * One run served by a pool of two real llama-server processes (random-weight model, so the code
 * is nonsense; what is tested is that every sample gets an output): one of them is killed (SIGKILL)
 * mid-run, and the run still finishes every sample, each output naming the server that wrote it.
 */
describe.skipIf(!binary || !hasVocabBundle)('a run on a pool of two llama-servers, one killed mid-run', () => {
  let servers: LlamaServer[] = [];
  let workbench: Workbench;
  beforeAll(async () => {
    const model = cachedTestModel('qwen2');
    servers = await Promise.all([startLlamaServer(binary!, model), startLlamaServer(binary!, model)]);
    const dir = tempDir();
    workbench = openWorkbench({ db: path.join(dir, 'pool.db'), author: 'tester', evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
    const seeded = await workbench.service.seedIfEmpty(readDemo(REPO_ROOT));
    if (!seeded.ok) throw new Error(seeded.error.message);
  }, 300_000);
  afterAll(async () => {
    await workbench?.shutdown();
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('finishes every sample; the manifest and each output name the server', async () => {
    const client = localClient(workbench.service);
    const datasetId = (await client.listDatasets({}))[0]!.id;
    const [a, b] = servers as [LlamaServer, LlamaServer];
    const { runId } = await client.startRun({
      datasetId,
      model: { provider: { name: 'openai-compatible', model: 'test', baseUrl: a.url, pool: [b.url], concurrency: 2 } },
      subset: { limit: 24 },
      sampling: { maxTokens: 32, temperature: 1, seed: 3 },
    });
    // Once a few outputs are stored, b goes away with its requests in flight.
    for (;;) {
      const run = await client.getRun({ runId });
      if (run.done >= 4 || run.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await b.kill();
    await workbench.service.evaluation.jobs.idle();
    const run = await client.getRun({ runId });
    expect(run.error).toBeNull();
    expect(run).toMatchObject({ status: 'finished', done: 24, total: 24 });
    const outputs = workbench.store.getRun(runId)!.samples;
    expect(outputs.filter((s) => s.error !== undefined)).toEqual([]);
    const servedBy = outputs.map((s) => (s.generation as { provider?: { server?: string } }).provider?.server);
    expect(new Set(servedBy)).toEqual(new Set([a.url, b.url]));
    const usage = run.manifest?.['usage'] as { servers: Record<string, number> };
    expect(usage.servers[a.url]! + usage.servers[b.url]!).toBe(24);
    console.log(`llama-server pool: 24 outputs, ${usage.servers[a.url]} from the survivor, ${usage.servers[b.url]} from the killed server before it died`);
  }, 600_000);
});
