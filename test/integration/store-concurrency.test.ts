import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { SampleDetail } from '../../main/api/contract.js';
import type { ErrorInfo } from '../../main/api/result.js';
import { localClient, openWorkbench, readDemo } from '../../main/service/index.js';
import { Store } from '../../main/store/index.js';
import { startServe, type ServeProcess } from '../support/serve.js';
import { ARTIFACTS, DEMO_DATASET, DEMO_SPECS, hasWapiiBench, REPO_ROOT, tempDir, WAPIIBENCH_ALL, WAPIIBENCH_SPECS } from '../support/paths.js';

/** Successful edits wanted in all: thousands, bounded so the test ends in about a minute on two cores. */
const EDITS = 2000;
/** Clients editing at once, half on each server. */
const CLIENTS = 16;

type Envelope<T> = { ok: true; value: T } | { ok: false; error: ErrorInfo };

/** POST /api/<method> with the bearer token, as a non-browser client does (node:http: no headers added). */
function call<T>(server: ServeProcess, agent: http.Agent, method: string, input: unknown): Promise<Envelope<T>> {
  const token = new URL(server.openUrl).searchParams.get('token') ?? '';
  const body = JSON.stringify(input);
  return new Promise((resolve, reject) => {
    const req = http.request(`${server.url}/api/${method}`, { method: 'POST', agent, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Envelope<T>);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const servers: ServeProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe('two `wapii serve` processes and a CLI import on one database', () => {
  it(`${EDITS} edits: none lost, none "database is locked"`, { timeout: 600_000 }, async () => {
    const db = path.join(tempDir(), 'wapii.db');
    const seed = openWorkbench({ db });
    const dataset = await localClient(seed.service).importDataset({ name: 'edited', ...readDemo(REPO_ROOT) });
    const sampleIds = seed.store.listSamples(dataset.id).map((s) => s.id);
    seed.store.close();
    servers.push(...(await Promise.all([startServe(['--db', db]), startServe(['--db', db])])));

    // Imports from the CLI, one after another, for as long as the edits run.
    const run = promisify(execFile);
    const importArgs = hasWapiiBench ? [WAPIIBENCH_ALL, '--specs', WAPIIBENCH_SPECS] : [DEMO_DATASET, '--specs', DEMO_SPECS];
    let editing = true;
    const imports: { code: number; stderr: string }[] = [];
    const importer = (async () => {
      while (editing || imports.length < 2) {
        const result = await run(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'import', ...importArgs]).then(
          (r) => ({ code: 0, stderr: r.stderr }),
          (e: { code?: number; stderr?: string }) => ({ code: e.code ?? -1, stderr: e.stderr ?? '' }),
        );
        imports.push(result);
      }
    })();

    // Each client appends its own marker to a sample's task, based on the revision it read; a
    // conflict (someone else edited in between) is read again and retried. A marker missing from
    // the final task is a lost edit.
    const markers = new Map<string, string[]>(sampleIds.map((id) => [id, []]));
    const failures: string[] = [];
    let done = 0;
    let conflicts = 0;
    let next = 0;
    const client = async (c: number): Promise<void> => {
      const server = servers[c % 2]!;
      const agent = new http.Agent({ keepAlive: true });
      try {
        while (next < EDITS) {
          const n = next++;
          const sampleId = sampleIds[(n * 7 + c) % sampleIds.length]!;
          const marker = `[c${c}e${n}]`;
          for (;;) {
            const read = await call<SampleDetail>(server, agent, 'getSample', { datasetId: dataset.id, sampleId });
            if (!read.ok) {
              failures.push(`getSample: ${read.error.message}`);
              break;
            }
            const baseRevision = read.value.revisions.filter((r) => !r.undone).at(-1)!.id;
            const edit = await call<SampleDetail>(server, agent, 'editSample', { datasetId: dataset.id, sampleId, task: `${read.value.sample.task} ${marker}`, baseRevision, reason: marker });
            if (edit.ok) {
              markers.get(sampleId)!.push(marker);
              done++;
              break;
            }
            if (edit.error.code === 'conflict' && edit.error.message.includes('changed by someone else')) conflicts++;
            else {
              failures.push(`editSample: ${edit.error.message}`);
              break;
            }
          }
        }
      } finally {
        agent.destroy();
      }
    };
    const started = Date.now();
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const seconds = (Date.now() - started) / 1000;
    editing = false;
    await importer;

    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    const store = opened.value;
    let lost = 0;
    let reverted = 0;
    for (const id of sampleIds) {
      const task = store.getSample(dataset.id, id)!.task;
      lost += markers.get(id)!.filter((m) => task.split(m).length !== 2).length;
      const revisions = store.listRevisions(dataset.id, id);
      for (let i = 1; i < revisions.length; i++) if (JSON.stringify(revisions[i]!.before) !== JSON.stringify(revisions[i - 1]!.after)) reverted++;
    }
    const datasets = store.listDatasets().length;
    store.close();
    const locked = [...failures, ...imports.map((i) => i.stderr)].filter((m) => /database is (locked|busy)/i.test(m)).length;
    const figures = {
      edits: done,
      conflictsRetried: conflicts,
      lost,
      revertedRevisions: reverted,
      locked,
      failures: failures.length,
      imports: imports.length,
      failedImports: imports.filter((i) => i.code !== 0 || i.stderr !== '').length,
      datasets,
      editsPerSecond: Math.round(done / seconds),
      seconds: Math.round(seconds),
    };
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    fs.writeFileSync(path.join(ARTIFACTS, 'store-concurrency.json'), JSON.stringify(figures, null, 2) + '\n');
    console.log(`store concurrency: ${JSON.stringify(figures)}`);
    expect(failures.slice(0, 3)).toEqual([]);
    expect(imports.filter((i) => i.code !== 0 || i.stderr !== '')).toEqual([]);
    expect({ edits: done, lost, reverted, locked, datasets }).toEqual({ edits: EDITS, lost: 0, reverted: 0, locked: 0, datasets: 1 + imports.length });
  });
});
