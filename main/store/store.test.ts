import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/paths.js';
import { MIGRATIONS } from './migrations.js';
import { sha256, Store, type NewDataset } from './store.js';

const open = (file: string): Store => {
  const result = Store.open(file);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

const dataset = (name: string): NewDataset => ({
  name,
  source: 'x.json',
  author: 'tester',
  apis: [{ api: 'demo', spec: { filename: 'demo.yaml', title: 'Demo', content: 'openapi: 3.0.0' } }],
  samples: [
    { id: 's1', api: 'demo', task: 'one', config: { url: 'https://d/a', method: 'get' }, source: {}, findings: [] },
    { id: 's2', api: 'demo', task: 'two', config: { url: 'https://d/b', method: 'post' }, source: { index: 1 }, findings: [{ rule: 'path', message: 'no endpoint' }] },
  ],
});

let stores: Store[] = [];
afterEach(() => {
  for (const s of stores) s.close();
  stores = [];
});
const fresh = (): Store => {
  const s = open(path.join(tempDir(), 'wapii.db'));
  stores.push(s);
  return s;
};

describe('Store', () => {
  it('applies the migrations once, in WAL mode with foreign keys', () => {
    const file = path.join(tempDir(), 'a.db');
    const first = open(file);
    first.close();
    const again = open(file);
    stores.push(again);
    expect(again.integrityCheck()).toBe('ok');
    expect(again.counts()).toEqual({ specs: 0, datasets: 0, dataset_apis: 0, samples: 0, revisions: 0, runs: 0, run_samples: 0 });
    expect(MIGRATIONS.length).toBeGreaterThan(0);
  });

  it('stores specs content-addressed, once per content', () => {
    const store = fresh();
    store.createDataset(dataset('a'));
    store.createDataset(dataset(store.freeDatasetName('a')));
    expect(store.counts().specs).toBe(1);
    expect(store.getSpec(sha256('openapi: 3.0.0'))?.title).toBe('Demo');
    expect(store.listDatasets().map((d) => d.name)).toEqual(['a', 'a (2)']);
  });

  it('summarises datasets with their APIs and flagged samples', () => {
    const store = fresh();
    const id = store.createDataset(dataset('a'));
    expect(store.findDataset('a')).toMatchObject({ id, sampleCount: 2, flaggedCount: 1, apis: [{ api: 'demo', samples: 2, specTitle: 'Demo' }] });
    expect(store.findDataset(String(id))?.name).toBe('a');
    expect(store.listSamples(id).map((s) => [s.id, s.position, s.checkStatus])).toEqual([
      ['s1', 0, 'ok'],
      ['s2', 1, 'flagged'],
    ]);
  });

  it('records every edit as a revision and undoes the last one', () => {
    const store = fresh();
    const id = store.createDataset(dataset('a'));
    const edited = store.editSample(id, 's1', { task: 'one!', config: { url: 'https://d/a', method: 'get' }, reviewState: 'fixed' }, [], { author: 'ana', reason: 'typo' });
    expect(edited.ok && edited.value.task).toBe('one!');
    store.editSample(id, 's1', { task: 'one!', config: { url: 'https://d/a', method: 'get' }, reviewState: 'accepted' }, [], { author: 'ben', reason: 'looks right' });
    const revisions = store.listRevisions(id, 's1');
    expect(revisions.map((r) => [r.author, r.reason, r.before?.reviewState ?? null, r.after.reviewState])).toEqual([
      ['tester', 'imported from x.json', null, 'unreviewed'],
      ['ana', 'typo', 'unreviewed', 'fixed'],
      ['ben', 'looks right', 'fixed', 'accepted'],
    ]);
    const last = store.lastUndoable(id, 's1');
    expect(last?.reason).toBe('looks right');
    expect(store.undoRevision(id, last!, []).reviewState).toBe('fixed');
    expect(store.lastUndoable(id, 's1')?.reason).toBe('typo');
    expect(store.undoRevision(id, store.lastUndoable(id, 's1')!, []).task).toBe('one');
    expect(store.lastUndoable(id, 's1')).toBeUndefined(); // the import cannot be undone
  });

  it('rolls a failed import back whole', () => {
    const store = fresh();
    const broken: NewDataset = { ...dataset('a'), samples: [...dataset('a').samples, { ...dataset('a').samples[0]!, id: 's3', api: 'unknown-api' }] };
    expect(() => store.createDataset(broken)).toThrow(/FOREIGN KEY/);
    expect(store.counts()).toEqual({ specs: 0, datasets: 0, dataset_apis: 0, samples: 0, revisions: 0, runs: 0, run_samples: 0 });
  });

  it('refuses use after dispose', () => {
    const store = fresh();
    store.close();
    expect(() => store.listDatasets()).toThrow(/after dispose/);
  });

  it('says why a database cannot be opened', () => {
    const file = path.join(tempDir(), 'not-a-folder');
    fs.writeFileSync(file, '');
    const result = Store.open(path.join(file, 'wapii.db'));
    expect(result.ok ? '' : result.error.message).toMatch(/^cannot open database .*not-a-folder\/wapii\.db: /);
  });
});

describe('Store.open from several processes at once', () => {
  it('migrates a new database once: every process opens it, and the schema is whole', async () => {
    const db = path.join(tempDir(), 'shared.db');
    const store = fileURLToPath(new URL('./store.ts', import.meta.url));
    // Each child opens the same fresh file the moment it starts, as a run and the UI polling it do.
    const startAt = Date.now() + 4000; // after every child has loaded, so their opens collide
    const script = `const { Store } = await import(${JSON.stringify(store)}); await new Promise((r) => setTimeout(r, ${startAt} - Date.now())); const r = Store.open(${JSON.stringify(db)}); if (!r.ok) { console.error(r.error.message); process.exit(1); } r.value.close();`;
    const run = promisify(execFile);
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script])));
    expect(results.map((r) => (r.status === 'rejected' ? String((r.reason as { stderr?: string }).stderr) : 'ok'))).toEqual(Array(6).fill('ok'));
    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    expect(opened.value.integrityCheck()).toBe('ok');
    opened.value.close();
  });
});
