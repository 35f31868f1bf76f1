import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi, WorkbenchEvent } from '../api/contract.js';
import { createFetchClient } from '../api/fetchClient.js';
import { startHttpTransport, type HttpTransport } from '../api/http.js';
import { cachedTestModel } from '../generation/index.js';
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
    requests.push(`${req.method} ${req.headers.range ?? ''} ${req.url}`);
    // The URL, and where an `hf:` reference resolves on a Hugging Face endpoint (MODEL_ENDPOINT).
    const { pathname } = new URL(req.url ?? '/', 'http://server');
    if (pathname !== '/models/test-model.gguf' && pathname !== '/tester/tiny-GGUF/resolve/main/test-model.gguf') {
      res.writeHead(404).end();
      return;
    }
    const range = /bytes=(\d+)-(\d*)/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range && range[2] ? Number(range[2]) : data.length - 1;
    const headers = { 'Content-Type': 'application/octet-stream', 'Accept-Ranges': 'bytes', 'Content-Length': String(end - start + 1), ...(range ? { 'Content-Range': `bytes ${start}-${end}/${data.length}` } : {}) };
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
      // The resumed download asked for the rest, not the whole file again.
      expect(served.requests.slice(before).some((r) => /^GET bytes=[1-9]\d*-/.test(r))).toBe(true);
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
      expect((await client.listDownloads({})).find((d) => d.id === missing.id)).toMatchObject({ status: 'failed', error: expect.stringMatching(/Status code: 404/) });
      expect(await client.listModels({})).toHaveLength(1);
    });
  });
}

downloadSuite('the in-process client', async (wb) => ({ client: localClient(wb.service), close: async () => undefined }));
downloadSuite('HTTP (wapii serve)', async (wb) => {
  const transport: HttpTransport = await startHttpTransport({ call: (m, i) => callMethod(wb.service, m, i), subscribe: (l) => wb.service.onEvent(l), staticDir: tempDir() });
  return { client: createFetchClient({ baseUrl: transport.url, token: transport.token }), close: () => transport.close() };
});
