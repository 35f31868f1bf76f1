import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { tempDir } from '../support/paths.js';
import { loadServe, startServe, type ServeProcess } from '../support/serve.js';

// The correctness half of `npm run bench -- serve`: the same bounded load, checked answer by answer
// (its speed and memory are measured there, not asserted here).
describe('`wapii serve` under 200 concurrent connections', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(['--db', path.join(tempDir(), 'load.db')]);
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('answers 2,000 mixed calls correctly and stores every edit', async () => {
    const api = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const samples = await api.listSamples({ datasetId: 1 });
    const revisionsBefore = (await Promise.all(samples.map((s) => api.getSample({ datasetId: 1, sampleId: s.id })))).reduce((n, d) => n + d.revisions.length, 0);
    const report = await loadServe(serve, { connections: 200, requests: 2000 });
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(2000);
    const revisionsAfter = (await Promise.all(samples.map((s) => api.getSample({ datasetId: 1, sampleId: s.id })))).reduce((n, d) => n + d.revisions.length, 0);
    expect(revisionsAfter - revisionsBefore).toBe(report.edits);
    expect(report.edits).toBe(500);
    expect(serve.child.exitCode).toBeNull();
  });
});
