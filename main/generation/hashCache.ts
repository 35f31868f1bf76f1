import fs from 'node:fs';
import path from 'node:path';
import { sha256File } from './runtime.js';

/** Where hashes are remembered (the workbench database's file_hashes table). */
export interface HashStore {
  cachedHash(file: string, size: number, mtimeMs: number): string | undefined;
  putHash(file: string, size: number, mtimeMs: number, sha256: string): void;
}

/**
 * A file's sha-256, hashed once per path, size and mtime: a multi-GB model is read in full the
 * first time only, and again only when the file changes.
 */
export function cachedSha256(file: string, store: HashStore): string {
  const resolved = path.resolve(file);
  const stat = fs.statSync(resolved);
  const known = store.cachedHash(resolved, stat.size, stat.mtimeMs);
  if (known) return known;
  const hash = sha256File(resolved);
  store.putHash(resolved, stat.size, stat.mtimeMs, hash);
  return hash;
}
