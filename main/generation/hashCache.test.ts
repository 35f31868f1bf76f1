import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/paths.js';
import { Store } from '../store/index.js';
import { ModelRepository } from '../store/models.js';
import { cachedSha256, type HashStore } from './hashCache.js';
import { sha256File } from './runtime.js';

describe('the model hash cache', () => {
  const open = (): { hashes: ModelRepository; file: string; dir: string; close: () => void } => {
    const dir = tempDir();
    const opened = Store.open(path.join(dir, 'w.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    return { hashes: new ModelRepository(opened.value), file: path.join(dir, 'model.gguf'), dir, close: () => opened.value.close() };
  };
  /** The store, counting the hashes it is given: a put means the file was read again. */
  const counting = (store: HashStore): HashStore & { puts: number } => {
    const counted = { puts: 0, cachedHash: store.cachedHash.bind(store), putHash: (...args: Parameters<HashStore['putHash']>) => (counted.puts++, store.putHash(...args)) };
    return counted;
  };
  const mtime = new Date('2026-01-01T00:00:00Z');

  it('hashes an unchanged file once, and again when it is rewritten or touched', () => {
    const { hashes, file, close } = open();
    const store = counting(hashes);
    fs.writeFileSync(file, 'GGUF first version');
    const first = cachedSha256(file, store);
    expect(first).toBe(sha256File(file));
    expect(cachedSha256(file, store)).toBe(first);
    expect(store.puts).toBe(1);
    const later = new Date(mtime.getTime() + 5000);
    fs.utimesSync(file, later, later);
    expect(cachedSha256(file, store)).toBe(first);
    expect(store.puts).toBe(2);
    close();
  });

  it('does not trust a file whose size and mtime were restored after a change (cp -p, rsync -t, tar): ctime and inode differ', () => {
    const { hashes, file, dir, close } = open();
    fs.writeFileSync(file, 'GGUF first version');
    fs.utimesSync(file, mtime, mtime);
    const first = cachedSha256(file, hashes);
    // Rewritten in place, same size, mtime put back: only the ctime tells.
    fs.writeFileSync(file, 'GGUF other version');
    fs.utimesSync(file, mtime, mtime);
    expect(cachedSha256(file, hashes)).toBe(sha256File(file));
    expect(cachedSha256(file, hashes)).not.toBe(first);
    // Replaced by another file with the same size and mtime (a copy with -p, then renamed over it): a new inode.
    const copy = path.join(dir, 'copy.gguf');
    fs.writeFileSync(copy, 'GGUF third version');
    fs.utimesSync(copy, mtime, mtime);
    fs.renameSync(copy, file);
    expect(cachedSha256(file, hashes)).toBe(sha256File(file));
    expect(sha256File(file)).not.toBe(first);
    close();
  });
});
