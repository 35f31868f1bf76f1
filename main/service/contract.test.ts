import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi, WorkbenchEvent } from '../api/contract.js';
import { ApiError, createFetchClient } from '../api/fetchClient.js';
import { startHttpTransport, type HttpTransport } from '../api/http.js';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { callMethod, localClient, openWorkbench, readDemo, type Workbench } from './index.js';

const demo = readDemo(path.dirname(DEMO_SPECS));

/**
 * One suite, two transports: the in-process client (CLI) and HTTP (`wapii serve`, the browser)
 * must behave the same, errors included.
 */
function contractSuite(name: string, setup: () => Promise<{ client: WorkbenchApi; workbench: Workbench; events: WorkbenchEvent[]; close: () => Promise<void> }>): void {
  describe(`service contract over ${name}`, () => {
    let client: WorkbenchApi;
    let workbench: Workbench;
    let events: WorkbenchEvent[];
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ client, workbench, events, close } = await setup());
    });
    afterAll(() => close());

    it('imports a dataset with its specs and lists it', async () => {
      const summary = await client.importDataset({ dataset: demo.dataset, specs: demo.specs });
      expect(summary).toMatchObject({ name: 'demo', sampleCount: 32, flaggedCount: 4, apis: [{ api: 'harbor', samples: 32, specTitle: 'Harbor Logistics API' }] });
      expect((await client.listDatasets({})).map((d) => d.name)).toEqual(['demo']);
      expect(events.some((e) => e.type === 'progress')).toBe(true);
      expect(events.at(-1)).toEqual({ type: 'datasetsChanged' });
    });

    it('filters samples and shows a sample with its findings and endpoint', async () => {
      const [dataset] = await client.listDatasets({});
      const flagged = await client.listSamples({ datasetId: dataset!.id, filter: { checkStatus: 'flagged' } });
      expect(flagged.map((s) => s.position)).toEqual([28, 29, 30, 31]);
      const posts = await client.listSamples({ datasetId: dataset!.id, filter: { method: 'post', text: 'label' } });
      expect(posts.map((s) => s.position)).toEqual([20, 30]);
      const detail = await client.getSample({ datasetId: dataset!.id, sampleId: flagged[2]!.id });
      expect(detail.endpoint).toEqual({ method: 'post', path: '/shipments/{shipment_id}/labels', summary: 'Create a shipping label', operationId: 'createLabel' });
      expect(detail.sample.findings.map((f) => f.message)).toEqual(['body argument `size` = "letter" must be one of "4x6", "A6" (POST /shipments/{shipment_id}/labels)']);
      expect(detail.canUndo).toBe(false);
    });

    it('fixes a sample, re-checks it, records the revision and undoes it', async () => {
      const [dataset] = await client.listDatasets({});
      const [sample] = await client.listSamples({ datasetId: dataset!.id, filter: { text: 'letter size' } });
      const fixed = await client.editSample({
        datasetId: dataset!.id,
        sampleId: sample!.id,
        config: { ...sample!.config, data: { format: 'pdf', size: '4x6' } },
        reason: 'letter is not a label size of the spec',
      });
      expect(fixed.sample).toMatchObject({ reviewState: 'fixed', checkStatus: 'ok', findings: [] });
      expect(fixed.revisions.at(-1)).toMatchObject({ reason: 'letter is not a label size of the spec', undone: false });
      expect(fixed.canUndo).toBe(true);
      const undone = await client.undoEdit({ datasetId: dataset!.id, sampleId: sample!.id });
      expect(undone.sample).toMatchObject({ reviewState: 'unreviewed', checkStatus: 'flagged', config: sample!.config });
      expect(undone.revisions.at(-1)?.undone).toBe(true);
      await expect(client.undoEdit({ datasetId: dataset!.id, sampleId: sample!.id })).rejects.toMatchObject({ code: 'conflict', message: `sample ${sample!.id} has no edit to undo` });
    });

    it('exports what it stores', async () => {
      const [dataset] = await client.listDatasets({});
      const { files } = await client.exportDataset({ datasetId: dataset!.id, format: 'flat' });
      const exported = JSON.parse(files['demo.json'] ?? '[]') as { task: string }[];
      const original = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as { task: string }[];
      expect(exported.map((s) => s.task)).toEqual(original.map((s) => s.task));
    });

    it('answers bad input with a code and a one-line message, and stores nothing', async () => {
      const before = workbench.store.counts();
      const bad = { filename: 'harbor.yaml', content: 'openapi: 3.0.0\npaths: {a: [\n' };
      await expect(client.importDataset({ dataset: demo.dataset, specs: [bad] })).rejects.toMatchObject({ code: 'bad_input', message: expect.stringMatching(/^harbor\.yaml: malformed YAML at line \d+, column \d+/) });
      await expect(client.getSample({ datasetId: 999, sampleId: 'x' })).rejects.toMatchObject({ code: 'not_found', message: 'dataset 999 does not exist' });
      await expect(client.listSamples({ datasetId: 'one' } as unknown as { datasetId: number })).rejects.toMatchObject({ code: 'bad_input' });
      expect(workbench.store.counts()).toEqual(before);
    });

    it("answers the command line's reports and file tools: oracle, score, run report, recall, constraints, spec diff", async () => {
      const [dataset] = await client.listDatasets({});
      const { files } = await client.oraclePrograms({ dataset: demo.dataset, setup: 'full' });
      expect(Object.keys(files)).toHaveLength(32);
      const codes = Object.entries(files).map(([name, code]) => ({ index: Number(name.slice(0, 4)), code }));
      const scored = await client.scoreCodes({ dataset: demo.dataset, specs: demo.specs, codes, save: { dataset: 'demo.json', codes: 'oracle' } });
      expect(scored.headline.columns[0]).toMatchObject({ name: 'all', values: { samples_total: 32 } });
      expect(Object.keys(scored.report.samples)).toHaveLength(32);
      const report = await client.getRunReport({ runId: scored.run! });
      expect(report.run).toMatchObject({ id: scored.run, kind: 'imported codes', outputs: 32 });
      expect(report.report.statistics).toEqual(scored.report.statistics);
      expect(report.report.intervals).toEqual(scored.report.intervals);
      await expect(client.getRunReport({ runId: 999 })).rejects.toMatchObject({ code: 'not_found', message: 'run 999 does not exist' });
      expect((await client.measureRecall({ source: { datasetId: dataset!.id } })).samples).toHaveLength(32);
      const checked = await client.checkConstraints({ spec: demo.specs[0]!, programs: [files['0000.js']!, "const axios = require('axios');\naxios.nope("] });
      expect(checked.map((c) => c.accepted)).toEqual([true, false]);
      expect((await client.exportGbnf({ spec: demo.specs[0]! })).grammar).toMatch(/^#/);
      expect(await client.diffSpecs({ before: demo.specs[0]!, after: demo.specs[0]! })).toEqual({ added: [], removed: [], changed: [] });
    });
  });
}

contractSuite('the in-process client', async () => {
  const workbench = openWorkbench({ db: path.join(tempDir(), 'w.db'), author: 'tester' });
  const events: WorkbenchEvent[] = [];
  workbench.service.onEvent((e) => events.push(e));
  return { client: localClient(workbench.service), workbench, events, close: async () => workbench.store.close() };
});

contractSuite('HTTP (wapii serve)', async () => {
  const workbench = openWorkbench({ db: path.join(tempDir(), 'w.db'), author: 'tester' });
  const events: WorkbenchEvent[] = [];
  const transport: HttpTransport = await startHttpTransport({
    call: (method, input) => callMethod(workbench.service, method, input),
    subscribe: (listener) => workbench.service.onEvent(listener),
    staticDir: tempDir(),
  });
  // Events as a browser receives them: over the SSE stream.
  const controller = new AbortController();
  const stream = await fetch(`${transport.url}/api/events`, { headers: { Authorization: `Bearer ${transport.token}` }, signal: controller.signal });
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of stream.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith('data: ')) events.push(JSON.parse(frame.slice(6)) as WorkbenchEvent);
        }
      }
    } catch {
      // aborted at the end of the suite
    }
  })();
  const client = createFetchClient({ baseUrl: transport.url, token: transport.token });
  // Events arrive asynchronously over the stream; give them a moment before assertions read them.
  const settled = new Proxy(client, {
    get: (target, prop) => async (input: unknown) => {
      const value = await (target[prop as keyof WorkbenchApi] as (i: unknown) => Promise<unknown>)(input);
      await new Promise((r) => setTimeout(r, 20));
      return value;
    },
  });
  return {
    client: settled,
    workbench,
    events,
    close: async () => {
      controller.abort();
      await transport.close();
      workbench.store.close();
    },
  };
});

describe('HTTP transport security', () => {
  let transport: HttpTransport;
  let workbench: Workbench;
  beforeAll(async () => {
    workbench = openWorkbench({ db: path.join(tempDir(), 'w.db') });
    const staticDir = tempDir();
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<h1>ui</h1>');
    transport = await startHttpTransport({ call: (m, i) => callMethod(workbench.service, m, i), subscribe: (l) => workbench.service.onEvent(l), staticDir });
  });
  afterAll(async () => {
    await transport.close();
    workbench.store.close();
  });

  it('refuses requests without the token, with a wrong token, or for another Host', async () => {
    expect((await fetch(`${transport.url}/api/listDatasets`, { method: 'POST', body: '{}' })).status).toBe(401);
    expect((await fetch(`${transport.url}/`, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    expect((await fetch(`${transport.url}/?token=nope`)).status).toBe(401);
    // fetch cannot forge Host; a DNS-rebinding page would send its own name there.
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${transport.url}/`, { headers: { Authorization: `Bearer ${transport.token}`, Host: 'evil.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(rebound).toBe(403);
    await expect(createFetchClient({ baseUrl: transport.url, token: 'nope' }).listDatasets({})).rejects.toBeInstanceOf(ApiError);
  });

  it('trades the token in the open URL for a cookie, then serves the UI', async () => {
    const first = await fetch(transport.openUrl, { redirect: 'manual' });
    expect(first.status).toBe(303);
    const cookie = first.headers.get('set-cookie')?.split(';')[0] ?? '';
    expect(cookie).toMatch(/^wapii_token_\d+=/);
    const page = await fetch(`${transport.url}/`, { headers: { Cookie: cookie } });
    expect(await page.text()).toBe('<h1>ui</h1>');
    const traversal = await fetch(`${transport.url}/..%2f..%2fetc%2fpasswd`, { headers: { Cookie: cookie } });
    expect(await traversal.text()).toBe('<h1>ui</h1>');
  });
});
