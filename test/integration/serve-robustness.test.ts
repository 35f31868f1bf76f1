import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/paths.js';
import { rawRequest, startServe, type ServeProcess } from '../support/serve.js';

// Findings of issue 13 against the real `wapii serve` process: each request below killed it or
// reset the connection before; now each gets a response and the server keeps answering.
describe('`wapii serve` answers malformed and oversized requests and stays up', () => {
  let serve: ServeProcess;
  let host: string;
  const listDatasets = async (): Promise<number> => {
    const response = await fetch(`${serve.url}/api/listDatasets`, { method: 'POST', headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json' }, body: '{}' });
    await response.arrayBuffer();
    return response.status;
  };
  const get = (target: string, headers = ''): Promise<number> =>
    rawRequest(serve.url, `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${headers}Connection: close\r\n\r\n`).then((r) => r.status);

  beforeAll(async () => {
    serve = await startServe(['--db', path.join(tempDir(), 'robust.db')]);
    host = new URL(serve.url).host;
  });
  afterAll(async () => {
    await serve?.stop();
  });

  it('answers `GET //[` (a target that is no URL) with 400, before any token check', async () => {
    expect(await get('//[')).toBe(400);
    expect(await listDatasets()).toBe(200);
  });

  it('answers `GET http://a:99999/` (absolute form, port out of range) with 400', async () => {
    expect(await get('http://a:99999/')).toBe(400);
    expect(await listDatasets()).toBe(200);
  });

  it('answers `GET /%ff` (not UTF-8 once decoded) with 400, with the token', async () => {
    expect(await get('/%ff', `Authorization: Bearer ${serve.token}\r\n`)).toBe(400);
    expect(await get('/api/%ff%fe', `Authorization: Bearer ${serve.token}\r\n`)).toBe(400);
    expect(await listDatasets()).toBe(200);
  });

  it('answers a body over the per-request limit with 413 and a message, not a reset', async () => {
    const size = 64 * 1024 * 1024 + 1;
    const { status, text } = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(`${serve.url}/api/importDataset`, { method: 'POST', headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json', 'Content-Length': size } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let sent = 0; sent < size; sent += chunk.length) req.write(sent + chunk.length <= size ? chunk : chunk.subarray(0, size - sent));
      req.end();
    });
    expect(status).toBe(413);
    expect(JSON.parse(text)).toEqual({ ok: false, error: { code: 'bad_input', message: 'request body is larger than 64 MB, the most one request may send' } });
    expect(await listDatasets()).toBe(200);
  });

  it('is still the same process, and it printed no stack trace', () => {
    expect(serve.child.exitCode).toBeNull();
    expect(serve.output()).not.toMatch(/\n\s+at /);
  });
});
