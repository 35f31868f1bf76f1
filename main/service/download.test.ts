import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi, WorkbenchEvent } from '../api/contract.js';
import type { Download, Model } from '../api/evaluation.js';
import { createFetchClient } from '../api/fetchClient.js';
import { startHttpTransport, type HttpTransport } from '../api/http.js';
import { cachedTestModel } from '../generation/index.js';
import { closedPort, downloadStandIn, type StandIn } from '../../test/support/downloadStandIn.js';
import { writeLyingHeader } from '../../test/support/gguf.js';
import { tempDir } from '../../test/support/paths.js';
import { callMethod, localClient, openWorkbench, type Workbench } from './index.js';

/**
 * A local file server with Range support, slowed down so a download can be cancelled halfway;
 * `gate` holds the body back until the test opens it.
 */
function modelServer(file: string): Promise<{ url: string; server: http.Server; requests: string[]; slow: { delayMs: number } }> {
  const data = fs.readFileSync(file);
  const requests: string[] = [];
  const slow = { delayMs: 0 };
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.headers.range ?? ''} ${req.url} ${req.headers['if-range'] ?? ''}`);
    // The URL, and where an `hf:` reference resolves on a Hugging Face endpoint (MODEL_ENDPOINT).
    const { pathname } = new URL(req.url ?? '/', 'http://server');
    if (pathname !== '/models/test-model.gguf' && pathname !== '/tester/tiny-GGUF/resolve/main/test-model.gguf') {
      res.writeHead(404).end();
      return;
    }
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] ? Number(range[2]) : data.length - 1;
    const headers = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes', ETag: '"v1"', 'Content-Length': String(end - start + 1), ...(range ? { 'Content-Range': `bytes ${start}-${end}/${data.length}` } : {}) };
    res.writeHead(range ? 206 : 200, headers);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    let at = start;
    const step = (): void => {
      if (res.destroyed) return;
      if (at > end) {
        res.end();
        return;
      }
      const chunk = data.subarray(at, Math.min(end + 1, at + 64 * 1024));
      at += chunk.length;
      res.write(chunk);
      setTimeout(step, slow.delayMs);
    };
    step();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/models/test-model.gguf`, server, requests, slow })));
}

function downloadSuite(name: string, setup: (wb: Workbench) => Promise<{ client: WorkbenchApi; close: () => Promise<void> }>): void {
  describe(`model downloads over ${name}`, () => {
    let wb: Workbench;
    let client: WorkbenchApi;
    let close: () => Promise<void>;
    let served: Awaited<ReturnType<typeof modelServer>>;
    const events: WorkbenchEvent[] = [];
    const model = cachedTestModel('qwen2');
    beforeAll(async () => {
      const dir = tempDir();
      wb = openWorkbench({ db: path.join(dir, 'w.db'), evaluation: { modelsFolder: path.join(dir, 'models'), gpu: 'cpu' } });
      wb.service.onEvent((e) => events.push(e));
      ({ client, close } = await setup(wb));
      served = await modelServer(model);
    });
    afterAll(async () => {
      served.server.closeAllConnections();
      served.server.close();
      await close();
      await wb.shutdown();
    });

    it('downloads from a URL with progress, is cancelled halfway keeping the partial file, resumes, and adds the model', async () => {
      served.slow.delayMs = 40;
      const started = await client.downloadModel({ source: served.url });
      expect(started).toMatchObject({ status: 'downloading', source: served.url });
      const size = fs.statSync(model).size;
      const until = async (what: () => boolean): Promise<void> => {
        for (let i = 0; i < 2400 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
      };
      await until(() => events.some((e) => e.type === 'downloadProgress' && e.downloadId === started.id && e.downloadedBytes > 0));
      const cancelled = await client.cancelDownload({ downloadId: started.id });
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.downloadedBytes).toBeGreaterThan(0);
      expect(cancelled.downloadedBytes).toBeLessThan(size);
      expect(await client.listModels({})).toEqual([]);

      served.slow.delayMs = 0;
      const before = served.requests.length;
      const resumed = await client.downloadModel({ source: served.url });
      await until(() => wb.service.evaluation.library.listDownloads().find((d) => d.id === resumed.id)?.status !== 'downloading');
      const done = (await client.listDownloads({})).find((d) => d.id === resumed.id)!;
      expect(done).toMatchObject({ status: 'finished', totalBytes: size, downloadedBytes: size, error: null });
      // The resumed download asked for the rest, not the whole file again, if it is still the same file.
      expect(served.requests.slice(before).some((r) => /^GET bytes=[1-9]\d*- \S+ "v1"$/.test(r))).toBe(true);
      const [added] = await client.listModels({});
      expect(added).toMatchObject({ id: done.modelId, source: served.url, architecture: 'llama' });
      expect(fs.readFileSync(added!.path).equals(fs.readFileSync(model))).toBe(true);
      expect(events.filter((e) => e.type === 'downloadProgress' && e.downloadId === resumed.id).at(-1)).toMatchObject({ status: 'finished' });
    }, 180_000);

    it('downloads an hf: reference from the Hugging Face endpoint node-llama-cpp resolves (MODEL_ENDPOINT: here the local server)', async () => {
      const endpoint = new URL(served.url).origin + '/';
      process.env['MODEL_ENDPOINT'] = endpoint;
      try {
        const before = served.requests.length;
        const started = await client.downloadModel({ source: 'hf:tester/tiny-GGUF/test-model.gguf', filename: 'from-hf.gguf' });
        for (let i = 0; i < 2400 && wb.service.evaluation.library.listDownloads().find((d) => d.id === started.id)?.status === 'downloading'; i++) await new Promise((r) => setTimeout(r, 50));
        const done = (await client.listDownloads({})).find((d) => d.id === started.id)!;
        expect(done).toMatchObject({ status: 'finished', source: 'hf:tester/tiny-GGUF/test-model.gguf', error: null });
        expect(served.requests.slice(before).some((r) => r.startsWith('GET ') && r.includes(' /tester/tiny-GGUF/resolve/main/test-model.gguf'))).toBe(true);
        const added = (await client.listModels({})).find((m) => m.id === done.modelId)!;
        expect(path.basename(added.path)).toBe('from-hf.gguf');
        expect(fs.readFileSync(added.path).equals(fs.readFileSync(model))).toBe(true);
        await client.removeModel({ modelId: added.id });
      } finally {
        delete process.env['MODEL_ENDPOINT'];
      }
    }, 180_000);

    it('refuses a source that is neither a URL nor an hf: reference, and a URL that serves nothing', async () => {
      await expect(client.downloadModel({ source: '/tmp/model.gguf' })).rejects.toMatchObject({ code: 'bad_input', message: 'download source must be an http(s) URL or an hf: reference, not "/tmp/model.gguf"' });
      await expect(client.downloadModel({ source: served.url, filename: '../escape.gguf' })).rejects.toMatchObject({ code: 'bad_input', message: 'download file name must be a plain file name inside the models folder, not "../escape.gguf"' });
      const missing = await client.downloadModel({ source: served.url.replace('test-model', 'missing') });
      for (let i = 0; i < 200 && (await client.listDownloads({})).find((d) => d.id === missing.id)?.status === 'downloading'; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await client.listDownloads({})).find((d) => d.id === missing.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the server answered 404 Not Found for http:\/\/127\.0\.0\.1:\d+\/models\/missing\.gguf$/) });
      expect(await client.listModels({})).toHaveLength(1);
    });
  });
}

downloadSuite('the in-process client', async (wb) => ({ client: localClient(wb.service), close: async () => undefined }));
downloadSuite('HTTP (wapii serve)', async (wb) => {
  const transport: HttpTransport = await startHttpTransport({ call: (m, i) => callMethod(wb.service, m, i), subscribe: (l) => wb.service.onEvent(l), staticDir: tempDir() });
  return { client: createFetchClient({ baseUrl: transport.url, token: transport.token }), close: () => transport.close() };
});

describe('downloads from servers that misbehave, through the model library', () => {
  let wb: Workbench;
  let client: WorkbenchApi;
  let server: StandIn;
  let folder: string;
  const events: WorkbenchEvent[] = [];
  // Two versions of one model: same size, other bytes.
  const a = fs.readFileSync(cachedTestModel('qwen2'));
  const b = fs.readFileSync(cachedTestModel('qwen2', { seed: 2 }));
  beforeAll(async () => {
    const dir = tempDir();
    folder = path.join(dir, 'models');
    wb = openWorkbench({ db: path.join(dir, 'w.db'), evaluation: { modelsFolder: folder, gpu: 'cpu' } });
    wb.service.onEvent((e) => events.push(e));
    client = localClient(wb.service);
    server = await downloadStandIn();
  });
  afterAll(async () => {
    await server.close();
    await wb.shutdown();
  });
  const settled = (id: string): Promise<Download> => wb.service.evaluation.library.settled(id);
  const models = async (): Promise<Model[]> => client.listModels({});

  it('answers with an id at once, and a refused connection ends failed without retries', async () => {
    const port = await closedPort();
    const started = await client.downloadModel({ source: `http://127.0.0.1:${port}/m.gguf` });
    expect(started).toMatchObject({ status: 'downloading', error: null });
    expect(await settled(started.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/^connection refused \(ECONNREFUSED 127\.0\.0\.1:\d+\)$/) });
  });

  it('a server that declares the full length, sends 4 KiB and closes: the download ends failed with a message, nothing uncaught', async () => {
    server.routes.set('/early.gguf', { data: a, closeAfter: 4096 });
    const started = await client.downloadModel({ source: `${server.origin}/early.gguf` });
    const done = await settled(started.id);
    expect(done).toMatchObject({ status: 'failed', error: expect.stringMatching(/^the server closed the connection after [\d.]+ KiB of [\d.]+ MiB \(after 3 retries\)$/) });
    // Each retry was shown as it came.
    const notes = events.filter((e) => e.type === 'downloadProgress' && e.downloadId === started.id && e.message?.includes('retry')).map((e) => (e as { message: string }).message);
    expect(notes.some((m) => /; retry 1 of 3 in 1 s$/.test(m))).toBe(true);
    expect(await models()).toEqual([]);
  }, 60_000);

  it('never overwrites a model: a server-chosen name that is taken gets "name (1).gguf", and a same-size file is fetched, not taken as done', async () => {
    fs.mkdirSync(folder, { recursive: true });
    const victim = path.join(folder, 'victim.gguf');
    fs.writeFileSync(victim, a);
    const kept = await client.addModel({ path: victim });
    server.routes.set('/innocent', { data: b, disposition: 'victim.gguf' });
    const done = await settled((await client.downloadModel({ source: `${server.origin}/innocent` })).id);
    expect(done).toMatchObject({ status: 'finished', file: path.join(folder, 'victim (1).gguf'), downloadedBytes: b.length });
    expect(fs.readFileSync(victim).equals(a)).toBe(true);
    expect(fs.readFileSync(done.file).equals(b)).toBe(true);
    expect((await models()).map((m) => m.path)).toEqual([kept.path, done.file]);
    // Downloading the first model's bytes under its own name again: fetched, and beside it.
    server.routes.set('/victim.gguf', { data: a });
    const again = await settled((await client.downloadModel({ source: `${server.origin}/victim.gguf` })).id);
    expect(again).toMatchObject({ status: 'finished', file: path.join(folder, 'victim (2).gguf') });
    expect(server.seen.filter((r) => r.path === '/victim.gguf')).toHaveLength(1);
    for (const m of await models()) await client.removeModel({ modelId: m.id });
  });

  it('resumes only with If-Range: a file changed on the server since the cancel is fetched again whole, not stitched', async () => {
    for (const honourIfRange of [true, false]) {
      const route = `/changing-${honourIfRange}.gguf`;
      server.routes.set(route, { data: a, etag: '"a"', delayMs: 20, honourIfRange });
      const started = await client.downloadModel({ source: `${server.origin}${route}` });
      for (let i = 0; i < 2000 && (wb.service.evaluation.library.listDownloads().find((d) => d.id === started.id)?.downloadedBytes ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      const cancelled = await client.cancelDownload({ downloadId: started.id });
      expect(cancelled.status).toBe('cancelled');
      expect(cancelled.downloadedBytes).toBeGreaterThan(0);
      expect(cancelled.downloadedBytes).toBeLessThan(a.length);
      // The file is replaced on the server.
      server.routes.set(route, { data: b, etag: '"b"', honourIfRange });
      const done = await settled((await client.downloadModel({ source: `${server.origin}${route}` })).id);
      expect(done.status).toBe('finished');
      expect(fs.readFileSync(done.file).equals(b)).toBe(true);
      const resumes = server.seen.filter((r) => r.path === route && r.headers.range);
      expect(resumes.map((r) => r.headers['if-range'])).toEqual(honourIfRange ? ['"a"'] : ['"a"', undefined].slice(0, resumes.length));
    }
    for (const m of await models()) await client.removeModel({ modelId: m.id });
  }, 120_000);

  // Issue 38 item 9: a server without an ETag still resumes (If-Range with Last-Modified, or a plain Range checked by length, as curl -C - does).
  it('resumes from where the partial file ends without an ETag: by Last-Modified, or by the length alone; one row, under the same id', async () => {
    for (const validator of [{ lastModified: 'Wed, 21 Oct 2026 07:28:00 GMT' }, {}]) {
      const route = `/plain-${'lastModified' in validator ? 'dated' : 'bare'}.gguf`;
      server.routes.set(route, { data: a, delayMs: 20, ...validator });
      const started = await client.downloadModel({ source: `${server.origin}${route}` });
      // The row shows the file's name at once, not the models folder's.
      expect(path.basename(started.file)).toBe(route.slice(1));
      for (let i = 0; i < 2000 && (wb.service.evaluation.library.listDownloads().find((d) => d.id === started.id)?.downloadedBytes ?? 0) === 0; i++) await new Promise((r) => setTimeout(r, 10));
      const cancelled = await client.cancelDownload({ downloadId: started.id });
      expect(cancelled).toMatchObject({ status: 'cancelled', resumable: true });
      const have = fs.statSync(path.join(folder, '.partial', fs.readdirSync(path.join(folder, '.partial')).find((f) => f.endsWith('.part') && fs.statSync(path.join(folder, '.partial', f)).size === cancelled.downloadedBytes)!)).size;
      expect(have).toBeGreaterThan(0);
      server.routes.set(route, { data: a, ...validator });
      const resumed = await client.downloadModel({ source: `${server.origin}${route}` });
      expect(resumed.id).toBe(started.id);
      expect((await client.listDownloads({})).filter((d) => d.source === resumed.source)).toHaveLength(1);
      const done = await settled(resumed.id);
      expect(done.status).toBe('finished');
      expect(fs.readFileSync(done.file).equals(a)).toBe(true);
      const ranged = server.seen.filter((r) => r.path === route && r.headers.range);
      expect(ranged.map((r) => [r.headers.range, r.headers['if-range']])).toEqual([[`bytes=${have}-`, 'lastModified' in validator ? validator.lastModified : undefined]]);
    }
    for (const m of await models()) await client.removeModel({ modelId: m.id });
  }, 120_000);

  it('automatic retries after a dropped connection continue the partial file, not byte 0, from a server with no validator', async () => {
    server.routes.set('/drops.gguf', { data: a, closeAfter: Math.ceil(a.length / 3) });
    const done = await settled((await client.downloadModel({ source: `${server.origin}/drops.gguf` })).id);
    expect(done.status).toBe('finished');
    expect(fs.readFileSync(done.file).equals(a)).toBe(true);
    const asked = server.seen.filter((r) => r.path === '/drops.gguf').map((r) => Number(/bytes=(\d+)-/.exec(r.headers.range ?? '')?.[1] ?? 0));
    expect(asked[0]).toBe(0);
    expect(asked.slice(1).every((from, i) => from > asked[i]!)).toBe(true);
    for (const m of await models()) await client.removeModel({ modelId: m.id });
  }, 60_000);

  it('a 404 is not offered for resume, and an ended row can be dismissed', async () => {
    const failed = await settled((await client.downloadModel({ source: `${server.origin}/missing.gguf` })).id);
    expect(failed).toMatchObject({ status: 'failed', resumable: false, file: path.join(folder, 'missing.gguf') });
    expect(await client.dismissDownload({ downloadId: failed.id })).toEqual({ dismissed: true });
    expect((await client.listDownloads({})).some((d) => d.id === failed.id)).toBe(false);
    expect(await client.dismissDownload({ downloadId: failed.id })).toEqual({ dismissed: false });
  });

  it('two downloads to one file name at once: each ends with its own bytes in its own file', async () => {
    server.routes.set('/one/same.gguf', { data: a, delayMs: 5 });
    server.routes.set('/two/same.gguf', { data: b, delayMs: 5 });
    const [one, two] = await Promise.all([client.downloadModel({ source: `${server.origin}/one/same.gguf` }), client.downloadModel({ source: `${server.origin}/two/same.gguf` })]);
    const [first, second] = await Promise.all([settled(one!.id), settled(two!.id)]);
    expect([first.status, second.status]).toEqual(['finished', 'finished']);
    expect(new Set([first.file, second.file])).toEqual(new Set([path.join(folder, 'same.gguf'), path.join(folder, 'same (1).gguf')]));
    expect(fs.readFileSync(first.file).equals(a)).toBe(true);
    expect(fs.readFileSync(second.file).equals(b)).toBe(true);
    for (const m of await models()) await client.removeModel({ modelId: m.id });
  }, 60_000);

  it('a crafted GGUF downloaded ends failed with one line, and the library goes on', async () => {
    const lying = path.join(tempDir(), 'lying.gguf');
    writeLyingHeader(lying, 8 * 2 ** 20);
    server.routes.set('/lying.gguf', { data: fs.readFileSync(lying) });
    const done = await settled((await client.downloadModel({ source: `${server.origin}/lying.gguf` })).id);
    expect(done).toMatchObject({ status: 'failed', error: expect.stringMatching(/^lying\.gguf: cannot read its GGUF header: metadata entry "tokenizer\.ggml\.tokens" declares 1099511627776 items, more than the file's remaining \d+ bytes could hold$/) });
    server.routes.set('/fine.gguf', { data: a });
    expect(await settled((await client.downloadModel({ source: `${server.origin}/fine.gguf` })).id)).toMatchObject({ status: 'finished' });
  }, 60_000);
});
