import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DATASET, DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { cli } from '../../test/support/cli.js';

const V2 = path.join(DEMO_SPECS, 'versions', 'harbor-v2.yaml');
const BASE = 'https://api.harbor.example/v2';
const HEADERS = { Accept: 'application/json, text/plain, */*', Authorization: 'Bearer <token>' };

describe('spec versions: re-check a dataset, derive the samples on novel endpoints', () => {
  let dir: string;
  let dataset: string;
  beforeAll(() => {
    dir = tempDir('wapii-versions-');
    // The demo's 32 samples (written for v1), plus two written for v2: one on an added endpoint (32), one on an unchanged one (33).
    const demo = JSON.parse(fs.readFileSync(DEMO_DATASET, 'utf8')) as unknown[];
    demo.push(
      { api: 'harbor', task: 'Get carrier ups.', config: { url: `${BASE}/carriers/ups`, method: 'get', headers: HEADERS } },
      { api: 'harbor', task: 'Get report rep_9.', config: { url: `${BASE}/reports/rep_9`, method: 'get', headers: HEADERS } },
    );
    dataset = path.join(dir, 'dataset.json');
    fs.writeFileSync(dataset, JSON.stringify(demo));
  });

  it('spec-diff prints the changes, one line each', async () => {
    const { code, stdout } = await cli('spec-diff', path.join(DEMO_SPECS, 'harbor.yaml'), V2);
    expect(code).toBe(0);
    expect(stdout).toContain('- DELETE /webhooks/{webhook_id}\n');
    expect(stdout).toContain('~ PATCH /warehouses/{warehouse_id}\n    body capacity_pallets: type integer → string\n');
    expect(stdout.endsWith('3 endpoints added, 2 removed, 5 changed\n')).toBe(true);
  });

  it('spec-recheck names the samples that break under v2 and why, and the one it fixes', async () => {
    const { code, stdout } = await cli('spec-recheck', '--dataset', dataset, '--specs', DEMO_SPECS, '--spec', V2, '--json');
    expect(code).toBe(0);
    const rechecked = JSON.parse(stdout) as { index: number; endpoint: string | null; broken: { rule: string }[]; fixed: { rule: string }[] }[];
    expect(rechecked.map((r) => [r.index, r.endpoint, r.broken.map((f) => f.rule), r.fixed.map((f) => f.rule)])).toEqual([
      [2, 'GET /warehouses', ['argument'], []],
      [6, 'PATCH /warehouses/{warehouse_id}', ['value'], []],
      [13, 'POST /shipments', ['required'], []],
      [14, 'POST /shipments', ['required'], []],
      [19, 'GET /shipments/{shipment_id}/events', ['argument'], []],
      [21, null, ['path'], []],
      [25, null, ['method'], []],
      [30, 'POST /shipments/{shipment_id}/labels', [], ['value']],
      [32, 'GET /carriers/{carrier_code}', [], ['path']],
    ]);
  });

  it('spec-derive writes exactly the samples on added or changed endpoints, with provenance', async () => {
    const out = path.join(dir, 'novel.json');
    const { code, stdout } = await cli('spec-derive', '--dataset', dataset, '--specs', DEMO_SPECS, '--spec', V2, '--out', out, '--json');
    expect(code).toBe(0);
    const provenance = JSON.parse(stdout) as { source: { samples: number[] }; specs: { after: { version: string } } };
    expect(provenance.source.samples).toEqual([1, 2, 5, 6, 13, 14, 15, 19, 20, 30, 32]);
    expect(provenance.specs.after.version).toBe('Harbor Logistics API 3.0.0');
    const derived = JSON.parse(fs.readFileSync(out, 'utf8')) as { task: string }[];
    const source = JSON.parse(fs.readFileSync(dataset, 'utf8')) as { task: string }[];
    expect(derived.map((s) => s.task)).toEqual(provenance.source.samples.map((i) => source[i]!.task));
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'novel.provenance.json'), 'utf8'))).toEqual(provenance);
    // The derived dataset imports and runs like any other.
    const imported = await cli('--db', path.join(dir, 'w.db'), 'import', out, '--specs', DEMO_SPECS, '--json');
    expect(imported.code, imported.stderr).toBe(0);
    expect((JSON.parse(imported.stdout) as { sampleCount: number }).sampleCount).toBe(11);
  });

  it('asks for the spec folder of a dataset file, in one line', async () => {
    const { code, stderr } = await cli('spec-recheck', '--dataset', dataset, '--spec', V2);
    expect(code).toBe(1);
    expect(stderr).toBe(`wapii: --dataset ${dataset} is a file: give its spec folder with --specs <dir>\n`);
  });
});
