import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetchClient } from '../../main/api/fetchClient.js';
import { unwrap } from '../../main/api/result.js';
import { readFileInput, readSpecDir } from '../../main/cli/files.js';
import { DEMO_DATASET, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'openapi');

describe.runIf(hasWapiiBench)('`wapii serve` keeps answering while it imports WAPIIBench', () => {
  let serve: ServeProcess;
  beforeAll(async () => {
    serve = await startServe(['--db', path.join(tempDir(), 'import.db')]);
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('answers other calls while the import is parsed and checked', async () => {
    const client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const dataset = unwrap(readFileInput(WAPIIBENCH_ALL));
    const specs = unwrap(readSpecDir(WAPIIBENCH_SPECS));
    let finished = false;
    const importing = client.importDataset({ dataset, specs, name: 'wapiibench' }).finally(() => (finished = true));
    // Count the calls answered before the import's own answer: while the import held the event
    // loop (before), none were; the parse and check now run on a worker thread.
    let answered = 0;
    while (!finished) {
      const datasets = await client.listDatasets({});
      if (finished) break;
      expect(datasets.map((d) => d.name)).toEqual(['demo', 'demo-multistep']);
      answered++;
    }
    const imported = await importing;
    console.log(`serve import: ${answered} calls answered while WAPIIBench was imported`);
    expect(imported.sampleCount).toBe(395);
    expect(answered).toBeGreaterThanOrEqual(10);
    expect((await client.listDatasets({})).map((d) => d.name)).toEqual(['demo', 'demo-multistep', 'wapiibench']);
  });

  it('reports bad input from the worker as one line and stores nothing', async () => {
    const client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const specs = [{ filename: 'harbor.yaml', content: 'openapi: 3.0.3\npaths: [\n' }];
    await expect(client.importDataset({ dataset: unwrap(readFileInput(DEMO_DATASET)), specs })).rejects.toThrow(/^harbor\.yaml: malformed YAML at line 3/);
    expect((await client.listDatasets({})).length).toBe(3);
  });

  it('takes lenientRefs and a server through the contract, and names what they changed', async () => {
    const client = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const specs = ['dangling/chat.yaml', 'noserver/cluster.yaml'].map((f) => unwrap(readFileInput(path.join(FIXTURES, f))));
    const dataset = {
      filename: 'mixed.json',
      content: JSON.stringify([
        { api: 'chat', task: 'Add a@b.example.', config: { url: 'https://api.chat.example/contacts', method: 'post', data: { email: 'a@b.example', custom_attributes: { x: 1 } } } },
        { api: 'cluster', task: 'List pods of prod.', config: { url: 'https://k8s.example/api/v1/namespaces/prod/pods', method: 'get' } },
      ]),
    };
    await expect(client.importDataset({ dataset, specs })).rejects.toThrow(/^chat\.yaml: unresolved \$ref .*--lenient-refs/);
    await expect(client.importDataset({ dataset, specs, lenientRefs: true, server: 'file:///etc' })).rejects.toThrow(/^server "file:\/\/\/etc" must be an http or https URL, not file$/);
    const imported = await client.importDataset({ dataset, specs, lenientRefs: true, server: 'https://k8s.example' });
    expect(imported).toMatchObject({ sampleCount: 2, flaggedCount: 0, serverFor: ['cluster'], brokenRefs: [{ api: 'chat', ref: '#/components/parameters/missing_version', uses: 1 }, { api: 'chat', ref: '#/components/schemas/custom_attributes', uses: 4 }] });
    expect((await client.listDatasets({})).length).toBe(4);
  });
});
