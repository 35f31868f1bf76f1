import type Database from 'better-sqlite3';
import type { Store } from './store.js';

/** A file's identity as the hash cache keys it (main/generation/hashCache.ts says why each part). */
export interface FileStamp {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: string;
}

export interface ModelRow {
  readonly id: number;
  readonly path: string;
  readonly name: string;
  readonly source: string;
  readonly metadata: Record<string, unknown>;
  readonly addedAt: string;
}

/** The model library and the cache of file hashes (keyed by path, size, mtime, ctime and inode). */
export class ModelRepository {
  private readonly db: Database.Database;

  constructor(store: Store) {
    this.db = store.connection;
  }

  list(): ModelRow[] {
    const rows = this.db.prepare('SELECT id, path, name, source, metadata, added_at FROM models ORDER BY id').all() as { id: number; path: string; name: string; source: string; metadata: string; added_at: string }[];
    return rows.map((r) => ({ id: r.id, path: r.path, name: r.name, source: r.source, metadata: JSON.parse(r.metadata) as Record<string, unknown>, addedAt: r.added_at }));
  }

  get(id: number): ModelRow | undefined {
    return this.list().find((m) => m.id === id);
  }

  byPath(file: string): ModelRow | undefined {
    return this.list().find((m) => m.path === file);
  }

  add(model: Omit<ModelRow, 'id' | 'addedAt'>): number {
    return Number(
      this.db.prepare('INSERT INTO models (path, name, source, metadata, added_at) VALUES (?, ?, ?, ?, ?)').run(model.path, model.name, model.source, JSON.stringify(model.metadata), new Date().toISOString()).lastInsertRowid,
    );
  }

  remove(id: number): boolean {
    return this.db.prepare('DELETE FROM models WHERE id = ?').run(id).changes > 0;
  }

  cachedHash(file: string, stamp: FileStamp): string | undefined {
    const row = this.db.prepare('SELECT sha256 FROM file_hashes WHERE path = ? AND size = ? AND mtime_ms = ? AND ctime_ms = ? AND ino = ?').get(file, stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino) as { sha256: string } | undefined;
    return row?.sha256;
  }

  putHash(file: string, stamp: FileStamp, sha256: string): void {
    this.db.prepare('INSERT OR REPLACE INTO file_hashes (path, size, mtime_ms, ctime_ms, ino, sha256) VALUES (?, ?, ?, ?, ?, ?)').run(file, stamp.size, stamp.mtimeMs, stamp.ctimeMs, stamp.ino, sha256);
  }
}
