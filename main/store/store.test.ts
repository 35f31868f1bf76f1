import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../../test/support/paths.js';
import { MIGRATIONS } from './migrations.js';
import { ok, type Result } from '../api/result.js';
import { sha256, Store, type NewDataset, type SampleChange, type SampleState } from './store.js';

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

/** An edit to a fixed state, whatever the sample holds. */
const to = (after: SampleState): SampleChange => () => ok({ after, findings: [] });
const value = <T>(result: Result<T>): T => {
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
};

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
    const edited = store.editSample(id, 's1', to({ task: 'one!', config: { url: 'https://d/a', method: 'get' }, reviewState: 'fixed' }), { author: 'ana', reason: 'typo' });
    expect(edited.ok && edited.value.task).toBe('one!');
    store.editSample(id, 's1', to({ task: 'one!', config: { url: 'https://d/a', method: 'get' }, reviewState: 'accepted' }), { author: 'ben', reason: 'looks right' });
    const revisions = store.listRevisions(id, 's1');
    expect(revisions.map((r) => [r.author, r.reason, r.before?.reviewState ?? null, r.after.reviewState])).toEqual([
      ['tester', 'imported from x.json', null, 'unreviewed'],
      ['ana', 'typo', 'unreviewed', 'fixed'],
      ['ben', 'looks right', 'fixed', 'accepted'],
    ]);
    const last = store.lastUndoable(id, 's1');
    expect(last?.reason).toBe('looks right');
    expect(value(store.undoLastEdit(id, 's1', () => [])).reviewState).toBe('fixed');
    expect(store.lastUndoable(id, 's1')?.reason).toBe('typo');
    expect(value(store.undoLastEdit(id, 's1', () => [])).task).toBe('one');
    expect(store.lastUndoable(id, 's1')).toBeUndefined(); // the import cannot be undone
    expect(store.undoLastEdit(id, 's1', () => [])).toMatchObject({ ok: false, error: { code: 'conflict', message: 'sample s1 has no edit to undo' } });
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

describe('Store writes beside other processes', () => {
  /**
   * A child process that takes the database's write lock (BEGIN IMMEDIATE), says so, holds it for
   * `holdMs` and commits: another process's import or edit, caught mid-transaction.
   */
  function holdWriteLock(db: string, holdMs: number): Promise<{ done: Promise<void> }> {
    const script = `import Database from 'better-sqlite3';
      const db = new Database(${JSON.stringify(db)});
      db.exec('BEGIN IMMEDIATE');
      db.prepare("UPDATE samples SET task = task || ' (held)' WHERE id = 's2'").run();
      process.stdout.write('locked\\n');
      setTimeout(() => { db.exec('COMMIT'); db.close(); }, ${holdMs});`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    const done = new Promise<void>((resolve, reject) => child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lock holder exited ${code}`)))));
    return new Promise((resolve, reject) => {
      child.stdout.once('data', () => resolve({ done }));
      child.once('error', reject);
      done.catch(reject);
    });
  }

  it('a transaction that reads, then writes, waits for another process to commit instead of failing "database is locked"', async () => {
    const file = path.join(tempDir(), 'wapii.db');
    const store = open(file);
    stores.push(store);
    const id = store.createDataset(dataset('a'));
    const holder = await holdWriteLock(file, 1500);
    // SQLite cannot wait where a read transaction must become a write transaction; only a
    // transaction that takes the write lock first (BEGIN IMMEDIATE) waits its turn.
    store.transaction(() => {
      const samples = store.listSamples(id);
      store.setFindings(id, new Map(samples.map((s) => [s.id, []])));
    });
    const edited = store.editSample(id, 's1', (s) => ok({ after: { task: `${s.task}!`, config: s.config, reviewState: 'fixed' }, findings: [] }), { author: 'ana', reason: 'r' });
    expect(value(edited).task).toBe('one!');
    await holder.done;
    expect(store.listSamples(id).map((s) => [s.task, s.checkStatus])).toEqual([
      ['one!', 'ok'],
      ['two (held)', 'ok'],
    ]);
  });

  it('computes an edit from the row the transaction reads and records that row as `before`', () => {
    const file = path.join(tempDir(), 'wapii.db');
    const [a, b] = [open(file), open(file)];
    stores.push(a, b);
    const id = a.createDataset(dataset('a'));
    value(b.editSample(id, 's1', (s) => ok({ after: { ...s, task: 'changed by b' }, findings: [] }), { author: 'b', reason: 'r' }));
    value(a.editSample(id, 's1', (s) => ok({ after: { task: s.task, config: s.config, reviewState: 'accepted' }, findings: [] }), { author: 'a', reason: 'r' }));
    const revisions = a.listRevisions(id, 's1');
    expect(revisions.map((r) => [r.author, r.before?.task ?? null, r.after.task, r.after.reviewState])).toEqual([
      ['tester', null, 'one', 'unreviewed'],
      ['b', 'one', 'changed by b', 'unreviewed'],
      ['a', 'changed by b', 'changed by b', 'accepted'],
    ]);
  });

  it('refuses an edit based on a revision someone else has moved past, and writes nothing', () => {
    const file = path.join(tempDir(), 'wapii.db');
    const [a, b] = [open(file), open(file)];
    stores.push(a, b);
    const id = a.createDataset(dataset('a'));
    const base = a.listRevisions(id, 's1').at(-1)!.id;
    const keep = (task: string): SampleChange => (s) => ok({ after: { task, config: s.config, reviewState: s.reviewState }, findings: [] });
    value(b.editSample(id, 's1', keep('by b'), { author: 'ben', reason: 'r', baseRevision: base }));
    const before = JSON.stringify([a.listSamples(id), a.listRevisions(id, 's1')]);
    const stale = a.editSample(id, 's1', keep('by a'), { author: 'ana', reason: 'r', baseRevision: base });
    expect(stale).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(stale.ok ? '' : stale.error.message).toMatch(new RegExp(`^sample s1 was changed by someone else since revision ${base}: edited by ben at \\S+ \\(revision ${base + 2}\\); reload it and edit again$`));
    expect(JSON.stringify([a.listSamples(id), a.listRevisions(id, 's1')])).toBe(before);
    // An undo moves the sample back to an older revision: an edit based on the undone one is stale too.
    value(a.undoLastEdit(id, 's1', () => []));
    expect(a.editSample(id, 's1', keep('x'), { author: 'ana', reason: 'r', baseRevision: base + 2 })).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(value(a.editSample(id, 's1', keep('x'), { author: 'ana', reason: 'r', baseRevision: base })).task).toBe('x');
  });

  it('allocates a dataset name inside the insert transaction: a taken name gets the next free one', () => {
    const file = path.join(tempDir(), 'wapii.db');
    const [a, b] = [open(file), open(file)];
    stores.push(a, b);
    const wanted = a.freeDatasetName('a');
    b.createDataset(dataset('a')); // another process lands first
    a.createDataset(dataset(wanted));
    expect(a.listDatasets().map((d) => d.name)).toEqual(['a', 'a (2)']);
  });

  it('creates the database and its folder owner-only, the -wal and -shm files too', () => {
    const dir = path.join(tempDir(), 'data', 'wapii-workbench');
    const file = path.join(dir, 'wapii.db');
    const store = open(file);
    stores.push(store);
    store.createDataset(dataset('a'));
    const mode = (f: string): string => (fs.statSync(f).mode & 0o777).toString(8);
    expect([dir, file, `${file}-wal`, `${file}-shm`].map(mode)).toEqual(['700', '600', '600', '600']);
  });
});
