import type { Setup } from '../api/setup.js';
import type Database from 'better-sqlite3';
import type { RequestConfig, SampleFields } from '../api/schemas.js';
import type { Store } from './store.js';

/** A sample exactly as a run took it: later edits of the dataset never change it. */
export interface RunInput {
  readonly index: number;
  readonly sampleId: string | null;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
  readonly specHash: string | null;
  readonly contentHash: string;
  /** The API knowledge lines the run's knowledge condition put in this sample's prompt (none: absent). */
  readonly knowledge?: readonly string[];
  /** The sample's other fields (a real-world sample's starter code, definitions, ...), as the run saw them. */
  readonly fields?: SampleFields;
  /** How the run gave the sample to the model, taken with the snapshot (absent in runs stored before). */
  readonly setup?: Setup;
}

export type StoredRunStatus = 'queued' | 'running' | 'finished' | 'cancelled' | 'interrupted' | 'failed';

export interface RunRow {
  readonly id: number;
  readonly kind: string;
  readonly status: StoredRunStatus;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly dataset: string;
  readonly datasetId: number | null;
  readonly settings: Record<string, unknown>;
  readonly manifest: Record<string, unknown> | null;
  readonly statistics: { statistics?: Record<string, unknown>; per_api?: Record<string, unknown> } | null;
  /** `provider`: a hosted model or key-carrying server (main/generation/providers): its settings, never a key. */
  readonly model: { modelId?: number; name: string; path?: string; remote?: string; provider?: { name: string; model: string; baseUrl?: string; pool?: string[]; batch?: boolean; concurrency?: number; spendingCapUsd?: number } } | null;
  readonly subset: Record<string, unknown> | null;
  readonly ownerPid: number | null;
  readonly error: string | null;
  readonly demo: boolean;
  readonly total: number | null;
  /** Outputs stored. */
  readonly done: number;
  readonly overridden: number;
}

/** One stored output, its JSON left as text until a caller needs it. */
export interface OutputRow {
  readonly sample_index: number;
  readonly attempt: number;
  readonly api: string;
  readonly code: string;
  readonly request: string | null;
  readonly verdict: string;
  readonly extraction: string;
  readonly execution: string | null;
  readonly duration_ms: number | null;
  readonly prompt: string | null;
  readonly raw_output: string | null;
  readonly generation: string | null;
  readonly error: string | null;
  /** JSON FailureClass[] of the scorer's verdict; null until classified (outputs stored before migration 6). */
  readonly failures: string | null;
}

export interface OverrideRow {
  readonly id: number;
  readonly sampleIndex: number;
  readonly attempt: number;
  readonly at: string;
  readonly author: string;
  readonly reason: string;
  readonly from: string;
  readonly to: string | null;
}

export interface NewStoredRun {
  readonly kind: 'imported codes' | 'generation';
  readonly status: StoredRunStatus;
  readonly dataset: string;
  readonly datasetId: number | null;
  readonly settings: Record<string, unknown>;
  readonly manifest: Record<string, unknown> | null;
  readonly model: RunRow['model'];
  readonly subset: Record<string, unknown> | null;
  readonly total: number;
  readonly demo?: boolean;
  readonly ownerPid: number | null;
  readonly inputs: readonly RunInput[];
}

interface RawRun {
  id: number;
  kind: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  dataset: string;
  dataset_id: number | null;
  settings: string;
  manifest: string | null;
  statistics: string | null;
  model: string | null;
  subset: string | null;
  owner_pid: number | null;
  error: string | null;
  demo: number;
  total: number | null;
  done: number;
  overridden: number;
}

const parse = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));
const now = (): string => new Date().toISOString();

function toRun(r: RawRun): RunRow {
  return {
    id: r.id,
    kind: r.kind,
    status: r.status as StoredRunStatus,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    dataset: r.dataset,
    datasetId: r.dataset_id,
    settings: JSON.parse(r.settings) as Record<string, unknown>,
    manifest: parse(r.manifest),
    statistics: parse(r.statistics),
    model: parse(r.model),
    subset: parse(r.subset),
    ownerPid: r.owner_pid,
    error: r.error,
    demo: r.demo === 1,
    total: r.total,
    done: r.done,
    overridden: r.overridden,
  };
}

const RUN_SELECT = `SELECT r.*,
  (SELECT COUNT(*) FROM run_samples s WHERE s.run_id = r.id) AS done,
  (SELECT COUNT(DISTINCT o.sample_index || '.' || o.attempt) FROM run_overrides o WHERE o.run_id = r.id) AS overridden
  FROM runs r`;

/** Runs as the service's jobs and result pages see them: snapshots, status, overrides. */
export class RunRepository {
  private readonly db: Database.Database;

  constructor(private readonly store: Store) {
    this.db = store.connection;
  }

  /** Changes whenever another connection (another process) commits: the service's caches check it. */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  /** Opens a run with its snapshot of samples, in one transaction. */
  create(run: NewStoredRun): number {
    return this.store.transaction(() => {
      const id = Number(
        this.db
          .prepare(
            `INSERT INTO runs (kind, created_at, dataset, settings, status, manifest, dataset_id, model, subset, owner_pid, demo, total)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(run.kind, now(), run.dataset, JSON.stringify(run.settings), run.status, JSON.stringify(run.manifest), run.datasetId, JSON.stringify(run.model), JSON.stringify(run.subset), run.ownerPid, run.demo ? 1 : 0, run.total).lastInsertRowid,
      );
      const add = this.db.prepare('INSERT INTO run_inputs (run_id, sample_index, sample_id, api, task, config, spec_hash, content_hash, knowledge, fields, setup) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
      for (const s of run.inputs) add.run(id, s.index, s.sampleId, s.api, s.task, JSON.stringify(s.config), s.specHash, s.contentHash, s.knowledge && s.knowledge.length > 0 ? JSON.stringify(s.knowledge) : null, s.fields ? JSON.stringify(s.fields) : null, s.setup ? JSON.stringify(s.setup) : null);
      return id;
    });
  }

  get(id: number): RunRow | undefined {
    const row = this.db.prepare(`${RUN_SELECT} WHERE r.id = ?`).get(id) as RawRun | undefined;
    return row ? toRun(row) : undefined;
  }

  list(): RunRow[] {
    return (this.db.prepare(`${RUN_SELECT} ORDER BY r.id`).all() as RawRun[]).map(toRun);
  }

  setStatus(id: number, status: StoredRunStatus, fields: { error?: string | null; ownerPid?: number | null; finished?: boolean } = {}): void {
    this.db
      .prepare(
        `UPDATE runs SET status = ?, error = CASE WHEN ? THEN ? ELSE error END, owner_pid = CASE WHEN ? THEN ? ELSE owner_pid END,
           finished_at = CASE WHEN ? THEN ? ELSE finished_at END WHERE id = ?`,
      )
      .run(status, fields.error !== undefined ? 1 : 0, fields.error ?? null, fields.ownerPid !== undefined ? 1 : 0, fields.ownerPid ?? null, fields.finished ? 1 : 0, now(), id);
  }

  setManifest(id: number, manifest: Record<string, unknown>): void {
    this.db.prepare('UPDATE runs SET manifest = ? WHERE id = ?').run(JSON.stringify(manifest), id);
  }

  setStatistics(id: number, statistics: unknown): void {
    this.db.prepare('UPDATE runs SET statistics = ? WHERE id = ?').run(JSON.stringify(statistics), id);
  }

  delete(id: number): boolean {
    return this.db.prepare('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  /** A run's snapshot, or one sample of it. */
  inputs(runId: number, index?: number): RunInput[] {
    const rows = (
      index === undefined
        ? this.db.prepare('SELECT * FROM run_inputs WHERE run_id = ? ORDER BY sample_index').all(runId)
        : this.db.prepare('SELECT * FROM run_inputs WHERE run_id = ? AND sample_index = ?').all(runId, index)
    ) as {
      sample_index: number;
      sample_id: string | null;
      api: string;
      task: string;
      config: string;
      spec_hash: string | null;
      content_hash: string;
      knowledge: string | null;
      fields: string | null;
      setup: string | null;
    }[];
    return rows.map((r) => ({
      index: r.sample_index,
      sampleId: r.sample_id,
      api: r.api,
      task: r.task,
      config: JSON.parse(r.config) as RequestConfig,
      specHash: r.spec_hash,
      contentHash: r.content_hash,
      ...(r.knowledge !== null ? { knowledge: JSON.parse(r.knowledge) as string[] } : {}),
      ...(r.fields !== null ? { fields: JSON.parse(r.fields) as SampleFields } : {}),
      ...(r.setup !== null ? { setup: JSON.parse(r.setup) as Setup } : {}),
    }));
  }

  input(runId: number, index: number): RunInput | undefined {
    return this.inputs(runId, index)[0];
  }

  /**
   * Per generation run: its model and settings, and what its generated outputs took — their
   * tokens, and their time each divided by the sequences decoded alongside it (`batched`), so
   * parallel outputs are not counted twice. The New run estimate's measured rate reads it.
   */
  outputPace(): { model: RunRow['model']; settings: Record<string, unknown>; outputs: number; tokens: number; wallMs: number }[] {
    const rows = this.db
      .prepare(
        `SELECT r.model AS model, r.settings AS settings, COUNT(*) AS outputs,
                SUM(json_extract(s.generation, '$.tokens')) AS tokens,
                SUM(s.duration_ms / MAX(1.0, COALESCE(json_extract(s.generation, '$.batched'), 1))) AS wall_ms
           FROM run_samples s JOIN runs r ON r.id = s.run_id
          WHERE r.kind = 'generation' AND s.error IS NULL AND s.generation IS NOT NULL AND s.duration_ms > 0 AND json_extract(s.generation, '$.tokens') > 0
          GROUP BY r.id`,
      )
      .all() as { model: string | null; settings: string; outputs: number; tokens: number; wall_ms: number }[];
    return rows.map((r) => ({ model: parse(r.model), settings: JSON.parse(r.settings) as Record<string, unknown>, outputs: r.outputs, tokens: r.tokens, wallMs: r.wall_ms }));
  }

  outputs(runId: number): OutputRow[] {
    return this.db.prepare('SELECT * FROM run_samples WHERE run_id = ? ORDER BY sample_index, attempt').all(runId) as OutputRow[];
  }

  output(runId: number, index: number, attempt: number): OutputRow | undefined {
    return this.db.prepare('SELECT * FROM run_samples WHERE run_id = ? AND sample_index = ? AND attempt = ?').get(runId, index, attempt) as OutputRow | undefined;
  }

  /** Stores the failure classes of outputs classified after they were stored (runs older than migration 6), in one transaction. */
  setFailures(runId: number, classified: readonly { index: number; attempt: number; failures: readonly string[] }[]): void {
    if (classified.length === 0) return;
    const update = this.db.prepare('UPDATE run_samples SET failures = ? WHERE run_id = ? AND sample_index = ? AND attempt = ? AND failures IS NULL');
    this.store.transaction(() => {
      for (const c of classified) update.run(JSON.stringify(c.failures), runId, c.index, c.attempt);
    });
  }

  /** A run's verdict overrides in the order made, or those of one output. */
  overrides(runId: number, output?: { index: number; attempt: number }): OverrideRow[] {
    const select = 'SELECT id, sample_index AS sampleIndex, attempt, at, author, reason, from_verdict AS "from", to_verdict AS "to" FROM run_overrides WHERE run_id = ?';
    return (
      output === undefined
        ? this.db.prepare(`${select} ORDER BY id`).all(runId)
        : this.db.prepare(`${select} AND sample_index = ? AND attempt = ? ORDER BY id`).all(runId, output.index, output.attempt)
    ) as OverrideRow[];
  }

  /**
   * Records an override made on the output as the caller saw it: `seen` is how many overrides it
   * read there (they are only ever added). Checked and written in one write transaction, so of two
   * overrides made at once on one output the second is refused (false) instead of stacking on a
   * state it never saw.
   */
  addOverride(runId: number, o: Omit<OverrideRow, 'id' | 'at'>, seen: number): boolean {
    return this.store.transaction(() => {
      const made = this.db.prepare('SELECT COUNT(*) AS n FROM run_overrides WHERE run_id = ? AND sample_index = ? AND attempt = ?').get(runId, o.sampleIndex, o.attempt) as { n: number };
      if (made.n !== seen) return false;
      this.db
        .prepare('INSERT INTO run_overrides (run_id, sample_index, attempt, at, author, reason, from_verdict, to_verdict) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(runId, o.sampleIndex, o.attempt, now(), o.author, o.reason, o.from, o.to);
      return true;
    });
  }

  /** Runs left queued or running by a process that is gone (the app or `serve` died): they become interrupted. */
  markOrphansInterrupted(isAlive: (pid: number) => boolean): number[] {
    // Read and marked in one write transaction: a run another process resumes meanwhile keeps its status.
    return this.store.transaction(() => {
      const rows = this.db.prepare("SELECT id, owner_pid FROM runs WHERE status IN ('queued', 'running')").all() as { id: number; owner_pid: number | null }[];
      const orphans = rows.filter((r) => r.owner_pid === null || !isAlive(r.owner_pid)).map((r) => r.id);
      const mark = this.db.prepare("UPDATE runs SET status = 'interrupted', owner_pid = NULL, error = COALESCE(error, 'the process running it stopped') WHERE id = ?");
      for (const id of orphans) mark.run(id);
      return orphans;
    });
  }
}
