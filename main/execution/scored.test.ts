import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestConfig } from '../api/schemas.js';
import { loadSpec, type ApiSpec } from '../openapi/index.js';
import { setupFor } from '../prompt/index.js';
import { evaluateCode } from '../runner/index.js';
import { DEMO_SPECS } from '../../test/support/paths.js';
import { Sandbox } from './index.js';

/**
 * Programs scored end to end (extraction, the real sandbox, normalisation, comparison) whose
 * verdict depends on the sandbox behaving as Node does (issue 36 items 17-20).
 */
const BASE = 'https://api.harbor.example/v2';
const STARTER = "// task\nconst axios = require('axios');\n\n";
const createLabel: RequestConfig = { url: `${BASE}/shipments/sh_1/labels`, method: 'post', headers: { Authorization: 'Bearer <token>', 'Content-Type': 'application/json' }, data: { format: 'pdf', size: 'A6' } };
const CALL = `axios.post('${BASE}/shipments/sh_1/labels', { format: 'pdf', size: 'A6' }, { headers: { Authorization: 'Bearer <token>' } })`;

let spec: ApiSpec;
const sandbox = new Sandbox({ timeoutMs: 1000 });
beforeAll(async () => {
  const loaded = await loadSpec(fs.readFileSync(`${DEMO_SPECS}/harbor.yaml`, 'utf8'), 'harbor.yaml');
  if (!loaded.ok) throw new Error(loaded.error.message);
  spec = loaded.value;
});
afterAll(() => sandbox.dispose());

const score = async (completion: string) => evaluateCode(STARTER + completion, createLabel, spec, sandbox);

describe('programs Node runs cleanly score as in Node', () => {
  it('item 17: an async main that ends with process.exit(0), its rejection handled or not, is correct', async () => {
    for (const tail of ['main().catch((e) => { console.error(e); process.exit(1); });', 'main();']) {
      const scored = await score(`async function main() {\n  await ${CALL};\n  process.exit(0);\n}\n${tail}`);
      expect(scored.execution?.error).toBeUndefined();
      expect(scored.verdict.sample_verdict).toBe('correct');
    }
  });

  it('item 18: a program that replaces the global require still requires the real modules', async () => {
    const scored = await score(`Function('return this')().require = () => { throw new Error('a fake require'); };\nconst FormData = require('form-data');\n${CALL};`);
    expect(scored.execution?.error).toBeUndefined();
    expect(scored.verdict.sample_verdict).toBe('correct');
  });

  it("item 19: a program that builds its request with Node 20's globals is correct", async () => {
    const prelude = `const controller = new AbortController();
const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(5000)]);
const started = performance.now();
const requestId = crypto.randomUUID() + crypto.getRandomValues(new Uint8Array(4)).length;
const body = structuredClone({ format: 'pdf', size: 'A6' });
const bytes = new TextEncoder().encode(JSON.stringify(body));
const text = new TextDecoder().decode(bytes);
const stream = new ReadableStream({ start(c) { c.enqueue(text); c.close(); } });
const read = await stream.getReader().read();
const blob = new Blob([read.value], { type: 'application/json' });
const data = JSON.parse(await blob.text());
const url = new URL('labels', '${BASE}/shipments/sh_1/');
url.searchParams.delete('none');
`;
    const scored = await score(`${prelude}axios.post(url.href, data, { headers: { Authorization: 'Bearer <token>' }, signal });`);
    expect(scored.execution?.error).toBeUndefined();
    expect(scored.verdict.sample_verdict).toBe('correct');
  });

  it('item 20: a plain object as a fetch body is "[object Object]", illegal as that Axios data string is', async () => {
    const fetchSetup = setupFor({ task: 'task', config: createLabel }, 'full', { client: 'fetch' });
    const viaFetch = async (headers: string) =>
      evaluateCode(`${fetchSetup.starter}'${BASE}/shipments/sh_1/labels', { method: 'POST', headers: { Authorization: 'Bearer <token>'${headers} }, body: { format: 'pdf', size: 'A6' } });`, createLabel, spec, sandbox, 'default', fetchSetup);
    for (const headers of ['', ", 'Content-Type': 'application/json'"]) {
      const scored = await viaFetch(headers);
      expect(scored.request?.data).toEqual({ 'object Object': '' });
      expect(scored.verdict).toMatchObject({ sample_verdict: 'illegal', endpoint_verdict: 'correct', arguments: { data: { 'object Object': { verdict: 'illegal' }, format: { verdict: 'missing' } } } });
    }
    const viaAxios = await score(`axios.post('${BASE}/shipments/sh_1/labels', '[object Object]', { headers: { Authorization: 'Bearer <token>' } });`);
    expect(viaAxios.verdict.sample_verdict).toBe('illegal');
    expect(viaAxios.verdict.arguments).toEqual((await viaFetch('')).verdict.arguments);
  });
});
