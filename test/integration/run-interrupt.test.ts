import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../main/api/contract.js';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { cachedTestModel } from '../../main/generation/index.js';
import { startServe } from '../support/serve.js';
import { tempDir } from '../support/paths.js';

const until = async (what: () => Promise<boolean>, ms = 240_000): Promise<void> => {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe('a run when `wapii serve` dies', () => {
  it('is interrupted after SIGKILL and a restart, and Resume finishes it without regenerating a stored output', async () => {
    const db = path.join(tempDir(), 'w.db');
    const args = ['--db', db];
    const model = cachedTestModel('qwen2');
    let serve = await startServe(args);
    let client: WorkbenchApi = createFetchClient({ baseUrl: serve.url, token: new URL(serve.openUrl).searchParams.get('token')! });
    const { id: modelId } = await client.addModel({ path: model });
    const [dataset] = await client.listDatasets({});
    // One sequence and twelve samples: on the default 4 sequences the tiny model's outputs came in
    // fours, and all six of a smaller run could be stored between two polls, before the kill (CI).
    const { runId } = await client.startRun({ datasetId: dataset!.id, model: { modelId }, subset: { limit: 12 }, sampling: { maxTokens: 16 }, parallel: 1 });
    await until(async () => (await client.getRun({ runId })).done >= 2);
    serve.child.kill('SIGKILL');
    await new Promise((r) => serve.child.once('exit', r));

    serve = await startServe(args);
    client = createFetchClient({ baseUrl: serve.url, token: new URL(serve.openUrl).searchParams.get('token')! });
    try {
      const interrupted = await client.getRun({ runId });
      expect(interrupted.status).toBe('interrupted');
      expect(interrupted.done).toBeGreaterThanOrEqual(2);
      expect(interrupted.done).toBeLessThan(12);
      const stored = await Promise.all(
        (await client.listRunSamples({ runId })).rows.map((r) => client.getRunSample({ runId, index: r.index })),
      );
      await client.resumeRun({ runId });
      await until(async () => (await client.getRun({ runId })).status === 'finished');
      expect((await client.getRun({ runId })).done).toBe(12);
      // Byte for byte the same outputs, timings included: nothing stored was generated again.
      const output = ({ previous: _p, next: _n, ...rest }: Awaited<ReturnType<WorkbenchApi['getRunSample']>>): object => rest;
      for (const s of stored) expect(output(await client.getRunSample({ runId, index: s.index }))).toEqual(output(s));
    } finally {
      await serve.stop();
    }
  }, 600_000);
});
