import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checklistNote, parseChecklist } from '../api/checklist.js';
import type { RequestConfig } from '../api/schemas.js';
import { checkRequest } from '../dataset/index.js';
import { loadSpec, resolveEndpoint } from '../openapi/index.js';
import { unwrap } from '../api/result.js';
import { DEMO_SPECS, hasWapiiBench, WAPIIBENCH_SPECS } from '../../test/support/paths.js';
import { displaySchema, endpointExcerpt, nearDuplicates, quickFixes } from './review.js';

const spec = unwrap(await loadSpec(fs.readFileSync(path.join(DEMO_SPECS, 'harbor.yaml'), 'utf8'), 'harbor.yaml'));
const RATES: RequestConfig = {
  url: 'https://api.harbor.example/v2/carriers/ups/rates',
  method: 'get',
  headers: { Authorization: 'Bearer <token>' },
  params: { origin_country: 'US', destination_country: 'CA', weight_kg: '3.2', colour: 'blue' },
};
const fixesOf = (config: RequestConfig): ReturnType<typeof quickFixes> => {
  const endpoint = resolveEndpoint(spec, config.url, config.method).endpoint!;
  return quickFixes(spec, endpoint, config, checkRequest(spec, config));
};

describe.runIf(hasWapiiBench)('one-click fixes on nested body values', () => {
  it("reaches a string inside a body object the schema types as a number: Asana's data.contribution_weight \"0\" → 0", async () => {
    const asana = unwrap(await loadSpec(fs.readFileSync(path.join(WAPIIBENCH_SPECS, 'asana.yaml'), 'utf8'), 'asana.yaml'));
    const config: RequestConfig = {
      url: 'https://app.asana.com/api/1.0/goal_relationships/12345',
      method: 'put',
      headers: { Accept: 'application/json, text/plain, */*', 'Content-Type': 'application/json', Authorization: 'Bearer <token>' },
      data: { data: { contribution_weight: '0' } },
    };
    const endpoint = resolveEndpoint(asana, config.url, config.method).endpoint!;
    const findings = checkRequest(asana, config);
    expect(findings).toMatchObject([{ rule: 'value', location: 'data', key: 'data' }]);
    const [fix] = quickFixes(asana, endpoint, config, findings);
    expect(fix).toMatchObject({ kind: 'coerce', label: 'data.data.contribution_weight: "0" → 0', config: { ...config, data: { data: { contribution_weight: 0 } } } });
    expect(checkRequest(asana, fix!.config)).toEqual([]);
  });
});

describe('review aids', () => {
  it('the excerpt lists parameters with types, required marks, enums and the body schema', () => {
    const rates = endpointExcerpt(spec, resolveEndpoint(spec, RATES.url, 'get').endpoint!);
    expect(rates.arguments.find((a) => a.name === 'weight_kg')).toMatchObject({ in: 'query', required: true, type: 'number' });
    expect(rates.arguments.find((a) => a.name === 'service_level')?.enum?.length).toBeGreaterThan(1);
    expect(rates.body).toBeUndefined();
    expect(rates.auth).toEqual(['Authorization: Bearer <token>', 'header X-API-Key']);
    const hook = endpointExcerpt(spec, resolveEndpoint(spec, 'https://api.harbor.example/v2/webhooks', 'post').endpoint!);
    expect(hook.arguments.filter((a) => a.in === 'body').map((a) => [a.name, a.required, a.type])).toEqual(
      expect.arrayContaining([
        ['url', true, 'string (uri)'],
        ['events', true, 'array<string>'],
      ]),
    );
    expect(hook.body).toMatchObject({ mediaType: 'application/json', required: true, schema: { type: 'object', required: ['url', 'events'] } });
  });

  it('a recursive schema is cut, not walked forever', () => {
    const node: Record<string, unknown> = { type: 'object' };
    node['properties'] = { child: node };
    expect(displaySchema(node)).toEqual({ type: 'object', properties: { child: '…' } });
  });

  it('offers the certain fixes: "0" → 0 for a number, drop an undefined argument, add a missing required key', () => {
    const stock: RequestConfig = {
      url: 'https://api.harbor.example/v2/warehouses/wh_1/inventory/SKU-1',
      method: 'put',
      headers: { Authorization: 'Bearer <token>', 'Content-Type': 'application/json' },
      data: { quantity: '0', reserved: 2 },
    };
    const [coerce] = fixesOf(stock);
    expect(coerce).toMatchObject({ kind: 'coerce', label: 'data.quantity: "0" → 0', config: { data: { quantity: 0, reserved: 2 } } });

    const fixes = fixesOf(RATES);
    // A query string "3.2" is sent as 3.2 whichever it is: no finding, no fix; `colour` is not in the spec.
    expect(fixes).toEqual([expect.objectContaining({ kind: 'drop', label: 'drop params.colour (not in the spec)' })]);
    expect(Object.keys(fixes[0]!.config.params ?? {})).toEqual(['origin_country', 'destination_country', 'weight_kg']);
    // Each fix removes the finding it names and adds none.
    for (const [config, fix] of [
      [stock, coerce!],
      [RATES, fixes[0]!],
    ] as const)
      expect(checkRequest(spec, fix.config).length).toBe(checkRequest(spec, config).length - 1);

    const missing = fixesOf({ ...RATES, params: { origin_country: 'US', destination_country: 'CA' } });
    expect(missing).toEqual([expect.objectContaining({ kind: 'add', label: 'add required params.weight_kg' })]);
    expect(missing[0]!.config.params).toMatchObject({ weight_kg: '' });
    // A string that is not a number is left to the reviewer.
    expect(fixesOf({ ...stock, data: { quantity: 'many' } })).toEqual([]);
  });

  it('flags near-duplicate tasks of the same endpoint by token Jaccard', () => {
    const dups = nearDuplicates({ id: 'a', task: 'Quote rates of carrier ups for a 3 kg parcel from US to Canada.' }, [
      { id: 'b', position: 2, task: 'Quote the rates of carrier ups for a 3 kg parcel from the US to Canada.' },
      { id: 'c', position: 3, task: 'Which carriers ship express to Germany?' },
      { id: 'a', position: 1, task: 'Quote rates of carrier ups for a 3 kg parcel from US to Canada.' },
    ]);
    expect(dups.map((d) => d.sampleId)).toEqual(['b']);
    expect(dups[0]!.similarity).toBeGreaterThanOrEqual(0.6);
  });

  it('the checklist round-trips through a revision reason', () => {
    const checklist = { unambiguous: true, solves: false, reflected: true };
    const reason = `marked fixed ${checklistNote(checklist)}`;
    expect(reason).toBe('marked fixed [checklist: task unambiguous and solvable ✓; config solves it ✗; arguments reflected both ways ✓]');
    expect(parseChecklist(reason)).toEqual(checklist);
    expect(parseChecklist('marked fixed')).toBeUndefined();
  });
});

describe('review through the contract', () => {
  it('getReviewAid gives the excerpt; a decision with the checklist keeps it in the revision', async () => {
    const { localClient, openWorkbench, readDemo } = await import('./index.js');
    const { tempDir } = await import('../../test/support/paths.js');
    using wb = openWorkbench({ db: path.join(tempDir('wapii-review-'), 'wapii.db'), author: 'tester' });
    const client = localClient(wb.service);
    const { id: datasetId } = await client.importDataset({ name: 'demo', ...readDemo(path.dirname(DEMO_SPECS)) });
    const first = (await client.listSamples({ datasetId, filter: {} })).find((s) => s.config.params);
    const aid = await client.getReviewAid({ datasetId, sampleId: first!.id });
    expect(aid.excerpt?.path).toBeDefined();
    expect(aid.excerpt?.arguments.length).toBeGreaterThan(0);
    const checklist = { unambiguous: true, solves: true, reflected: false };
    const detail = await client.editSample({ datasetId, sampleId: first!.id, reviewState: 'accepted', reason: 'accepted', checklist });
    expect(parseChecklist(detail.revisions.at(-1)!.reason)).toEqual(checklist);
  });
});
