import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapturedRequest, JsonValue, RequestConfig } from '../api/schemas.js';
import { Sandbox } from '../execution/index.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { setupFor } from '../prompt/index.js';
import { evaluateCode } from '../runner/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { compareRequest, computeStatistics, expectedOnly, type CompatMode, type Verdict } from './index.js';

const BASE = 'https://api.harbor.example/v2';
let spec: ApiSpec;
const sandbox = new Sandbox({ timeoutMs: 300 });
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});
afterAll(() => sandbox.dispose());

const STARTER = "// task\nconst axios = require('axios');\n\n";
const score = async (expected: RequestConfig, completion: string, compat: CompatMode = 'default'): Promise<Verdict> => (await evaluateCode(STARTER + completion, expected, spec, sandbox, compat)).verdict;

const listShipments: RequestConfig = { url: `${BASE}/shipments`, method: 'get', headers: { Authorization: 'Bearer <token>' }, params: { status: 'delivered', limit: 25 } };
const createLabel: RequestConfig = { url: `${BASE}/shipments/sh_1/labels`, method: 'post', headers: { Authorization: 'Bearer <token>', 'Content-Type': 'application/json' }, data: { format: 'pdf', size: 'A6' } };

describe('sample verdicts', () => {
  it('correct', async () => {
    expect(await score(listShipments, `axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer <token>' }, params: { status: 'delivered', limit: 25 } });`)).toMatchObject({
      sample_verdict: 'correct',
      url_verdict: 'correct',
      method_verdict: 'correct',
      endpoint_verdict: 'correct',
      arguments: { headers: { Authorization: { verdict: 'correct' } }, params: { status: { verdict: 'correct' }, limit: { verdict: 'correct' } } },
    });
  });

  it('wrong: an incorrect value (50 is not "50"), a missing argument, an unnecessary one', async () => {
    const v = await score(listShipments, `axios.get('${BASE}/shipments', { params: { status: 'delivered', limit: '25', cursor: 'c1' } });`);
    expect(v.sample_verdict).toBe('wrong');
    expect(v.arguments).toEqual({
      headers: { Authorization: { expected: 'Bearer <token>', actual: null, verdict: 'missing' } },
      params: {
        status: { expected: 'delivered', actual: 'delivered', verdict: 'correct' },
        limit: { expected: 25, actual: '25', verdict: 'incorrect_value' },
        cursor: { expected: null, actual: 'c1', verdict: 'unnecessary' },
      },
    });
  });

  it('illegal: an argument the endpoint does not define', async () => {
    const v = await score(listShipments, `axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer <token>' }, params: { status: 'delivered', limit: 25, sort: 'asc' } });`);
    expect(v.sample_verdict).toBe('illegal');
    expect(v.arguments.params?.['sort']).toEqual({ expected: null, actual: 'asc', verdict: 'illegal' });
  });

  it('URL wrong vs illegal, method wrong vs illegal', async () => {
    expect(await score(listShipments, `axios.get('${BASE}/carriers');`)).toMatchObject({ url_verdict: 'wrong', method_verdict: 'correct', endpoint_verdict: 'wrong', sample_verdict: 'wrong' });
    expect(await score(listShipments, `axios.get('${BASE}/parcels');`)).toMatchObject({ url_verdict: 'illegal', method_verdict: 'correct', endpoint_verdict: 'illegal', sample_verdict: 'illegal' });
    expect(await score(listShipments, `axios.post('${BASE}/shipments', {});`)).toMatchObject({ url_verdict: 'correct', method_verdict: 'wrong', endpoint_verdict: 'wrong' });
    expect(await score(listShipments, `axios.delete('${BASE}/shipments');`)).toMatchObject({ url_verdict: 'correct', method_verdict: 'illegal', endpoint_verdict: 'illegal', sample_verdict: 'illegal' });
  });

  it('path parameters are compared as arguments', async () => {
    const v = await score(createLabel, `axios.post('${BASE}/shipments/sh_2/labels', { format: 'pdf', size: 'A6' }, { headers: { Authorization: 'Bearer <token>' } });`);
    expect(v.sample_verdict).toBe('wrong');
    expect(v.arguments.path_params).toEqual({ shipment_id: { expected: 'sh_1', actual: 'sh_2', verdict: 'incorrect_value' } });
  });

  it('a query string in the URL counts as params, values as strings', async () => {
    const v = await score(listShipments, `axios.get('${BASE}/shipments?status=delivered&limit=25', { headers: { Authorization: 'Bearer <token>' } });`);
    expect(v.arguments.params).toEqual({ status: { expected: 'delivered', actual: 'delivered', verdict: 'correct' }, limit: { expected: 25, actual: '25', verdict: 'incorrect_value' } });
  });

  it('form-urlencoded and multipart bodies, nested objects', async () => {
    const report: RequestConfig = { url: `${BASE}/reports`, method: 'post', data: { type: 'shipments', period: { from: '2024-03-01', to: '2024-03-31' } } };
    expect((await score(report, `axios.post('${BASE}/reports', 'type=shipments&period%5Bfrom%5D=2024-03-01&period%5Bto%5D=2024-03-31');`)).sample_verdict).toBe('correct');
    expect((await score(report, `const FormData = require('form-data'); const f = new FormData(); f.append('type', 'shipments');\naxios.post('${BASE}/reports', f, { headers: f.getHeaders() });`)).arguments.data).toEqual({
      type: { expected: 'shipments', actual: 'shipments', verdict: 'correct' },
      period: { expected: { from: '2024-03-01', to: '2024-03-31' }, actual: null, verdict: 'missing' },
    });
    expect((await score(report, `axios.post('${BASE}/reports', { type: 'shipments', period: { from: '2024-03-01', to: '2024-04-30' } });`)).arguments.data?.['period']?.verdict).toBe('incorrect_value');
  });

  it('a sample with two calls scores the first', async () => {
    const v = await score(listShipments, `axios.get('${BASE}/carriers');\naxios.get('${BASE}/shipments', { params: { status: 'delivered', limit: 25 } });`);
    expect(v.url_verdict).toBe('wrong');
  });
});

describe('error verdicts', () => {
  it.each([
    ['no_request', 'fetch("x");'],
    ['incomplete_request', `axios.get('${BASE}/shipments'`],
    ['runtime_error', `axios.get(undefinedVariable);`],
    ['runtime_error', `axios.get('${BASE}/me') + while;`],
    ['timeout', `axios.get('${BASE}/me'//timeout`],
    ['unsatisfiable', `axios.get('${BASE}/me'//unsatisfiable`],
  ])('%s', async (error, completion) => {
    const v = await score(listShipments, completion);
    expect(v).toMatchObject({ sample_verdict: 'nonexecutable', error_verdict: error, url_verdict: null });
    // A nonexecutable sample counts as all-missing.
    expect(Object.values(v.arguments).flatMap((a) => Object.values(a ?? {})).map((r) => r.verdict)).toEqual(['missing', 'missing', 'missing']);
  });
});

describe('reference compatibility', () => {
  it('runs only the extracted call, so code before it is lost', async () => {
    const completion = `const params = { status: 'delivered', limit: 25 };\naxios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer <token>' }, params });`;
    const text = STARTER + completion;
    // In the default mode the whole program runs up to the cut.
    expect((await evaluateCode(text, listShipments, spec, sandbox, 'default')).verdict.sample_verdict).toBe('correct');
    expect((await evaluateCode(text, listShipments, spec, sandbox, 'reference')).verdict.error_verdict).toBe('runtime_error');
  });

  it('judges unexpected arguments against the expected endpoint instead of the called one', async () => {
    const completion = `axios.get('${BASE}/carriers', { params: { country: 'DE' } });`;
    expect((await score(listShipments, completion, 'default')).arguments.params?.['country']?.verdict).toBe('unnecessary');
    expect((await score(listShipments, completion, 'reference')).arguments.params?.['country']?.verdict).toBe('illegal');
  });

  it('matches header names exactly, where the default ignores case: a lowercase authorization is illegal there (its permission check is case-sensitive too)', async () => {
    const completion = `axios.get('${BASE}/shipments', { headers: { authorization: 'Bearer <token>' }, params: { status: 'delivered', limit: 25 } });`;
    expect((await score(listShipments, completion, 'default')).sample_verdict).toBe('correct');
    const reference = await score(listShipments, completion, 'reference');
    expect(reference.arguments.headers).toMatchObject({ Authorization: { verdict: 'missing' }, authorization: { verdict: 'illegal' } });
    expect(reference.sample_verdict).toBe('illegal');
  });

  it('never calls a custom paramsSerializer, as its mock did not', async () => {
    const completion = `axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer <token>' }, params: { status: 'delivered', limit: 25 }, paramsSerializer: () => { throw new Error('called'); } });`;
    expect((await score(listShipments, completion, 'default')).error_verdict).toBe('runtime_error');
    expect((await score(listShipments, completion, 'reference')).sample_verdict).toBe('correct');
  });
});

describe("issue 23: what the transport sends is what is scored", () => {
  it('a header value with CR/LF or NUL is a runtime_error, even in a header that is never counted', async () => {
    for (const header of [`'X-Trace': 'a\\r\\nb'`, `Accept: 'application/json\\u0000'`]) {
      const v = await score(listShipments, `axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer <token>', ${header} }, params: { status: 'delivered', limit: 25 } });`);
      expect(v).toMatchObject({ sample_verdict: 'nonexecutable', error_verdict: 'runtime_error' });
    }
  });

  it('the auth option is scored as the Authorization: Basic header Axios sends', async () => {
    const basic: RequestConfig = { ...listShipments, headers: { Authorization: `Basic ${Buffer.from('ops:s3cret').toString('base64')}` } };
    const v = await score(basic, `axios.get('${BASE}/shipments', { auth: { username: 'ops', password: 's3cret' }, params: { status: 'delivered', limit: 25 } });`);
    expect(v).toMatchObject({ sample_verdict: 'correct', arguments: { headers: { Authorization: { verdict: 'correct' } } } });
  });

  it('a one-element header array is compared as the value Node sends', async () => {
    expect((await score(listShipments, `axios.get('${BASE}/shipments', { headers: { Authorization: ['Bearer <token>'] }, params: { status: 'delivered', limit: 25 } });`)).sample_verdict).toBe('correct');
  });
});

describe('statistics', () => {
  it('computes the reference statistics, nonexecutable samples counting as all-missing', async () => {
    const verdicts = [
      await score(listShipments, `axios.get('${BASE}/shipments', { headers: { Authorization: 'Bearer <token>' }, params: { status: 'delivered', limit: 25 } });`),
      await score(listShipments, `axios.get('${BASE}/shipments', { params: { status: 'delivered', cursor: 'x', sort: 1 } });`),
      await score(listShipments, `fetch('x')`),
    ];
    const stats = computeStatistics(verdicts);
    expect(stats).toMatchObject({ samples_total: 3, samples_executable: 1 + 1, samples_correct: 1, samples_illegal: 1, samples_nonexecutable: 1, errors_no_request: 1 });
    expect(stats['samples_correct_wrt_total']).toBeCloseTo(1 / 3);
    expect(stats['samples_illegal_wrt_executable']).toBeCloseTo(1 / 2);
    // Second sample, params: 1 correct name (status), 2 unexpected → precision 1/3; recall 1/2 (limit missing).
    expect((stats['argument_name_mean_precision_wrt_executable'] as Record<string, number>)['params']).toBeCloseTo((1 + 1 / 3) / 2);
    expect((stats['argument_name_mean_recall_wrt_executable'] as Record<string, number>)['params']).toBeCloseTo((1 + 1 / 2) / 2);
    // Over all samples, the nonexecutable one adds a recall of 0 for its expected params.
    expect((stats['argument_name_mean_recall_wrt_total'] as Record<string, number>)['params']).toBeCloseTo((1 + 1 / 2 + 0) / 3);
    expect(stats['arguments_illegal']).toEqual({ params: 1, all: 1 });
    expect(stats['arguments_missing_total']).toEqual({ headers: 2, params: 3, all: 5 });
  });
});

describe('fetch programs (issue 25 item 5): scored the same way, by their first request', () => {
  const task = 'List delivered shipments';
  const fetchSetup = setupFor({ task, config: listShipments }, 'full', { client: 'fetch' });
  const scoreFetch = async (completion: string): Promise<Verdict> => (await evaluateCode(fetchSetup.starter + completion, listShipments, spec, sandbox, 'default', fetchSetup)).verdict;

  it('the query written into the URL meets typed params (fetch can send only text there); headers by name whatever their case', async () => {
    const v = await scoreFetch(`'${BASE}/shipments?status=delivered&limit=25', { headers: { Authorization: 'Bearer <token>' } })\n  .then((r) => r.json());`);
    expect(v).toMatchObject({ sample_verdict: 'correct', arguments: { headers: { Authorization: { verdict: 'correct', actual: 'Bearer <token>' } }, params: { limit: { verdict: 'correct', expected: 25, actual: '25' } } } });
    expect((await scoreFetch(`'${BASE}/shipments?status=delivered&limit=26', { headers: { Authorization: 'Bearer <token>' } });`)).arguments.params?.['limit']?.verdict).toBe('incorrect_value');
    expect((await scoreFetch(`'${BASE}/shipments', { method: 'POST', headers: { Authorization: 'Bearer <token>' } });`)).method_verdict).not.toBe('correct');
  });

  it('a program mixing fetch and axios is scored by its first request', async () => {
    const first = `const res = await fetch('${BASE}/shipments?status=delivered&limit=25', { headers: { Authorization: 'Bearer <token>' } });\n`;
    const then = `axios.get('${BASE}/carriers', { headers: { Authorization: 'Bearer <token>' } });`;
    const v = await evaluateCode(STARTER + first + then, listShipments, spec, sandbox);
    expect(v).toMatchObject({ verdict: { sample_verdict: 'correct' }, request: { client: 'fetch' }, execution: { requests: 2 } });
    const axiosFirst = await evaluateCode(`${STARTER}await axios.get('${BASE}/carriers');\nawait fetch('${BASE}/shipments?status=delivered&limit=25', { headers: { Authorization: 'Bearer <token>' } });`, listShipments, spec, sandbox, 'default', fetchSetup);
    expect(axiosFirst.verdict.url_verdict).toBe('wrong');
    expect(axiosFirst.request?.client).toBeUndefined();
  });
});

describe('server variables and paths of one operation (issue 36 items 15, 16)', () => {
  const load = async (yaml: string): Promise<ApiSpec> => {
    const loaded = await loadSpec(yaml, 'spec.yaml');
    if (!loaded.ok) throw new Error(loaded.error.message);
    return loaded.value;
  };
  const sent = (url: string, method: string, data?: JsonValue, params: Record<string, JsonValue> = {}): CapturedRequest => ({ url, method, headers: {}, params, ...(data !== undefined ? { data } : {}) });

  const TELEGRAM = `openapi: 3.0.3
info: { title: Telegram Bot API, version: '7.0' }
servers:
  - url: https://api.telegram.org/bot{token}
    variables: { token: { default: '123:ABC' } }
paths:
  /sendMessage:
    post:
      requestBody:
        content:
          application/json:
            schema: { type: object, required: [chat_id, text], properties: { chat_id: { type: integer }, text: { type: string } } }
      responses: { '200': { description: ok } }
`;
  const TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';
  const sendMessage: RequestConfig = { url: `https://api.telegram.org/bot${TOKEN}/sendMessage`, method: 'post', data: { chat_id: 42, text: 'hello' } };

  it("a server variable's value is an argument, compared and reported as a path parameter", async () => {
    const telegram = await load(TELEGRAM);
    const other = compareRequest(telegram, sendMessage, sent('https://api.telegram.org/botrelay_bot/sendMessage', 'post', { chat_id: 42, text: 'hello' }));
    expect(other).toMatchObject({ sample_verdict: 'wrong', url_verdict: 'correct', endpoint_verdict: 'correct' });
    expect(other.arguments.path_params).toEqual({ token: { expected: TOKEN, actual: 'relay_bot', verdict: 'incorrect_value' } });
    const same = compareRequest(telegram, sendMessage, sent(`https://api.telegram.org/bot${encodeURIComponent(TOKEN)}/sendMessage`, 'post', { chat_id: 42, text: 'hello' }));
    expect(same.sample_verdict).toBe('correct');
    expect(same.arguments.path_params).toEqual({ token: { expected: TOKEN, actual: TOKEN, verdict: 'correct' } });
    // Nonexecutable: the server's variable is one more expected argument, missing.
    expect(expectedOnly(telegram, sendMessage, 'runtime_error').arguments.path_params).toEqual({ token: { expected: TOKEN, actual: null, verdict: 'missing' } });
    expect(compareRequest(telegram, sendMessage, sent('https://api.telegram.org/botrelay_bot/sendMessage', 'post', { chat_id: 42, text: 'hello' }), 'reference').sample_verdict).toBe('wrong');
  });

  const EMOTES = `openapi: 3.0.3
info: { title: FrankerFaceZ, version: '1' }
servers: [{ url: https://api.frankerfacez.com }]
components:
  parameters:
    q: { name: q, in: query, schema: { type: string } }
  schemas:
    Emote: { type: object, properties: { id: { type: integer }, name: { type: string }, parent: { $ref: '#/components/schemas/Emote' } } }
    Emoticon: { type: object, properties: { id: { type: integer }, name: { type: string }, parent: { $ref: '#/components/schemas/Emoticon' } } }
paths:
  /v1/emoticons:
    get:
      operationId: searchEmoticons
      summary: Search emotes
      parameters: [{ $ref: '#/components/parameters/q' }, { name: page, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Emote' } } } } } }
  /v1/emotes:
    get:
      operationId: searchEmotes
      summary: Search emotes
      parameters: [{ name: q, in: query, schema: { type: string } }, { name: page, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Emoticon' } } } } } }
  /v1/badges:
    get:
      parameters: [{ name: q, in: query, schema: { type: string } }, { name: page, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { type: string } } } } } }
  /v1/emote-search:
    get:
      operationId: searchEmotesAgain
      summary: Search emotes, the other way round
      parameters: [{ $ref: '#/components/parameters/q' }, { name: page, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Emote' } } } } } }
  /v1/sets:
    get:
      parameters: [{ name: q, in: query, required: true, schema: { type: string } }, { name: page, in: query, schema: { type: integer } }]
      responses: { '200': { description: ok, content: { application/json: { schema: { type: array, items: { $ref: '#/components/schemas/Emote' } } } } } }
`;
  const search: RequestConfig = { url: 'https://api.frankerfacez.com/v1/emoticons', method: 'get', params: { q: 'pog', page: 1 } };

  it('a path whose operations are identical to the expected path (after dereferencing, a recursive schema too) is the same endpoint', async () => {
    const ffz = await load(EMOTES);
    const v = compareRequest(ffz, search, sent('https://api.frankerfacez.com/v1/emotes', 'get', undefined, { q: 'pog', page: 1 }));
    expect(v).toMatchObject({ sample_verdict: 'correct', url_verdict: 'correct', method_verdict: 'correct', endpoint_verdict: 'correct' });
    expect(compareRequest(ffz, { ...search, url: 'https://api.frankerfacez.com/v1/emotes' }, sent('https://api.frankerfacez.com/v1/emoticons', 'get', undefined, { q: 'pog', page: 1 })).sample_verdict).toBe('correct');
    expect(compareRequest(ffz, search, sent('https://api.frankerfacez.com/v1/emotes', 'get', undefined, { q: 'pog', page: 1 }), 'reference').sample_verdict).toBe('correct');
  });

  it('paths alike in all but one part are not: another response, a parameter required, another summary (Slack: approve and deny)', async () => {
    const ffz = await load(EMOTES);
    for (const path of ['badges', 'sets', 'emote-search']) {
      expect(compareRequest(ffz, search, sent(`https://api.frankerfacez.com/v1/${path}`, 'get', undefined, { q: 'pog', page: 1 })), path).toMatchObject({ sample_verdict: 'wrong', url_verdict: 'wrong', endpoint_verdict: 'wrong' });
    }
  });
});
