import fs from 'node:fs';
import path from 'node:path';
import { sha256File } from './runtime.js';

/**
 * What says a file is unchanged, as git's index records it: size and mtime alone are restored by
 * `cp -p`, `rsync -t` and `tar`, but the ctime (set by the kernel on every write or utimes, never
 * by the user) and the inode (a copied or replaced file gets a new one) are not.
 */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  /** Decimal text: inode numbers may exceed 2^53. */
  readonly ino: string;
}

/** Where hashes are remembered (the workbench database's file_hashes table). */
export interface HashStore {
  cachedHash(file: string, stamp: FileStamp): string | undefined;
  putHash(file: string, stamp: FileStamp, sha256: string): void;
}

/** The stamp of a file as it is now. */
export function fileStamp(file: string): FileStamp {
  const stat = fs.statSync(file, { bigint: true });
  return { size: Number(stat.size), mtimeMs: Number(stat.mtimeNs) / 1e6, ctimeMs: Number(stat.ctimeNs) / 1e6, ino: stat.ino.toString() };
}

/**
 * A file's sha-256, hashed once per path and stamp: a multi-GB model is read in full the first
 * time only, and again only when the file changes.
 */
export function cachedSha256(file: string, store: HashStore): string {
  const resolved = path.resolve(file);
  const stamp = fileStamp(resolved);
  const known = store.cachedHash(resolved, stamp);
  if (known) return known;
  const hash = sha256File(resolved);
  // Stamped as it was before the read: a write during the hash changes the ctime, so it is hashed again next time.
  store.putHash(resolved, stamp, hash);
  return hash;
}
