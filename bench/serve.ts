import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createFetchClient } from '../main/api/fetchClient.js';
import { tempDir } from '../test/support/paths.js';
import { loadServe, residentBytes, startServe, type ServeProcess } from '../test/support/serve.js';
import { fmt } from './stats.js';

const mb = (bytes: number | undefined): string => (bytes === undefined ? 'n/a' : `${Math.round(bytes / 1024 / 1024)} MB`);

/** Peak RSS of the server while `work` runs, sampled every 20 ms. */
async function peakRss<T>(serve: ServeProcess, work: () => Promise<T>): Promise<{ value: T; peak: number | undefined }> {
  let peak: number | undefined;
  const timer = setInterval(() => {
    const rss = serve.child.pid === undefined ? undefined : residentBytes(serve.child.pid);
    if (rss !== undefined) peak = Math.max(peak ?? 0, rss);
  }, 20);
  try {
    return { value: await work(), peak };
  } finally {
    clearInterval(timer);
  }
}

function upload(serve: ServeProcess, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${serve.url}/api/listDatasets`, { method: 'POST', headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json', 'Content-Length': bytes } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    req.write('{}');
    for (let sent = 2; sent < bytes; sent += chunk.length) req.write(chunk.subarray(0, Math.min(chunk.length, bytes - sent)));
    req.end();
  });
}

/**
 * `wapii serve` as a process on loopback: a bounded load (200 connections, 5,000 mixed calls,
 * a quarter of them edits) with latency percentiles and the server's RSS; calls answered while a
 * WAPIIBench import runs; four 60 MB uploads at once against the body caps.
 */
export async function benchServe(wapiibench: string): Promise<void> {
  console.log('\n## wapii serve (a child process on loopback)\n');
  const serve = await startServe(['--db', path.join(tempDir(), 'bench-serve.db')]);
  try {
    const idle = serve.child.pid === undefined ? undefined : residentBytes(serve.child.pid);
    const load = await loadServe(serve, { connections: 200, requests: 5000 });
    console.log('| load | answered ok | p50 ms | p99 ms | max ms | wall s | RSS idle → peak |');
    console.log('|---|---|---|---|---|---|---|');
    console.log(`| 200 connections, 5,000 calls | ${load.ok} | ${fmt(load.p50Ms, 1)} | ${fmt(load.p99Ms, 1)} | ${fmt(load.maxMs, 1)} | ${fmt(load.wallMs / 1000, 1)} | ${mb(idle)} → ${mb(load.peakRssBytes)} |`);
    if (load.failures.length > 0) console.log(`failures: ${load.failures.slice(0, 3).join('; ')}`);

    const api = createFetchClient({ baseUrl: serve.url, token: serve.token });
    const read = (file: string): { filename: string; content: string } => ({ filename: path.basename(file), content: fs.readFileSync(file, 'utf8') });
    const specsDir = path.join(wapiibench, 'specs');
    let done = false;
    const t0 = performance.now();
    const importing = api.importDataset({ dataset: read(path.join(wapiibench, 'dataset', 'all.json')), specs: fs.readdirSync(specsDir).map((f) => read(path.join(specsDir, f))) }).finally(() => (done = true));
    const during: number[] = [];
    while (!done) {
      const t = performance.now();
      await api.listDatasets({});
      if (!done) during.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, 10));
    }
    await importing;
    const importMs = performance.now() - t0;
    during.sort((a, b) => a - b);
    console.log(`\nWAPIIBench import through serve: ${fmt(importMs / 1000, 2)} s; ${during.length} listDatasets calls answered meanwhile, p50 ${fmt(during[Math.floor(during.length / 2)] ?? NaN, 1)} ms, max ${fmt(during[during.length - 1] ?? NaN, 1)} ms`);

    const uploads = await peakRss(serve, () => Promise.all(Array.from({ length: 4 }, () => upload(serve, 60 * 1024 * 1024))));
    console.log(`four 60 MB uploads at once: statuses ${uploads.value.join(', ')} (64 MB per request, 128 MB in total); server RSS peak ${mb(uploads.peak)}`);
  } finally {
    await serve.stop();
  }
}
