import type Database from 'better-sqlite3';
import type { Finding, RequestConfig, SampleFields } from '../api/schemas.js';
import type { SampleProvenance, SynthesisEndpoint, SynthesisJob } from '../api/synthesis.js';

type Settings = SynthesisJob['settings'];

export interface NewSynthesisJob {
  readonly datasetId: number;
  readonly provider: SynthesisJob['provider'];
  readonly model: string;
  readonly settings: Settings;
  readonly endpoints: readonly { api: string; endpoint: string }[];
}

export interface StoredAnswer {
  readonly promptHash: string;
  readonly raw: string;
  readonly finish: string;
}

export interface SynthesizedSampleRecord {
  readonly id: string;
  readonly endpoint: string;
  readonly task: string;
  readonly config: RequestConfig;
  readonly findings: readonly Finding[];
  readonly groundTruth: SampleProvenance['groundTruth'];
  /** A multi-step draft's `steps` (scoring.md §7). */
  readonly fields?: SampleFields;
}

interface JobRow {
  id: number;
  dataset_id: number;
  provider: SynthesisJob['provider'];
  model: string;
  settings: string;
  status: 'running' | 'cancelled' | 'finished';
  created_at: string;
  finished_at: string | null;
  input_tokens: number;
  output_tokens: number;
  requests: number;
  retries: number;
  cost_usd: number;
  owner_pid: number | null;
}

const now = (): string => new Date().toISOString();

/** Whether a job stored as running is running: in this process, or in the live process that owns it. */
type Active = (id: number, ownerPid: number | null) => boolean;

/** Synthesis jobs, their endpoints and answers, and the provenance of the samples they stored. Writes begin IMMEDIATE (see Store.transaction). */
export class SynthesisRepository {
  constructor(private readonly db: Database.Database) {}

  createJob(job: NewSynthesisJob): number {
    return this.db.transaction(() => {
      const id = Number(
        this.db
          .prepare("INSERT INTO synthesis_jobs (dataset_id, provider, model, settings, status, created_at, owner_pid) VALUES (?, ?, ?, ?, 'running', ?, ?)")
          .run(job.datasetId, job.provider, job.model, JSON.stringify(job.settings), now(), process.pid).lastInsertRowid,
      );
      const add = this.db.prepare("INSERT INTO synthesis_endpoints (job_id, api, endpoint, status, updated_at) VALUES (?, ?, ?, 'pending', ?)");
      for (const e of job.endpoints) add.run(id, e.api, e.endpoint, now());
      return id;
    }).immediate();
  }

  /**
   * A job as stored; `active` says whether it is running, here or in the process that owns it
   * (else a stored `running` is `interrupted`).
   */
  getJob(id: number, active: Active = () => false): SynthesisJob | undefined {
    const row = this.db.prepare('SELECT * FROM synthesis_jobs WHERE id = ?').get(id) as JobRow | undefined;
    return row ? this.toJob(row, active) : undefined;
  }

  listJobs(datasetId: number | undefined, active: Active = () => false): SynthesisJob[] {
    const rows = (datasetId === undefined ? this.db.prepare('SELECT * FROM synthesis_jobs ORDER BY id').all() : this.db.prepare('SELECT * FROM synthesis_jobs WHERE dataset_id = ? ORDER BY id').all(datasetId)) as JobRow[];
    return rows.map((r) => this.toJob(r, active));
  }

  private toJob(row: JobRow, active: Active): SynthesisJob {
    const endpoints = this.endpointsOf(row.id);
    const count = (status: SynthesisEndpoint['status']): number => endpoints.filter((e) => e.status === status).length;
    // A finished job that stored nothing, every endpoint failed, has failed (read, not stored: the
    // stored status says whether the job ran to its end; what it got decides how it reads).
    const failed = row.status === 'finished' && count('done') === 0 && count('failed') > 0;
    return {
      id: row.id,
      datasetId: row.dataset_id,
      provider: row.provider,
      model: row.model,
      status: row.status === 'running' && !active(row.id, row.owner_pid) ? 'interrupted' : failed ? 'failed' : row.status,
      settings: JSON.parse(row.settings) as Settings,
      createdAt: row.created_at,
      finishedAt: row.finished_at,
      usage: { inputTokens: row.input_tokens, outputTokens: row.output_tokens, requests: row.requests, retries: row.retries },
      costUsd: row.cost_usd,
      counts: { endpoints: endpoints.length, done: count('done'), failed: count('failed'), pending: count('pending'), samples: endpoints.reduce((n, e) => n + e.samples, 0) },
      endpoints,
    };
  }

  private endpointsOf(jobId: number): SynthesisEndpoint[] {
    const rows = this.db
      .prepare(
        `SELECT e.api, e.endpoint, e.status, e.samples, e.failure, e.message, e.attempts, a.raw
         FROM synthesis_endpoints e LEFT JOIN synthesis_answers a ON a.id = e.answer_id AND e.status = 'failed'
         WHERE e.job_id = ? ORDER BY e.rowid`,
      )
      .all(jobId) as { api: string; endpoint: string; status: SynthesisEndpoint['status']; samples: number; failure: string | null; message: string | null; attempts: number; raw: string | null }[];
    return rows.map((r) => ({
      api: r.api,
      endpoint: r.endpoint,
      status: r.status,
      samples: r.samples,
      attempts: r.attempts,
      ...(r.failure ? { failure: r.failure } : {}),
      ...(r.message ? { message: r.message } : {}),
      ...(r.raw !== null ? { rawAnswer: r.raw } : {}),
    }));
  }

  /** The endpoints of a job still to ask for: pending, or failed before (a resume tries them again). */
  openEndpoints(jobId: number): { api: string; endpoint: string }[] {
    return this.db.prepare("SELECT api, endpoint FROM synthesis_endpoints WHERE job_id = ? AND status != 'done' ORDER BY rowid").all(jobId) as { api: string; endpoint: string }[];
  }

  setStatus(jobId: number, status: 'cancelled' | 'finished'): void {
    this.db.prepare('UPDATE synthesis_jobs SET status = ?, finished_at = ?, owner_pid = NULL WHERE id = ?').run(status, now(), jobId);
  }

  /** This process stops running a job it failed to finish: everywhere it reads as interrupted, resumable. */
  release(jobId: number): void {
    this.db.prepare('UPDATE synthesis_jobs SET owner_pid = NULL WHERE id = ? AND owner_pid = ?').run(jobId, process.pid);
  }

  /**
   * Makes this process the one running a job, unless a live other process runs it: read and
   * written in one write transaction, so of two processes resuming a job at once one gets it.
   */
  claim(jobId: number, isAlive: (pid: number) => boolean): { ok: true } | { ok: false; ownerPid: number } {
    return this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT status, owner_pid FROM synthesis_jobs WHERE id = ?').get(jobId) as Pick<JobRow, 'status' | 'owner_pid'> | undefined;
        if (row?.status === 'running' && row.owner_pid !== null && row.owner_pid !== process.pid && isAlive(row.owner_pid)) return { ok: false as const, ownerPid: row.owner_pid };
        this.db.prepare("UPDATE synthesis_jobs SET status = 'running', finished_at = NULL, owner_pid = ? WHERE id = ?").run(process.pid, jobId);
        return { ok: true as const };
      })
      .immediate();
  }

  addUsage(jobId: number, usage: { inputTokens: number; outputTokens: number }, costUsd: number): void {
    this.db
      .prepare('UPDATE synthesis_jobs SET input_tokens = input_tokens + ?, output_tokens = output_tokens + ?, requests = requests + 1, cost_usd = cost_usd + ? WHERE id = ?')
      .run(usage.inputTokens, usage.outputTokens, costUsd, jobId);
  }

  addRetry(jobId: number): void {
    this.db.prepare('UPDATE synthesis_jobs SET retries = retries + 1 WHERE id = ?').run(jobId);
  }

  private addAnswer(jobId: number, answer: StoredAnswer): number {
    return Number(this.db.prepare('INSERT INTO synthesis_answers (job_id, prompt_hash, raw, finish, at) VALUES (?, ?, ?, ?, ?)').run(jobId, answer.promptHash, answer.raw, answer.finish, now()).lastInsertRowid);
  }

  /** Records why some endpoints got no sample, with the answer when there was one; one transaction. */
  recordFailure(jobId: number, api: string, endpoints: readonly string[], failure: { kind: string; message: string }, promptHash: string | undefined, answer: StoredAnswer | undefined): void {
    this.db.transaction(() => {
      const answerId = answer ? this.addAnswer(jobId, answer) : null;
      const update = this.db.prepare(
        "UPDATE synthesis_endpoints SET status = 'failed', failure = ?, message = ?, answer_id = ?, prompt_hash = ?, attempts = attempts + 1, updated_at = ? WHERE job_id = ? AND api = ? AND endpoint = ?",
      );
      for (const e of endpoints) update.run(failure.kind, failure.message, answerId, promptHash ?? null, now(), jobId, api, e);
    }).immediate();
  }

  /**
   * Stores an answer's samples with their provenance, their import revision and the endpoints they
   * cover as done: one transaction, so a crash stores all of the answer or none of it.
   */
  storeSamples(input: {
    readonly jobId: number;
    readonly datasetId: number;
    readonly api: string;
    readonly provider: string;
    readonly model: string;
    readonly author: string;
    readonly answer: StoredAnswer;
    readonly samples: readonly SynthesizedSampleRecord[];
    /** What to say on an endpoint made done (samples beyond the asked number dropped), by endpoint. */
    readonly notes?: ReadonlyMap<string, string>;
  }): void {
    this.db.transaction(() => {
      const at = now();
      const answerId = this.addAnswer(input.jobId, input.answer);
      let position = (this.db.prepare('SELECT COALESCE(MAX(position), -1) + 1 AS next FROM samples WHERE dataset_id = ?').get(input.datasetId) as { next: number }).next;
      const addSample = this.db.prepare(
        `INSERT INTO samples (dataset_id, id, position, api, task, config, source, findings, check_status, updated_at, fields) VALUES (?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?)`,
      );
      const addRevision = this.db.prepare('INSERT INTO revisions (dataset_id, sample_id, author, at, reason, before, after) VALUES (?, ?, ?, ?, ?, NULL, ?)');
      const addProvenance = this.db.prepare(
        'INSERT INTO sample_provenance (dataset_id, sample_id, job_id, answer_id, provider, model, prompt_hash, endpoint, ground_truth, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      const perEndpoint = new Map<string, number>();
      for (const s of input.samples) {
        addSample.run(input.datasetId, s.id, position++, input.api, s.task, JSON.stringify(s.config), JSON.stringify(s.findings), s.findings.length > 0 ? 'flagged' : 'ok', at, s.fields ? JSON.stringify(s.fields) : null);
        addRevision.run(input.datasetId, s.id, input.author, at, `synthesized by ${input.provider} ${input.model} (job ${input.jobId})`, JSON.stringify({ task: s.task, config: s.config, reviewState: 'unreviewed', ...(s.fields ? { fields: s.fields } : {}) }));
        addProvenance.run(input.datasetId, s.id, input.jobId, answerId, input.provider, input.model, input.answer.promptHash, s.endpoint, JSON.stringify(s.groundTruth), at);
        perEndpoint.set(s.endpoint, (perEndpoint.get(s.endpoint) ?? 0) + 1);
      }
      const done = this.db.prepare(
        "UPDATE synthesis_endpoints SET status = 'done', samples = ?, failure = NULL, message = ?, answer_id = ?, prompt_hash = ?, attempts = attempts + 1, updated_at = ? WHERE job_id = ? AND api = ? AND endpoint = ?",
      );
      for (const [endpoint, n] of perEndpoint) done.run(n, input.notes?.get(endpoint) ?? null, answerId, input.answer.promptHash, at, input.jobId, input.api, endpoint);
    }).immediate();
  }

  /** Row counts of the synthesis tables, for tests that assert what was (not) written. */
  counts(): Record<string, number> {
    const tables = ['synthesis_jobs', 'synthesis_endpoints', 'synthesis_answers', 'sample_provenance'];
    return Object.fromEntries(tables.map((t) => [t, (this.db.prepare(`SELECT COUNT(*) AS n FROM ${t}`).get() as { n: number }).n]));
  }

  /** The provenance of a dataset's synthesized samples, by sample id. */
  provenanceOf(datasetId: number): Map<string, SampleProvenance> {
    const rows = this.db
      .prepare(
        `SELECT p.sample_id, p.job_id, p.provider, p.model, p.prompt_hash, p.endpoint, p.ground_truth, p.created_at, a.raw
         FROM sample_provenance p JOIN synthesis_answers a ON a.id = p.answer_id WHERE p.dataset_id = ?`,
      )
      .all(datasetId) as { sample_id: string; job_id: number; provider: string; model: string; prompt_hash: string; endpoint: string; ground_truth: string; created_at: string; raw: string }[];
    return new Map(
      rows.map((r) => [
        r.sample_id,
        { jobId: r.job_id, provider: r.provider, model: r.model, promptHash: r.prompt_hash, endpoint: r.endpoint, rawAnswer: r.raw, createdAt: r.created_at, groundTruth: JSON.parse(r.ground_truth) as SampleProvenance['groundTruth'] },
      ]),
    );
  }
}
