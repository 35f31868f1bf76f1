import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpTransport, type HttpTransport } from '../../main/api/http.js';
import { pickEncoding } from '../../main/api/httpStatic.js';
import { callMethod, openWorkbench, type Workbench } from '../../main/service/index.js';
import { tempDir } from '../support/paths.js';

interface Raw {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One GET with exactly these headers; the body as sent (no decompression). */
const get = (url: string, headers: Record<string, string>): Promise<Raw> =>
  new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });

describe('serve: the renderer files and the page for a dead token', () => {
  let transport: HttpTransport;
  let workbench: Workbench;
  const script = `export const rows = [${Array.from({ length: 4000 }, (_, i) => `{id:${i},name:"row ${i}"}`).join(',')}];\n`;
  beforeAll(async () => {
    workbench = openWorkbench({ db: path.join(tempDir(), 'w.db') });
    const staticDir = tempDir();
    fs.writeFileSync(path.join(staticDir, 'index.html'), '<!doctype html><script type="module" src="./assets/index-abc123.js"></script>');
    fs.mkdirSync(path.join(staticDir, 'assets'));
    fs.writeFileSync(path.join(staticDir, 'assets', 'index-abc123.js'), script);
    transport = await startHttpTransport({ call: (m, i) => callMethod(workbench.service, m, i), subscribe: (l) => workbench.service.onEvent(l), staticDir, token: 'a-token-of-the-current-serve' });
  });
  afterAll(async () => {
    await transport.close();
    workbench.store.close();
  });

  it('sends the hashed assets compressed as the browser accepts, cached for a year; the page is revalidated by its ETag', async () => {
    const auth = { Cookie: `${transport.cookie}=${transport.token}` };
    const br = await get(`${transport.url}/assets/index-abc123.js`, { ...auth, 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(script);
    expect(br.body.length).toBeLessThan(script.length / 4);
    expect(br.headers['cache-control']).toBe('private, max-age=31536000, immutable');
    expect(br.headers['vary']).toBe('Accept-Encoding');
    const gz = await get(`${transport.url}/assets/index-abc123.js`, { ...auth, 'Accept-Encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(script);
    const plain = await get(`${transport.url}/assets/index-abc123.js`, auth);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(script);

    const page = await get(`${transport.url}/`, { ...auth, 'Accept-Encoding': 'gzip' });
    expect(page.headers['cache-control']).toBe('private, no-cache');
    expect(page.headers['etag']).toMatch(/^"[\w-]+"$/);
    const again = await get(`${transport.url}/`, { ...auth, 'If-None-Match': page.headers['etag']! });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(pickEncoding('gzip;q=1, br;q=0')).toBe('gzip');
    expect(pickEncoding('identity')).toBeUndefined();
  });

  it('answers a page request with a dead token (an earlier serve) with an HTML page naming how to get back in and --token-file; the API stays JSON', async () => {
    const stale = await get(`${transport.url}/`, { Cookie: `${transport.cookie}=the-token-of-an-earlier-serve`, Accept: 'text/html' });
    expect(stale.status).toBe(401);
    expect(stale.headers['content-type']).toBe('text/html; charset=utf-8');
    const text = stale.body.toString();
    expect(text).toContain('The server has restarted since, with a new token.');
    expect(text).toContain('wapii serve --token-file &lt;file&gt;');
    expect(text).not.toContain('the-token-of-an-earlier-serve');
    const none = await get(`${transport.url}/datasets`, {});
    expect(none.status).toBe(401);
    expect(none.body.toString()).toContain('needs the access token that <code>wapii serve</code> printed');
    const api = await fetch(`${transport.url}/api/listDatasets`, { method: 'POST', headers: { Cookie: `${transport.cookie}=old`, 'Content-Type': 'application/json' }, body: '{}' });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ ok: false, error: { code: 'unauthorized', message: expect.stringContaining('--token-file') } });
  });
});
