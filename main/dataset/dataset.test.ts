import fs from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RequestConfig } from '../api/schemas.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { DEMO_DATASET, DEMO_SPECS } from '../../test/support/paths.js';
import { checkRequest, checkSample, exportFlat, exportPerApi, filterSamples, parseDataset } from './index.js';

let spec: ApiSpec;
beforeAll(async () => {
  const result = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!result.ok) throw new Error(result.error.message);
  spec = result.value;
});

const BASE = 'https://api.harbor.example/v2';
const messages = (config: RequestConfig): string[] => checkRequest(spec, config).map((f) => f.message);

describe('checkRequest', () => {
  it('accepts a correct request', () => {
    expect(messages({ url: `${BASE}/shipments/s1/labels`, method: 'post', headers: { Accept: 'application/json', Authorization: 'Bearer t', 'Content-Type': 'application/json' }, data: { format: 'pdf' } })).toEqual([]);
  });

  it('flags an URL outside the servers, an unknown path and an undefined method', () => {
    expect(messages({ url: 'https://evil.example/v2/me', method: 'get' })).toEqual(['URL https://evil.example/v2/me does not start with a server of the spec (https://api.harbor.example/v2)']);
    expect(messages({ url: `${BASE}/parcels`, method: 'get' })).toEqual(['URL path /parcels matches no endpoint of the spec']);
    expect(messages({ url: `${BASE}/reports/r1`, method: 'delete' })).toEqual(['method DELETE is not defined for /reports/{report_id} (defined: GET)']);
  });

  it('flags arguments not permitted at their location', () => {
    expect(messages({ url: `${BASE}/webhooks`, method: 'get', params: { limit: 5 }, headers: { 'X-Trace': '1' } })).toEqual([
      'header argument `X-Trace` is not defined for GET /webhooks',
      'query argument `limit` is not defined for GET /webhooks',
    ]);
    expect(messages({ url: `${BASE}/me`, method: 'get', headers: { 'Content-Type': 'application/json' } })).toEqual(['header argument `Content-Type` is not defined for GET /me']);
  });

  it('flags missing required parameters and body properties', () => {
    expect(messages({ url: `${BASE}/carriers/ups/rates`, method: 'get', params: { origin_country: 'US', destination_country: 'CA' } })).toEqual([
      'required query parameter `weight_kg` of GET /carriers/{carrier_code}/rates is missing',
    ]);
    expect(messages({ url: `${BASE}/reports`, method: 'post', data: { type: 'shipments' } })).toEqual(['required body property `period` of POST /reports is missing']);
    expect(messages({ url: `${BASE}/reports`, method: 'post' })).toEqual(['POST /reports requires a request body, and the sample sends none']);
  });

  it('validates values against their schemas, nested ones by their path', () => {
    expect(messages({ url: `${BASE}/shipments`, method: 'get', params: { limit: '25', status: 'lost' } })).toEqual([
      'query argument `limit` = "25" must be of type integer (GET /shipments)',
      'query argument `status` = "lost" must be one of "created", "in_transit", "delivered", "returned", "cancelled" (GET /shipments)',
    ]);
    expect(
      messages({
        url: `${BASE}/shipments`,
        method: 'post',
        data: { origin_warehouse_id: 'w', destination: { name: 'n', street: 's', city: 'c', country: 'Spain' }, parcels: [{ weight_kg: 1 }] },
      }),
    ).toEqual(['body argument `destination.country` = "Spain" must match pattern "^[A-Z]{2}$" (POST /shipments)']);
  });

  it('reads path values as the type their schema declares, and flags read-only and query-in-URL', () => {
    expect(messages({ url: `${BASE}/warehouses/w1`, method: 'patch', data: { id: 'x' } })).toEqual(['body argument `id` is read-only in PATCH /warehouses/{warehouse_id} and cannot be sent']);
    expect(checkRequest(spec, { url: `${BASE}/me?x=1`, method: 'get' }).map((f) => f.rule)).toEqual(['query-in-url']);
  });

  it('adds what the source dataset recorded', () => {
    const findings = checkSample(spec, { api: 'harbor', config: { url: `${BASE}/me`, method: 'get' }, source: { checks: "Argument 'x' is not defined.\n" } });
    expect(findings).toEqual([{ rule: 'recorded', message: "the source dataset's own check reported: Argument 'x' is not defined." }]);
  });

  it('flags exactly the four faulty samples of the demo dataset', () => {
    const parsed = parseDataset(fs.readFileSync(DEMO_DATASET, 'utf8'), 'demo.json');
    if (!parsed.ok) throw new Error(parsed.error.message);
    const flagged = parsed.value.map((s, i) => [i, checkSample(spec, s).length] as const).filter(([, n]) => n > 0).map(([i]) => i);
    expect(flagged).toEqual([28, 29, 30, 31]);
  });
});

describe('WAPIIBench formats', () => {
  const flat = JSON.stringify([
    { api: 'a', index: 0, task: 't0', config: { url: 'https://a/x', method: 'get' }, checks: 'OK', vetted: true },
    { api: 'b', index: 0, task: 't1', config: { url: 'https://b/y', method: 'post', data: { k: 1 } } },
    { api: 'a', index: 1, task: 't0', config: { url: 'https://a/x', method: 'get' } },
  ]);

  it('reads the flat list with stable ids, distinct for identical samples', () => {
    const first = parseDataset(flat, 'all.json');
    const again = parseDataset(flat, 'all.json');
    if (!first.ok || !again.ok) throw new Error('parse failed');
    expect(first.value.map((s) => s.id)).toEqual(again.value.map((s) => s.id));
    expect(new Set(first.value.map((s) => s.id)).size).toBe(3);
    expect(first.value[0]?.source).toEqual({ index: 0, checks: 'OK', vetted: true });
  });

  it('reads a per-API file, the API named by the file', () => {
    const parsed = parseDataset(JSON.stringify({ samples: [{ task: 't', config: { url: 'https://s/x', method: 'get' } }] }), 'dir/slack.json');
    expect(parsed.ok && parsed.value.map((s) => s.api)).toEqual(['slack']);
  });

  it('exports both formats and round-trips', () => {
    const parsed = parseDataset(flat, 'all.json');
    if (!parsed.ok) throw new Error('parse failed');
    const again = parseDataset(exportFlat(parsed.value), 'x.json');
    expect(again.ok && again.value.map((s) => [s.api, s.task, s.config])).toEqual(parsed.value.map((s) => [s.api, s.task, s.config]));
    const perApi = exportPerApi(parsed.value);
    expect(Object.keys(perApi)).toEqual(['a.json', 'b.json']);
    // Each sample with its index (issue 26 item 3), read back as the index, not as a field.
    expect(JSON.parse(perApi['a.json'] ?? '')).toEqual({ samples: [{ index: 0, task: 't0', config: { url: 'https://a/x', method: 'get' } }, { index: 1, task: 't0', config: { url: 'https://a/x', method: 'get' } }] });
    const back = parseDataset(perApi['a.json'] ?? '', 'a.json');
    expect(back.ok && back.value.map((s) => [s.source, s.fields])).toEqual([
      [{ index: 0 }, undefined],
      [{ index: 1 }, undefined],
    ]);
  });

  it('keeps the indices of a subset, and gives a sample without one the next free index of its API', () => {
    const parsed = parseDataset(flat, 'all.json');
    if (!parsed.ok) throw new Error('parse failed');
    const added = { api: 'a', task: 'new', config: { url: 'https://a/z', method: 'get' }, source: {} };
    const exported = JSON.parse(exportFlat([parsed.value[2]!, added])) as { api: string; index: number }[];
    expect(exported.map((e) => [e.api, e.index])).toEqual([
      ['a', 1],
      ['a', 2],
    ]);
  });

  it('says where a file is broken', () => {
    expect(parseDataset('[{"api": "a", "task": "t"}]', 'd.json')).toEqual({ ok: false, error: { code: 'bad_input', message: 'd.json: sample 0: `config` is required (or `steps` for a multi-step sample)' } });
    const bad = parseDataset('[\n  {"api": }\n]', 'd.json');
    expect(bad.ok ? '' : bad.error.message).toMatch(/^d\.json: invalid JSON at line 2, column \d+: /);
    expect(parseDataset('{"rows": []}', 'd.json')).toEqual({ ok: false, error: { code: 'bad_input', message: 'd.json: not a WAPIIBench dataset (expected a list of samples or {"samples": [...]})' } });
  });
});

describe('filterSamples', () => {
  const samples = [
    { api: 'slack', task: 'Post a message', config: { url: 'https://s/chat.postMessage', method: 'post' }, reviewState: 'accepted', checkStatus: 'ok' },
    { api: 'asana', task: 'List tasks', config: { url: 'https://a/tasks', method: 'get', params: { project: 'Apollo' } }, reviewState: 'unreviewed', checkStatus: 'flagged' },
  ] as const;
  it('combines criteria and searches task and request text', () => {
    expect(filterSamples(samples, { api: 'slack' }).map((s) => s.api)).toEqual(['slack']);
    expect(filterSamples(samples, { method: 'GET', checkStatus: 'flagged' }).map((s) => s.api)).toEqual(['asana']);
    expect(filterSamples(samples, { text: 'apollo' }).map((s) => s.api)).toEqual(['asana']);
    expect(filterSamples(samples, { reviewState: 'rejected' })).toEqual([]);
  });
});

describe('parseDataset refuses what JSON.parse would alter or a later stage crash on, with one line', () => {
  const sample = (config: string): string => `[{"api": "a", "task": "t",\n  "config": ${config}}]`;
  const message = (text: string): string => {
    const result = parseDataset(text, 'd.json');
    return result.ok ? 'parsed' : result.error.message;
  };

  it('a duplicate key, naming it and its line', () => {
    expect(message(sample('{"url": "https://x/a", "method": "get",\n  "url": "https://x/b"}'))).toBe(
      'd.json: duplicate key "url" at line 3, column 3 (first at line 2); keys must be unique (JSON.parse would silently keep only the last)',
    );
    expect(message(sample('{"url": "https://x/a", "method": "get", "headers": {"A": "1"}, "params": {"A": "1"}}'))).toBe('parsed');
  });

  it('a `__proto__` key, which zod and JavaScript objects would drop', () => {
    expect(message(sample('{"url": "https://x/a", "method": "get", "headers": {"__proto__": "x"}}'))).toBe(
      'd.json: the key "__proto__" at line 2, column 65 is not supported (JavaScript objects cannot keep it as data); rename or remove it',
    );
  });

  it('nesting 100,000 levels deep', () => {
    const n = 100_000;
    expect(message(sample(`{"url": "https://x/a", "method": "get", "data": ${'{"a": '.repeat(n)}1${'}'.repeat(n)}}`))).toBe(
      'd.json: nesting deeper than 128 levels at /0/config/data/a/a/a/…',
    );
    expect(message(`[${'['.repeat(n)}${']'.repeat(n)}]`)).toBe('d.json: nesting deeper than 128 levels at /0/0/0/0/0/0/…');
  });
});
