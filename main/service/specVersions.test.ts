import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../api/contract.js';
import { DEMO_SPECS, REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { localClient, openWorkbench, readDemo, type Workbench } from './index.js';
import { overHttp } from '../../test/support/overHttp.js';

const V2 = path.join(DEMO_SPECS, 'versions', 'harbor-v2.yaml');
const v2 = { filename: 'harbor-v2.yaml', content: fs.readFileSync(V2, 'utf8') };

async function open(): Promise<Workbench> {
  const dir = tempDir();
  const workbench = openWorkbench({ db: path.join(dir, 'w.db'), evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
  const seeded = await workbench.service.seedIfEmpty(readDemo(REPO_ROOT));
  if (!seeded.ok) throw new Error(seeded.error.message);
  return workbench;
}

function specVersionSuite(name: string, setup: () => Promise<{ client: WorkbenchApi; workbench: Workbench; close: () => Promise<void> }>): void {
  describe(`diffSpecVersion over ${name}`, () => {
    let s: Awaited<ReturnType<typeof setup>>;
    let datasetId: number;
    beforeAll(async () => {
      s = await setup();
      datasetId = (await s.client.listDatasets({}))[0]!.id;
    });
    afterAll(() => s.close());

    it('lists exactly the endpoints the demo spec v2 adds, removes and changes, the samples that break, and those on novel endpoints', async () => {
      const before = s.workbench.store.counts();
      const diff = await s.client.diffSpecVersion({ datasetId, api: 'harbor', spec: v2 });
      // The same figures as `wapii spec-diff specs/harbor.yaml specs/versions/harbor-v2.yaml` (main/cli/specVersions.test.ts).
      expect([diff.added.length, diff.removed.length, diff.changed.length]).toEqual([3, 2, 5]);
      expect(diff.removed).toContain('DELETE /webhooks/{webhook_id}');
      expect(diff.changed.find((c) => c.endpoint === 'PATCH /warehouses/{warehouse_id}')?.changes.map((c) => c.text)).toContain('body capacity_pallets: type integer → string');
      expect(diff.samples).toBe(32);
      expect(diff.breaks.length).toBeGreaterThan(0);
      for (const b of diff.breaks) expect(b.findings.length).toBeGreaterThan(0);
      // The novel samples are exactly those whose endpoint is added or changed.
      const novelEndpoints = new Set([...diff.added, ...diff.changed.map((c) => c.endpoint)]);
      const rows = (await s.client.listRuns({}))[0]!;
      const outputs = (await s.client.listRunSamples({ runId: rows.id })).rows;
      const onNovel = outputs.filter((o) => novelEndpoints.has(o.endpoint)).map((o) => o.index);
      expect(diff.novel.map((n) => n.index).sort((a, b) => a - b)).toEqual(onNovel);
      expect(onNovel.length).toBeGreaterThan(0);
      expect(s.workbench.store.counts()).toEqual(before);
    });

    it('refuses an API the dataset lacks and a spec that does not parse, in one line', async () => {
      await expect(s.client.diffSpecVersion({ datasetId, api: 'slack', spec: v2 })).rejects.toMatchObject({ code: 'bad_input', message: 'dataset "demo" has no API `slack` (it has: harbor)' });
      await expect(s.client.diffSpecVersion({ datasetId, api: 'harbor', spec: { filename: 'broken.yaml', content: 'openapi: [' } })).rejects.toMatchObject({ code: 'bad_input' });
    });
  });
}

specVersionSuite('the in-process client', async () => {
  const workbench = await open();
  return { client: localClient(workbench.service), workbench, close: () => workbench.shutdown() };
});

specVersionSuite('HTTP (wapii serve)', async () => {
  const workbench = await open();
  return { ...(await overHttp(workbench)), workbench };
});
