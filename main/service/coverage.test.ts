import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SPECS, tempDir } from '../../test/support/paths.js';
import { demoSubset, UNCOVERED_BY_SUBSET } from '../../test/support/demoSubset.js';
import { runCli } from '../cli/program.js';
import { localClient, openWorkbench, readDemo } from './index.js';

const demo = readDemo(path.dirname(DEMO_SPECS));

describe('coverage', () => {
  const db = path.join(tempDir(), 'wapii.db');
  let datasetId: number;
  beforeAll(async () => {
    using wb = openWorkbench({ db });
    datasetId = (await localClient(wb.service).importDataset({ name: 'subset', dataset: demoSubset(), specs: demo.specs })).id;
  });

  it('lists every endpoint of the spec with its number of samples, and which have none', async () => {
    using wb = openWorkbench({ db });
    const coverage = await localClient(wb.service).getCoverage({ datasetId });
    const [harbor] = coverage.apis;
    expect(harbor).toMatchObject({ api: 'harbor', specTitle: 'Harbor Logistics API', covered: 15, total: 22, unmatched: 0 });
    expect(harbor!.endpoints.filter((e) => e.samples === 0).map((e) => e.key)).toEqual(UNCOVERED_BY_SUBSET);
    expect(harbor!.endpoints.find((e) => e.key === 'POST /shipments')).toMatchObject({ samples: 3, summary: 'Create a shipment', operationId: expect.any(String) });
    expect(harbor!.endpoints.reduce((n, e) => n + e.samples, 0)).toBe(21);
    await expect(localClient(wb.service).getCoverage({ datasetId, api: 'slack' })).rejects.toThrow(/has no API "slack" \(have: harbor\)/);
  });

  it('filters samples by endpoint, whatever the case of the method', async () => {
    using wb = openWorkbench({ db });
    const client = localClient(wb.service);
    const shipments = await client.listSamples({ datasetId, filter: { endpoint: 'post /shipments' } });
    expect(shipments.map((s) => s.position)).toEqual([13, 14, 15]);
    expect(await client.listSamples({ datasetId, filter: { endpoint: 'GET /webhooks' } })).toEqual([]);
  });

  it('wapii coverage prints the table and the uncovered endpoints, or JSON', async () => {
    let stdout = '';
    const io = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stdout += t) };
    expect(await runCli(['--db', db, 'coverage', 'subset'], io)).toBe(0);
    expect(stdout).toContain('harbor (Harbor Logistics API): 15 of 22 endpoints covered');
    expect(stdout).toContain(`uncovered: ${UNCOVERED_BY_SUBSET.join(', ')}`);
    stdout = '';
    expect(await runCli(['--db', db, 'coverage', String(datasetId), '--json'], io)).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ datasetId, apis: [{ api: 'harbor', covered: 15, total: 22 }] });
    stdout = '';
    expect(await runCli(['--db', db, 'coverage', 'nope'], io)).toBe(1);
    expect(stdout).toMatch(/^wapii: no dataset named or numbered "nope" \(have: 1 "subset"\)\n$/);
  });
});
