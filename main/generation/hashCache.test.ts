import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../test/support/paths.js';
import { Store } from '../store/index.js';
import { ModelRepository } from '../store/models.js';
import { cachedSha256 } from './hashCache.js';
import { sha256File } from './runtime.js';

describe('the model hash cache', () => {
  it('hashes a file once per path, size and mtime, and again when it changes', () => {
    const dir = tempDir();
    const opened = Store.open(path.join(dir, 'w.db'));
    if (!opened.ok) throw new Error(opened.error.message);
    using store = opened.value;
    const hashes = new ModelRepository(store);
    const file = path.join(dir, 'model.gguf');
    const mtime = new Date('2026-01-01T00:00:00Z');
    fs.writeFileSync(file, 'GGUF first version');
    fs.utimesSync(file, mtime, mtime);
    const first = cachedSha256(file, hashes);
    expect(first).toBe(sha256File(file));
    // Same size and mtime, other bytes: the cached hash comes back, proving the file was not read again.
    fs.writeFileSync(file, 'GGUF other version');
    fs.utimesSync(file, mtime, mtime);
    expect(cachedSha256(file, hashes)).toBe(first);
    // A new mtime (the file was replaced) is hashed again.
    const later = new Date(mtime.getTime() + 5000);
    fs.utimesSync(file, later, later);
    expect(cachedSha256(file, hashes)).toBe(sha256File(file));
    expect(cachedSha256(file, hashes)).not.toBe(first);
  });
});
