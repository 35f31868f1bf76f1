import http from 'node:http';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMPRESS_JSON_FROM, startHttpTransport, type HttpTransport } from '../../main/api/http.js';
import { tempDir } from '../support/paths.js';

interface Raw {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** One API call with exactly these headers; the body as sent (no decompression). */
const post = (url: string, headers: Record<string, string>, body: unknown): Promise<Raw> =>
  new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });

describe('serve: API answers compressed as the client accepts', () => {
  let transport: HttpTransport;
  // A listSamples-like answer: many rows of the same shape (17.5 KB raw on the demo dataset).
  const rows = Array.from({ length: 200 }, (_, i) => ({ id: `s${i}`, api: 'harbor', task: `Get the rates for parcel ${i} from the US to Canada`, reviewState: 'unreviewed', checkStatus: 'ok' }));
  beforeAll(async () => {
    transport = await startHttpTransport({
      call: (method) => Promise.resolve(method === 'listSamples' ? rows : { small: true }),
      subscribe: () => () => undefined,
      staticDir: tempDir(),
      token: 'a-token',
    });
  });
  afterAll(() => transport.close());
  const auth = (): Record<string, string> => ({ Authorization: `Bearer ${transport.token}` });

  it('a large answer goes as brotli or gzip per Accept-Encoding, plain without one; a small one stays plain', async () => {
    const plainText = JSON.stringify({ ok: true, value: rows });
    expect(plainText.length).toBeGreaterThan(COMPRESS_JSON_FROM);
    const br = await post(`${transport.url}/api/listSamples`, { ...auth(), 'Accept-Encoding': 'gzip, deflate, br' }, {});
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toBe('Accept-Encoding');
    expect(zlib.brotliDecompressSync(br.body).toString()).toBe(plainText);
    expect(br.body.length).toBeLessThan(plainText.length / 4);
    const gz = await post(`${transport.url}/api/listSamples`, { ...auth(), 'Accept-Encoding': 'gzip' }, {});
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.body).toString()).toBe(plainText);
    const plain = await post(`${transport.url}/api/listSamples`, auth(), {});
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(plainText);
    const small = await post(`${transport.url}/api/listRuns`, { ...auth(), 'Accept-Encoding': 'br' }, {});
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(small.body.toString())).toEqual({ ok: true, value: { small: true } });
  });
});
