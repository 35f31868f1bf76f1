import fs from 'node:fs';
import path from 'node:path';
import type { WorkbenchApi } from '../main/api/contract.js';
import type { RunSampleFilter } from '../main/api/evaluation.js';
import { createFetchClient } from '../main/api/fetchClient.js';
import { startHttpTransport } from '../main/api/http.js';
import { cachedSha256, cachedTestModel } from '../main/generation/index.js';
import { ModelRepository } from '../main/store/models.js';
import { callMethod, localClient, openWorkbench, readDemo } from '../main/service/index.js';
import { tempDir } from '../test/support/paths.js';
import { fmt, percentiles } from './stats.js';

const SIZE = 10_000;

/**
 * The result pages' queries on a run of 10,000 outputs (the demo run's 32 outputs repeated over
 * 10,000 snapshot samples): listRunSamples with filters, one page of 100 rows, and getRunSample,
 * in-process and over HTTP. The first call builds the run's in-memory index; it is shown apart.
 */
export async function benchResults(root: string): Promise<void> {
  const dir = tempDir('wapii-bench-');
  const wb = openWorkbench({ db: path.join(dir, 'w.db'), author: 'bench', evaluation: { modelsFolder: dir } });
  const seeded = await wb.service.seedIfEmpty(readDemo(root));
  if (!seeded.ok) throw new Error(seeded.error.message);
  const e = wb.service.evaluation;
  const demo = e.runs.list().find((r) => r.demo && r.settings['setting'] === 'unconstrained')!;
  const inputs = e.runs.inputs(demo.id);
  const outputs = e.runs.outputs(demo.id);
  const runId = e.runs.create({
    kind: 'imported codes',
    status: 'running',
    dataset: demo.dataset,
    datasetId: demo.datasetId,
    settings: demo.settings,
    manifest: demo.manifest,
    model: demo.model,
    subset: null,
    total: SIZE,
    ownerPid: process.pid,
    inputs: Array.from({ length: SIZE }, (_, i) => ({ ...inputs[i % inputs.length]!, index: i })),
  });
  wb.store.transaction(() => {
    for (let i = 0; i < SIZE; i++) {
      const o = outputs[i % outputs.length]!;
      const json = (t: string | null): unknown => (t === null ? undefined : JSON.parse(t));
      wb.store.addRunSample(runId, { index: i, api: o.api, code: o.code, request: json(o.request), verdict: json(o.verdict), extraction: json(o.extraction), execution: json(o.execution), durationMs: o.duration_ms ?? undefined });
    }
  });
  e.runs.setStatus(runId, 'finished', { finished: true, ownerPid: null });
  await e.results.storeStatistics(runId);

  const transport = await startHttpTransport({ call: (m, i) => callMethod(wb.service, m, i), subscribe: (l) => wb.service.onEvent(l), staticDir: dir });
  const clients: [string, WorkbenchApi][] = [
    ['in-process', localClient(wb.service)],
    ['HTTP', createFetchClient({ baseUrl: transport.url, token: transport.token })],
  ];
  const filters: RunSampleFilter[] = [
    { sampleVerdicts: ['wrong', 'illegal', 'nonexecutable'] },
    { argumentVerdicts: ['missing', 'incorrect_value'], apis: ['harbor'] },
    { text: 'shipment' },
    { endpoint: 'GET /shipments', endpointVerdicts: ['correct'] },
    { errorVerdicts: ['runtime_error'] },
  ];
  console.log(`\n## Results: a run of ${SIZE.toLocaleString('en')} outputs\n`);
  console.log('| call | transport | first call ms (builds the index) | p50 ms | p99 ms | max ms | calls |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [name, client] of clients) {
    e.results.invalidate(runId);
    const t0 = performance.now();
    await client.listRunSamples({ runId, filter: filters[0]!, limit: 100 });
    const first = performance.now() - t0;
    const list: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      const page = await client.listRunSamples({ runId, filter: filters[i % filters.length]!, sort: { by: i % 2 ? 'verdict' : 'index', dir: 'asc' }, offset: (i * 37) % 500, limit: 100 });
      list.push(performance.now() - t);
      if (page.total === 0) throw new Error('bench: a filter matched nothing');
    }
    const p = percentiles(list);
    console.log(`| listRunSamples (filter, 100 rows) | ${name} | ${fmt(first, 1)} | ${fmt(p.p50)} | ${fmt(p.p99)} | ${fmt(p.max, 1)} | ${list.length} |`);
    const detail: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await client.getRunSample({ runId, index: (i * 331) % SIZE });
      detail.push(performance.now() - t);
    }
    const d = percentiles(detail);
    console.log(`| getRunSample | ${name} | - | ${fmt(d.p50)} | ${fmt(d.p99)} | ${fmt(d.max, 1)} | ${detail.length} |`);
  }
  await transport.close();

  // What a run's manifest pays for the model's sha-256: the whole file the first time, a row lookup after.
  const model = cachedTestModel('qwen2');
  const hashes = new ModelRepository(wb.store);
  const t1 = performance.now();
  cachedSha256(model, hashes);
  const cold = performance.now() - t1;
  const warm: number[] = [];
  for (let i = 0; i < 100; i++) {
    const t = performance.now();
    cachedSha256(model, hashes);
    warm.push(performance.now() - t);
  }
  const size = fs.statSync(model).size / 2 ** 20;
  console.log(`\nmodel sha-256 (${size.toFixed(1)} MiB file): first ${fmt(cold, 1)} ms (reads it), cached p50 ${fmt(percentiles(warm).p50, 3)} ms (path, size, mtime)`);
  await wb.shutdown();
}
