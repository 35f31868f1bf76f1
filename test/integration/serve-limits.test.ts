import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTransport, type HttpTransport } from '../../main/api/http.js';
import { callMethod, openWorkbench, type Workbench } from '../../main/service/index.js';
import { tempDir } from '../support/paths.js';

/** Starts a POST whose body is sent in two parts; the second goes only when `rest()` is called. */
function slowPost(url: string, token: string, body: string): { rest: () => void; answer: Promise<{ status: number; text: string }> } {
  let release = (): void => undefined;
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(`${url}/api/listDatasets`, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    release = () => req.end(body.slice(half));
  });
  return { rest: () => release(), answer };
}

// Issue 13: nothing capped how many large bodies were buffered at once (4 × 120 MB → 957 MB RSS).
describe('request bodies are capped in total, not only per request', () => {
  let workbench: Workbench;
  let transport: HttpTransport;
  beforeAll(async () => {
    workbench = openWorkbench({ db: path.join(tempDir(), 'limits.db') });
    transport = await startHttpTransport({
      call: (m, i) => callMethod(workbench.service, m, i),
      subscribe: (l) => workbench.service.onEvent(l),
      staticDir: tempDir(),
      bodyLimits: { perRequest: 1024 * 1024, total: 1536 * 1024 },
    });
  });
  afterAll(async () => {
    await transport.close();
    workbench.store.close();
  });

  it('answers 503 with Retry-After to a body that would pass the total, and takes it once the first is done', async () => {
    const body = '{}' + ' '.repeat(1024 * 1024 - 2);
    const first = slowPost(transport.url, transport.token, body);
    await new Promise((r) => setTimeout(r, 200));
    const second = slowPost(transport.url, transport.token, body);
    second.rest();
    const refused = await second.answer;
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.text).error.message).toBe('the server is already reading 1.5 MB of request bodies; try again in a moment');
    first.rest();
    expect((await first.answer).status).toBe(200);
    const third = slowPost(transport.url, transport.token, body);
    third.rest();
    expect((await third.answer).status).toBe(200);
  });
});
