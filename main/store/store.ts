import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fail, ok, WapiiError, type Result } from '../api/result.js';
import {
  RequestConfigSchema,
  type CheckStatus,
  type DatasetSummary,
  type Finding,
  type RequestConfig,
  type ReviewState,
  type Revision,
  type Sample,
  type SampleFields,
  type SourceNotes,
} from '../api/schemas.js';
import { MIGRATIONS } from './migrations.js';
import { SynthesisRepository } from './synthesis.js';

export interface StoredSpec {
  readonly hash: string;
  readonly filename: string;
  readonly title: string;
  readonly content: string;
}

export interface NewSample {
  readonly id: string;
  readonly api: string;
  readonly task: string;
  readonly config: RequestConfig;
  readonly source: SourceNotes;
  readonly findings: readonly Finding[];
  /** The sample's other fields from its file (the real-world dataset's), kept verbatim. */
  readonly fields?: SampleFields;
}

export interface NewDataset {
  /** The wanted name; when taken, the first free `name (2)`, `name (3)`, ... is used. */
  readonly name: string;
  readonly source: string;
  readonly apis: readonly { api: string; spec: Omit<StoredSpec, 'hash'> }[];
  readonly samples: readonly NewSample[];
  readonly author: string;
}

export interface RunSampleRecord {
  readonly index: number;
  /** Which of the n outputs per sample (0 when there is one). */
  readonly attempt?: number;
  readonly api: string;
  readonly code: string;
  readonly prompt?: string | undefined;
  readonly rawOutput?: string | undefined;
  readonly generation?: unknown;
  readonly error?: string | undefined;
  readonly request?: unknown;
  readonly verdict: unknown;
  readonly extraction: unknown;
  readonly execution?: unknown;
  readonly durationMs?: number | undefined;
  /** The failure classes of the scorer's verdict (main/scoring/taxonomy.ts); undefined: not classified. */
  readonly failures?: readonly string[] | undefined;
}

export interface NewRun {
  readonly kind: 'imported codes' | 'generation';
  readonly dataset: string;
  readonly settings: Record<string, unknown>;
  readonly statistics: unknown;
  readonly samples: readonly RunSampleRecord[];
}

export interface StoredRun extends Omit<NewRun, 'kind'> {
  readonly id: number;
  readonly kind: string;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly status: 'running' | 'finished';
  readonly manifest: unknown;
}

export interface RunSummary {
  readonly id: number;
  readonly kind: string;
  readonly status: string;
  readonly createdAt: string;
  readonly finishedAt: string | null;
  readonly dataset: string;
  readonly samples: number;
}

/** The editable part of a sample; a revision records it before and after. */
export interface SampleState {
  readonly task: string;
  readonly config: RequestConfig;
  readonly reviewState: ReviewState;
  /**
   * The sample's other fields (starter code, definitions, ...), where the edit changes them; a
   * state without them leaves the sample's fields as they are.
   */
  readonly fields?: SampleFields | undefined;
}

export interface EditMeta {
  readonly author: string;
  readonly reason: string;
  /**
   * The revision the edit was based on (the sample's newest revision that is not undone, as the
   * editor saw it). When given and the sample has moved on since, the edit is refused as a
   * conflict instead of overwriting what someone else changed.
   */
  readonly baseRevision?: number | undefined;
}

/**
 * What an edit makes of the sample as it is: called inside the write transaction with the row
 * read there, so no other process's change can slip in between the read and the write.
 */
export type SampleChange = (current: Sample) => Result<{ after: SampleState; findings: readonly Finding[] }>;

interface SampleRow {
  dataset_id: number;
  id: string;
  position: number;
  api: string;
  task: string;
  config: string;
  review_state: ReviewState;
  source: string;
  findings: string;
  check_status: CheckStatus;
  updated_at: string;
  fields: string | null;
}

interface RevisionRow {
  id: number;
  sample_id: string;
  author: string;
  at: string;
  reason: string;
  before: string | null;
  after: string;
  undone: number;
}

const now = (): string => new Date().toISOString();
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

function toSample(row: SampleRow): Sample {
  return {
    id: row.id,
    datasetId: row.dataset_id,
    position: row.position,
    api: row.api,
    task: row.task,
    config: RequestConfigSchema.parse(JSON.parse(row.config)),
    reviewState: row.review_state,
    source: JSON.parse(row.source) as SourceNotes,
    findings: JSON.parse(row.findings) as Finding[],
    checkStatus: row.check_status,
    updatedAt: row.updated_at,
    ...(row.fields !== null ? { fields: JSON.parse(row.fields) as SampleFields } : {}),
  };
}

function toRevision(row: RevisionRow): Revision {
  return {
    id: row.id,
    sampleId: row.sample_id,
    author: row.author,
    at: row.at,
    reason: row.reason,
    before: row.before === null ? null : (JSON.parse(row.before) as SampleState),
    after: JSON.parse(row.after) as SampleState,
    undone: row.undone === 1,
  };
}

/**
 * How long a write waits for another process's write transaction (an import, a run storing its
 * outputs) before giving up. Write transactions are short; an import of WAPIIBench holds the lock
 * for well under a second, so this only runs out when something is stuck.
 */
export const BUSY_TIMEOUT_MS = 15_000;

const isBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
};

const statusOf = (findings: readonly Finding[]): CheckStatus => (findings.length > 0 ? 'flagged' : 'ok');

/**
 * Retries `step` while SQLite answers SQLITE_BUSY, for up to 5 s. SQLite returns BUSY without
 * calling the busy handler where waiting could deadlock — two connections turning a new file to
 * WAL at once, or a read lock that must become a write lock — so opening a database that another
 * process (a run, the UI polling it) is creating can fail once where a moment later it works.
 */
function whileBusy<T>(step: () => T): T {
  const deadline = Date.now() + 5000;
  for (;;) {
    try {
      return step();
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
}

/**
 * Creates the database's folder (0700) and file (0600) owner-only before SQLite opens it: SQLite
 * would create the file 0644, and it gives the -wal and -shm files the mode of the database file.
 * An existing file or folder keeps its mode.
 */
function createOwnerOnly(file: string): void {
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true, mode: 0o700 });
  try {
    fs.closeSync(fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/**
 * What PRAGMA quick_check finds wrong (a page that is not a valid b-tree, a row out of order), in
 * one line, or undefined when the file is sound. O(size) but without checking index contents, so
 * a damaged file is named at open instead of failing later writes one by one.
 */
function quickCheck(db: Database.Database): string | undefined {
  const rows = (db.pragma('quick_check(100)') as { quick_check: string }[]).map((r) => r.quick_check);
  if (rows.length === 1 && rows[0] === 'ok') return undefined;
  // A row may hold several problems on lines of their own, under a "*** in database main ***" heading.
  const problems = rows.flatMap((r) => r.split('\n')).map((l) => l.trim()).filter((l) => l !== '' && !/^\*\*\* in database/.test(l));
  const first = problems[0] ?? 'damaged';
  return problems.length > 1 ? `${first} (and ${problems.length - 1} more ${problems.length === 2 ? 'problem' : 'problems'} PRAGMA quick_check found)` : first;
}

/**
 * Why the database file cannot be written (the access error: EACCES, EROFS), or undefined when it
 * can. SQLite opens such a file read-only without a word, and every write then fails; asking the
 * file system takes no lock, where a trial write would wait behind another process's transaction.
 */
function notWritable(file: string): string | undefined {
  if (file === ':memory:' || file === '') return undefined;
  try {
    fs.accessSync(file, fs.constants.W_OK);
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
}

/**
 * The workbench database: the only place SQL lives. WAL mode, foreign keys on, migrations
 * applied on open; every multi-row write is one transaction.
 */
export class Store implements Disposable {
  private readonly db: Database.Database;
  private disposed = false;

  private constructor(db: Database.Database) {
    this.db = db;
  }

  static open(file: string): Result<Store> {
    try {
      if (file !== ':memory:' && file !== '') createOwnerOnly(file);
      const db = new Database(file);
      try {
        db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
        whileBusy(() => db.pragma('journal_mode = WAL'));
        db.pragma('foreign_keys = ON');
        const damage = quickCheck(db);
        if (damage) {
          db.close();
          return fail('bad_input', `database ${file} is damaged: ${damage}; restore a backup, or recover what is left with: sqlite3 ${file} .recover | sqlite3 recovered.db`);
        }
        const store = new Store(db);
        whileBusy(() => store.migrate());
        // SQLite opens a file it cannot write read-only without a word; every write would then fail. Say so now.
        const readOnly = notWritable(file);
        if (readOnly) {
          db.close();
          return fail('bad_input', `database ${file} is read-only (${readOnly}): the workbench writes to it; check the permissions of the file and its folder, or use another file with --db`);
        }
        return ok(store);
      } catch (error) {
        db.close();
        throw error;
      }
    } catch (error) {
      return fail('bad_input', `cannot open database ${file}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }

  /**
   * Brings the schema up to date in one write transaction taken before the version is read
   * (BEGIN IMMEDIATE), so processes opening the same new file at once (a run and the UI polling
   * it) migrate it once, one after the other.
   */
  private migrate(): void {
    if ((this.db.pragma('user_version', { simple: true }) as number) === MIGRATIONS.length) return;
    this.db
      .transaction(() => {
        const version = this.db.pragma('user_version', { simple: true }) as number;
        if (version > MIGRATIONS.length) {
          throw new Error(`database schema version ${version} is newer than this workbench (${MIGRATIONS.length}); update the workbench`);
        }
        for (let v = version; v < MIGRATIONS.length; v++) this.db.exec(MIGRATIONS[v] ?? '');
        this.db.pragma(`user_version = ${MIGRATIONS.length}`);
      })
      .immediate();
  }

  private synthesisRepository: SynthesisRepository | undefined;
  /** Synthesis jobs and the provenance of synthesized samples (main/store/synthesis.ts). */
  get synthesis(): SynthesisRepository {
    return (this.synthesisRepository ??= new SynthesisRepository(this.handle));
  }

  private get handle(): Database.Database {
    if (this.disposed) throw new Error('bug: store used after dispose');
    return this.db;
  }

  [Symbol.dispose](): void {
    this.close();
  }

  close(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.db.close();
  }

  /** The connection, for the repositories beside this file (runs.ts, models.ts); SQL stays in main/store. */
  get connection(): Database.Database {
    return this.handle;
  }

  /**
   * Runs a function in one write transaction, begun IMMEDIATE: the write lock is taken before the
   * first read, so a transaction that reads and then writes waits its turn (busy timeout) instead
   * of failing with "database is locked" when another process wrote in between — SQLite cannot
   * wait when a read transaction must become a write transaction.
   */
  transaction<T>(fn: () => T): T {
    try {
      return this.handle.transaction(fn).immediate();
    } catch (error) {
      if (isBusy(error)) {
        throw new WapiiError('conflict', `the database is busy: another process has held its write lock for over ${BUSY_TIMEOUT_MS / 1000} s; try again`);
      }
      throw error;
    }
  }

  /**
   * Runs reads in one read transaction: they see one snapshot of the database, whatever other
   * processes commit meanwhile (WAL), and take no write lock.
   */
  snapshot<T>(fn: () => T): T {
    return this.handle.transaction(fn).deferred();
  }

  integrityCheck(): string {
    return String(this.handle.pragma('integrity_check', { simple: true }));
  }

  // --- specs -------------------------------------------------------------------------------

  /** Stores a spec content-addressed; the same text is stored once. */
  putSpec(spec: Omit<StoredSpec, 'hash'>): string {
    const hash = sha256(spec.content);
    this.handle
      .prepare('INSERT OR IGNORE INTO specs (hash, filename, title, content, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(hash, spec.filename, spec.title, spec.content, now());
    return hash;
  }

  getSpec(hash: string): StoredSpec | undefined {
    return this.handle.prepare('SELECT hash, filename, title, content FROM specs WHERE hash = ?').get(hash) as StoredSpec | undefined;
  }

  /** The spec hash of each API of a dataset. */
  datasetApis(datasetId: number): Map<string, string> {
    const rows = this.handle.prepare('SELECT api, spec_hash FROM dataset_apis WHERE dataset_id = ?').all(datasetId) as { api: string; spec_hash: string }[];
    return new Map(rows.map((r) => [r.api, r.spec_hash]));
  }

  // --- datasets ------------------------------------------------------------------------------

  /** A name not yet taken: `name`, else `name (2)`, `name (3)`, ... */
  freeDatasetName(name: string): string {
    const taken = this.handle.prepare('SELECT 1 FROM datasets WHERE name = ?');
    if (!taken.get(name)) return name;
    for (let i = 2; ; i++) if (!taken.get(`${name} (${i})`)) return `${name} (${i})`;
  }

  /** Stores a dataset whole, under `input.name` or the first free name after it (chosen in the same transaction, so simultaneous imports of one name both land). */
  createDataset(input: NewDataset): number {
    const db = this.handle;
    return this.transaction(() => {
      const at = now();
      const name = this.freeDatasetName(input.name);
      const datasetId = Number(db.prepare('INSERT INTO datasets (name, source, created_at) VALUES (?, ?, ?)').run(name, input.source, at).lastInsertRowid);
      const addApi = db.prepare('INSERT INTO dataset_apis (dataset_id, api, spec_hash) VALUES (?, ?, ?)');
      for (const { api, spec } of input.apis) addApi.run(datasetId, api, this.putSpec(spec));
      const addSample = db.prepare(
        `INSERT INTO samples (dataset_id, id, position, api, task, config, source, findings, check_status, updated_at, fields)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const addRevision = db.prepare('INSERT INTO revisions (dataset_id, sample_id, author, at, reason, before, after) VALUES (?, ?, ?, ?, ?, NULL, ?)');
      const reason = `imported from ${input.source}`;
      input.samples.forEach((s, position) => {
        addSample.run(datasetId, s.id, position, s.api, s.task, JSON.stringify(s.config), JSON.stringify(s.source), JSON.stringify(s.findings), statusOf(s.findings), at, s.fields ? JSON.stringify(s.fields) : null);
        const after: SampleState = { task: s.task, config: s.config, reviewState: 'unreviewed', ...(s.fields ? { fields: s.fields } : {}) };
        addRevision.run(datasetId, s.id, input.author, at, reason, JSON.stringify(after));
      });
      return datasetId;
    });
  }

  listDatasets(): DatasetSummary[] {
    const db = this.handle;
    const rows = db
      .prepare(
        `SELECT d.id, d.name, d.created_at AS createdAt,
                (SELECT COUNT(*) FROM samples s WHERE s.dataset_id = d.id) AS sampleCount,
                (SELECT COUNT(*) FROM samples s WHERE s.dataset_id = d.id AND s.check_status = 'flagged') AS flaggedCount,
                (SELECT COUNT(*) FROM samples s WHERE s.dataset_id = d.id AND json_type(s.fields, '$.starter_code') = 'text') AS starterCount
         FROM datasets d ORDER BY d.id`,
      )
      .all() as (Omit<DatasetSummary, 'apis' | 'starterCount'> & { starterCount: number })[];
    const apis = db.prepare(
      `SELECT a.api, a.spec_hash AS specHash, sp.title AS specTitle,
              (SELECT COUNT(*) FROM samples s WHERE s.dataset_id = a.dataset_id AND s.api = a.api) AS samples
       FROM dataset_apis a JOIN specs sp ON sp.hash = a.spec_hash WHERE a.dataset_id = ? ORDER BY a.api`,
    );
    // starterCount only where there are such samples: other datasets' summaries stay as they were.
    return rows.map(({ starterCount, ...r }) => ({ ...r, ...(starterCount > 0 ? { starterCount } : {}), apis: apis.all(r.id) as DatasetSummary['apis'] }));
  }

  /** A dataset by id (digits) or exact name. */
  findDataset(ref: string | number): DatasetSummary | undefined {
    const all = this.listDatasets();
    return typeof ref === 'number' || /^\d+$/.test(ref) ? all.find((d) => d.id === Number(ref)) : all.find((d) => d.name === ref);
  }

  // --- samples -------------------------------------------------------------------------------

  listSamples(datasetId: number): Sample[] {
    const rows = this.handle.prepare('SELECT * FROM samples WHERE dataset_id = ? ORDER BY position').all(datasetId) as SampleRow[];
    return rows.map(toSample);
  }

  getSample(datasetId: number, sampleId: string): Sample | undefined {
    const row = this.handle.prepare('SELECT * FROM samples WHERE dataset_id = ? AND id = ?').get(datasetId, sampleId) as SampleRow | undefined;
    return row ? toSample(row) : undefined;
  }

  listRevisions(datasetId: number, sampleId: string): Revision[] {
    const rows = this.handle
      .prepare('SELECT * FROM revisions WHERE dataset_id = ? AND sample_id = ? ORDER BY id')
      .all(datasetId, sampleId) as RevisionRow[];
    return rows.map(toRevision);
  }

  private writeState(datasetId: number, sampleId: string, state: SampleState, findings: readonly Finding[]): void {
    this.handle
      .prepare('UPDATE samples SET task = ?, config = ?, review_state = ?, findings = ?, check_status = ?, updated_at = ? WHERE dataset_id = ? AND id = ?')
      .run(state.task, JSON.stringify(state.config), state.reviewState, JSON.stringify(findings), statusOf(findings), now(), datasetId, sampleId);
    if (state.fields !== undefined) {
      const fields = Object.keys(state.fields).length > 0 ? JSON.stringify(state.fields) : null;
      this.handle.prepare('UPDATE samples SET fields = ? WHERE dataset_id = ? AND id = ?').run(fields, datasetId, sampleId);
    }
  }

  /** The sample's newest revision that is not undone: the one whose `after` is its current state. */
  private currentRevision(datasetId: number, sampleId: string): RevisionRow | undefined {
    return this.handle
      .prepare('SELECT * FROM revisions WHERE dataset_id = ? AND sample_id = ? AND undone = 0 ORDER BY id DESC LIMIT 1')
      .get(datasetId, sampleId) as RevisionRow | undefined;
  }

  /**
   * Applies an edit and records it as a revision, in one write transaction: `change` sees the row
   * as it is inside the transaction, and the revision's `before` is that row.
   */
  editSample(datasetId: number, sampleId: string, change: SampleChange, meta: EditMeta): Result<Sample> {
    return this.transaction(() => {
      const current = this.getSample(datasetId, sampleId);
      if (!current) return fail<Sample>('not_found', `sample ${sampleId} does not exist in dataset ${datasetId}`);
      if (meta.baseRevision !== undefined) {
        const head = this.currentRevision(datasetId, sampleId);
        if (head && head.id !== meta.baseRevision) {
          const what = head.id > meta.baseRevision ? `edited by ${head.author} at ${head.at} (revision ${head.id})` : `an edit was undone (now at revision ${head.id})`;
          return fail<Sample>('conflict', `sample ${sampleId} was changed by someone else since revision ${meta.baseRevision}: ${what}; reload it and edit again`);
        }
      }
      const changed = change(current);
      if (!changed.ok) return changed;
      const { after, findings } = changed.value;
      // An edit of the fields records them before too, so undo restores them.
      const before: SampleState = { task: current.task, config: current.config, reviewState: current.reviewState, ...(after.fields !== undefined ? { fields: current.fields ?? {} } : {}) };
      this.handle
        .prepare('INSERT INTO revisions (dataset_id, sample_id, author, at, reason, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(datasetId, sampleId, meta.author, now(), meta.reason, JSON.stringify(before), JSON.stringify(after));
      this.writeState(datasetId, sampleId, after, findings);
      return ok(this.getSample(datasetId, sampleId) as Sample);
    });
  }

  /** The latest edit that can be undone (not the import, not already undone). */
  lastUndoable(datasetId: number, sampleId: string): Revision | undefined {
    return this.listRevisions(datasetId, sampleId)
      .reverse()
      .find((r) => !r.undone && r.before !== null);
  }

  /**
   * Undoes the sample's latest edit: restores the state before it and marks it undone, choosing
   * the edit inside the write transaction, so two undos at once undo two edits, not one twice.
   */
  undoLastEdit(datasetId: number, sampleId: string, findingsOf: (state: SampleState) => readonly Finding[]): Result<Sample> {
    return this.transaction(() => {
      const revision = this.lastUndoable(datasetId, sampleId);
      if (!revision?.before) return fail<Sample>('conflict', `sample ${sampleId} has no edit to undo`);
      this.handle.prepare('UPDATE revisions SET undone = 1 WHERE id = ?').run(revision.id);
      this.writeState(datasetId, sampleId, revision.before, findingsOf(revision.before));
      return ok(this.getSample(datasetId, sampleId) as Sample);
    });
  }

  /** Replaces the findings of many samples (after the checks changed), in one transaction. */
  setFindings(datasetId: number, findings: ReadonlyMap<string, readonly Finding[]>): void {
    const update = this.handle.prepare('UPDATE samples SET findings = ?, check_status = ? WHERE dataset_id = ? AND id = ?');
    this.transaction(() => {
      for (const [id, f] of findings) update.run(JSON.stringify(f), statusOf(f), datasetId, id);
    });
  }

  // --- runs ----------------------------------------------------------------------------------

  /** Stores a finished run with every sample's code, request, verdicts and timing, in one transaction. */
  saveRun(run: NewRun): number {
    return this.transaction(() => {
      const id = this.startRun({ kind: run.kind, dataset: run.dataset, settings: run.settings, manifest: null });
      for (const s of run.samples) this.addRunSample(id, s);
      this.finishRun(id, run.statistics);
      return id;
    });
  }

  /** Opens a run that is written sample by sample (status 'running' until `finishRun`). */
  startRun(run: { kind: NewRun['kind']; dataset: string; settings: Record<string, unknown>; manifest: unknown }): number {
    const result = this.handle
      .prepare("INSERT INTO runs (kind, created_at, dataset, settings, status, manifest, owner_pid) VALUES (?, ?, ?, ?, 'running', ?, ?)")
      .run(run.kind, now(), run.dataset, JSON.stringify(run.settings), JSON.stringify(run.manifest), process.pid);
    return Number(result.lastInsertRowid);
  }

  /**
   * Stores one finished sample of a run, replacing an earlier attempt at it (a retried error).
   * One statement, committed at once: a crash afterwards never loses it.
   */
  addRunSample(runId: number, s: RunSampleRecord): void {
    const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
    this.handle
      .prepare(
        `INSERT OR REPLACE INTO run_samples (run_id, sample_index, attempt, api, code, request, verdict, extraction, execution, duration_ms, prompt, raw_output, generation, error, failures)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(runId, s.index, s.attempt ?? 0, s.api, s.code, json(s.request), JSON.stringify(s.verdict), JSON.stringify(s.extraction), json(s.execution), s.durationMs ?? null, s.prompt ?? null, s.rawOutput ?? null, json(s.generation), s.error ?? null, json(s.failures));
  }

  finishRun(runId: number, statistics: unknown): void {
    this.handle.prepare("UPDATE runs SET status = 'finished', finished_at = ?, statistics = ? WHERE id = ?").run(now(), JSON.stringify(statistics), runId);
  }

  listRuns(): RunSummary[] {
    const rows = this.handle
      .prepare('SELECT r.id, r.kind, r.status, r.created_at, r.finished_at, r.dataset, (SELECT COUNT(*) FROM run_samples s WHERE s.run_id = r.id) AS samples FROM runs r ORDER BY r.id')
      .all() as { id: number; kind: string; status: string; created_at: string; finished_at: string | null; dataset: string; samples: number }[];
    return rows.map((r) => ({ id: r.id, kind: r.kind, status: r.status, createdAt: r.created_at, finishedAt: r.finished_at, dataset: r.dataset, samples: r.samples }));
  }

  getRun(id: number): StoredRun | undefined {
    const row = this.handle.prepare('SELECT * FROM runs WHERE id = ?').get(id) as
      | { id: number; kind: string; created_at: string; finished_at: string | null; dataset: string; settings: string; statistics: string | null; status: 'running' | 'finished'; manifest: string | null }
      | undefined;
    if (!row) return undefined;
    const samples = this.handle.prepare('SELECT * FROM run_samples WHERE run_id = ? ORDER BY sample_index, attempt').all(id) as {
      sample_index: number;
      attempt: number;
      api: string;
      code: string;
      request: string | null;
      verdict: string;
      extraction: string;
      execution: string | null;
      duration_ms: number | null;
      prompt: string | null;
      raw_output: string | null;
      generation: string | null;
      error: string | null;
      failures: string | null;
    }[];
    return {
      id: row.id,
      kind: row.kind,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
      dataset: row.dataset,
      settings: JSON.parse(row.settings) as Record<string, unknown>,
      statistics: row.statistics === null ? null : (JSON.parse(row.statistics) as unknown),
      status: row.status,
      manifest: row.manifest === null ? null : (JSON.parse(row.manifest) as unknown),
      samples: samples.map((s) => ({
        index: s.sample_index,
        attempt: s.attempt,
        api: s.api,
        code: s.code,
        request: s.request === null ? undefined : (JSON.parse(s.request) as unknown),
        verdict: JSON.parse(s.verdict) as unknown,
        extraction: JSON.parse(s.extraction) as unknown,
        execution: s.execution === null ? undefined : (JSON.parse(s.execution) as unknown),
        durationMs: s.duration_ms ?? undefined,
        prompt: s.prompt ?? undefined,
        rawOutput: s.raw_output ?? undefined,
        generation: s.generation === null ? undefined : (JSON.parse(s.generation) as unknown),
        error: s.error ?? undefined,
        failures: s.failures === null ? undefined : (JSON.parse(s.failures) as string[]),
      })),
    };
  }

  /** Row counts per table, for tests that assert nothing was written. */
  counts(): Record<string, number> {
    const tables = ['specs', 'datasets', 'dataset_apis', 'samples', 'revisions', 'runs', 'run_samples'];
    return Object.fromEntries(tables.map((t) => [t, (this.handle.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n]));
  }
}
