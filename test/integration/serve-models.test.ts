import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedTestModel } from '../../main/generation/index.js';
import { Store } from '../../main/store/index.js';
import { ModelRepository } from '../../main/store/models.js';
import { writeLyingHeader } from '../support/gguf.js';
import { REPO_ROOT, tempDir } from '../support/paths.js';
import { startServe, type ServeProcess } from '../support/serve.js';

/** One API call to a running serve: the HTTP status and the envelope. */
async function call(serve: ServeProcess, method: string, input: unknown): Promise<{ status: number; body: { ok: boolean; value?: unknown; error?: { code: string; message: string } } }> {
  const res = await fetch(`${serve.url}/api/${method}`, { method: 'POST', headers: { Authorization: `Bearer ${serve.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(input) });
  return { status: res.status, body: (await res.json()) as { ok: boolean; error?: { code: string; message: string } } };
}

/** `wapii serve` on `db` until it exits (it must, here): its exit code and everything it printed. */
function serveUntilExit(db: string, options: { uid?: number } = {}): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'bin', 'wapii.mjs'), '--db', db, 'serve', '--port', '0', '--no-demo'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid !== undefined ? { uid: options.uid, gid: options.uid, env: { ...process.env, HOME: path.dirname(db) } } : {}),
  });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const timer = setTimeout(() => child.kill('SIGTERM'), 60_000);
  return new Promise((resolve) => child.once('exit', (code) => (clearTimeout(timer), resolve({ code, output }))));
}

describe('wapii serve and untrusted model files', () => {
  const dir = tempDir();
  const folder = path.join(dir, 'models');
  let serve: ServeProcess;
  beforeAll(async () => {
    fs.mkdirSync(folder, { recursive: true });
    writeLyingHeader(path.join(folder, 'lying.gguf'));
    fs.copyFileSync(cachedTestModel('llama-spm'), path.join(folder, 'fine.gguf'));
    serve = await startServe(['--db', path.join(dir, 'w.db')], { serveArgs: ['--no-demo', '--models', folder] });
  }, 60_000);
  afterAll(async () => {
    await serve.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers a crafted GGUF (2^40 entries in a 160 MB sparse file) with bad_input in one line, on addModel and on scanModels, and lives on', async () => {
    const added = await call(serve, 'addModel', { path: path.join(folder, 'lying.gguf') });
    expect(added.body).toEqual({ ok: false, error: { code: 'bad_input', message: expect.stringMatching(/^lying\.gguf: cannot read its GGUF header: metadata entry "tokenizer\.ggml\.tokens" declares 1099511627776 items, more than the file's remaining \d+ bytes could hold$/) } });
    const scanned = await call(serve, 'scanModels', {});
    expect(scanned.body.ok).toBe(true);
    const { added: scanAdded, skipped } = scanned.body.value as { added: { name: string }[]; skipped: { path: string; reason: string }[] };
    expect(scanAdded.map((m) => m.name)).toEqual(['fine']);
    expect(skipped).toEqual([{ path: path.join(folder, 'lying.gguf'), reason: expect.stringMatching(/^lying\.gguf: cannot read its GGUF header: metadata entry/) }]);
    expect(serve.child.exitCode).toBeNull();
    expect((await call(serve, 'listModels', {})).body.ok).toBe(true);
  }, 120_000);

  it('answers /proc/self/mem, a FIFO and a folder with bad_input in one line, no stack trace in its log', async () => {
    const fifo = path.join(dir, 'pipe.gguf');
    execFileSync('mkfifo', [fifo]);
    const answers = await Promise.all(['/proc/self/mem', fifo, folder, '/dev/zero'].map((p) => call(serve, 'addModel', { path: p })));
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(Array.from({ length: 4 }, () => [400, 'bad_input']));
    expect(answers.map((a) => a.body.error?.message)).toEqual([
      expect.stringMatching(/^cannot read \/proc\/self\/mem: EIO: i\/o error, read$|^mem is not a GGUF model file/),
      `${fifo} is not a regular file; a model is a .gguf file`,
      `${folder} is not a regular file; a model is a .gguf file`,
      '/dev/zero is not a regular file; a model is a .gguf file',
    ]);
    expect(serve.output()).not.toMatch(/\n\s+at /);
    expect(serve.child.exitCode).toBeNull();
  });
});

describe('wapii serve on a database it cannot use', () => {
  it('a page of the database damaged: says so in one line at start (PRAGMA quick_check) and exits 1', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'w.db');
    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    const models = new ModelRepository(opened.value);
    for (let i = 0; i < 300; i++) models.add({ path: `/m/${i}.gguf`, name: `m${i}`, source: 'test', metadata: { pad: 'x'.repeat(500) } });
    opened.value.close();
    // Garbage over a page header in the middle of the models table: its cells point outside the page.
    const fd = fs.openSync(db, 'r+');
    const size = fs.fstatSync(fd).size;
    const page = Math.floor(size / 4096 / 2) * 4096;
    fs.writeSync(fd, Buffer.alloc(4, 0x5a), 0, 4, page + 8);
    fs.closeSync(fd);
    const { code, output } = await serveUntilExit(db);
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^wapii: database ${db} is damaged: Tree \\d+ page \\d+ cell \\d+: Offset \\d+ out of range [\\d.]+ \\(and \\d+ more problems? PRAGMA quick_check found\\); restore a backup, or recover what is left with: sqlite3 ${db} \\.recover \\| sqlite3 recovered\\.db$`)),
    ]);
  }, 90_000);

  it('a database it cannot write: says so in one line at start instead of answering 500 on every write', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'w.db');
    const opened = Store.open(db);
    if (!opened.ok) throw new Error(opened.error.message);
    opened.value.close();
    // Root writes whatever the mode says: then serve runs as nobody, on a file root owns, in a folder anyone may write (-wal, -shm).
    const asRoot = process.getuid?.() === 0;
    fs.chmodSync(db, 0o444);
    if (asRoot) fs.chmodSync(dir, 0o777);
    const { code, output } = await serveUntilExit(db, asRoot ? { uid: 65534 } : {});
    expect(code).toBe(1);
    expect(output.trim().split('\n')).toEqual([
      `wapii: database ${db} is read-only (EACCES: permission denied, access '${db}'): the workbench writes to it; check the permissions of the file and its folder, or use another file with --db`,
    ]);
  }, 90_000);
});
