/**
 * Numbered schema migrations; `PRAGMA user_version` records how many have run. Append only:
 * a released migration never changes.
 */
export const MIGRATIONS: readonly string[] = [
  /* 1: specs, datasets, samples, revisions */ `
  CREATE TABLE specs (
    hash       TEXT PRIMARY KEY,            -- sha-256 of content
    filename   TEXT NOT NULL,
    title      TEXT NOT NULL,
    content    TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE datasets (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    source     TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE dataset_apis (
    dataset_id INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    api        TEXT NOT NULL,
    spec_hash  TEXT NOT NULL REFERENCES specs(hash),
    PRIMARY KEY (dataset_id, api)
  );
  CREATE TABLE samples (
    dataset_id   INTEGER NOT NULL,
    id           TEXT NOT NULL,
    position     INTEGER NOT NULL,
    api          TEXT NOT NULL,
    task         TEXT NOT NULL,
    config       TEXT NOT NULL,             -- JSON RequestConfig
    review_state TEXT NOT NULL DEFAULT 'unreviewed' CHECK (review_state IN ('unreviewed', 'accepted', 'fixed', 'rejected')),
    source       TEXT NOT NULL DEFAULT '{}', -- JSON SourceNotes
    findings     TEXT NOT NULL DEFAULT '[]', -- JSON Finding[]
    check_status TEXT NOT NULL CHECK (check_status IN ('ok', 'flagged')),
    updated_at   TEXT NOT NULL,
    PRIMARY KEY (dataset_id, id),
    UNIQUE (dataset_id, position),
    FOREIGN KEY (dataset_id, api) REFERENCES dataset_apis(dataset_id, api) ON DELETE CASCADE
  );
  CREATE TABLE revisions (
    id         INTEGER PRIMARY KEY,
    dataset_id INTEGER NOT NULL,
    sample_id  TEXT NOT NULL,
    author     TEXT NOT NULL,
    at         TEXT NOT NULL,
    reason     TEXT NOT NULL,
    before     TEXT,                        -- JSON {task, config, reviewState}; NULL for the import
    after      TEXT NOT NULL,
    undone     INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (dataset_id, sample_id) REFERENCES samples(dataset_id, id) ON DELETE CASCADE
  );
  CREATE INDEX revisions_by_sample ON revisions(dataset_id, sample_id, id);
  `,
  /* 2: runs and their samples */ `
  CREATE TABLE runs (
    id          INTEGER PRIMARY KEY,
    kind        TEXT NOT NULL,              -- 'imported codes' | 'generation'
    created_at  TEXT NOT NULL,
    finished_at TEXT,
    dataset     TEXT NOT NULL,              -- the dataset file or stored dataset it scored
    settings    TEXT NOT NULL,              -- JSON: compat mode, setup, ...
    statistics  TEXT,                       -- JSON {statistics, per_api}, once finished
    CHECK (kind IN ('imported codes', 'generation'))
  );
  CREATE TABLE run_samples (
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sample_index INTEGER NOT NULL,
    api          TEXT NOT NULL,
    code         TEXT NOT NULL,
    request      TEXT,                      -- JSON CapturedRequest, when one was captured
    verdict      TEXT NOT NULL,             -- JSON Verdict
    extraction   TEXT NOT NULL,             -- JSON: the cut rule and call, or why none
    execution    TEXT,                      -- JSON: console, error, requests
    duration_ms  REAL,
    PRIMARY KEY (run_id, sample_index)
  );
  `,
  /* 3: generation runs are written sample by sample, resumable, with n outputs per sample */ `
  ALTER TABLE runs ADD COLUMN status TEXT NOT NULL DEFAULT 'finished';  -- 'running' | 'finished'
  ALTER TABLE runs ADD COLUMN manifest TEXT;                            -- JSON: model, sampling, hashes, versions, device
  CREATE TABLE run_outputs (
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sample_index INTEGER NOT NULL,
    attempt      INTEGER NOT NULL DEFAULT 0,   -- which of the n outputs per sample
    api          TEXT NOT NULL,
    code         TEXT NOT NULL,
    request      TEXT,
    verdict      TEXT NOT NULL,                -- JSON Verdict; null when the sample failed to run
    extraction   TEXT NOT NULL,
    execution    TEXT,
    duration_ms  REAL,
    prompt       TEXT,
    raw_output   TEXT,                         -- what the model generated after the prompt
    generation   TEXT,                         -- JSON: stop reason, tokens, interventions, timings
    error        TEXT,                         -- why the sample failed to run (retried by --retry-errors)
    PRIMARY KEY (run_id, sample_index, attempt)
  );
  INSERT INTO run_outputs (run_id, sample_index, api, code, request, verdict, extraction, execution, duration_ms)
    SELECT run_id, sample_index, api, code, request, verdict, extraction, execution, duration_ms FROM run_samples;
  DROP TABLE run_samples;
  ALTER TABLE run_outputs RENAME TO run_samples;
  `,
  /* 4: runs on stored datasets (a snapshot of every sample taken), jobs, verdict overrides, the model library */ `
  ALTER TABLE runs ADD COLUMN dataset_id INTEGER;          -- the stored dataset, when the run took one (it may be deleted since)
  ALTER TABLE runs ADD COLUMN model TEXT;                  -- JSON {modelId?, name, path?, remote?}
  ALTER TABLE runs ADD COLUMN subset TEXT;                 -- JSON RunSubset
  ALTER TABLE runs ADD COLUMN owner_pid INTEGER;           -- the process running or queueing it; a dead owner means interrupted
  ALTER TABLE runs ADD COLUMN error TEXT;                  -- why it failed or stopped
  ALTER TABLE runs ADD COLUMN demo INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE runs ADD COLUMN total INTEGER;               -- outputs planned (samples x n)
  CREATE TABLE run_inputs (
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sample_index INTEGER NOT NULL,
    sample_id    TEXT,
    api          TEXT NOT NULL,
    task         TEXT NOT NULL,
    config       TEXT NOT NULL,                 -- JSON RequestConfig, exactly as the run took it
    spec_hash    TEXT,
    content_hash TEXT NOT NULL,                 -- sha-256 of {task, config}: tells later edits apart
    PRIMARY KEY (run_id, sample_index)
  );
  CREATE TABLE run_overrides (
    id           INTEGER PRIMARY KEY,
    run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    sample_index INTEGER NOT NULL,
    attempt      INTEGER NOT NULL DEFAULT 0,
    at           TEXT NOT NULL,
    author       TEXT NOT NULL,
    reason       TEXT NOT NULL,
    from_verdict TEXT NOT NULL,
    to_verdict   TEXT                           -- NULL: the scorer's verdict restored
  );
  CREATE INDEX run_overrides_by_sample ON run_overrides(run_id, sample_index, attempt, id);
  CREATE TABLE models (
    id         INTEGER PRIMARY KEY,
    path       TEXT NOT NULL UNIQUE,
    name       TEXT NOT NULL,
    source     TEXT NOT NULL,
    metadata   TEXT NOT NULL,                   -- JSON: architecture, parameters, quantisation, context, chat template
    added_at   TEXT NOT NULL
  );
  CREATE TABLE file_hashes (
    path     TEXT PRIMARY KEY,
    size     INTEGER NOT NULL,
    mtime_ms REAL NOT NULL,
    sha256   TEXT NOT NULL
  );
  `,
  /* 5: synthesis jobs, their endpoints and answers; where a synthesized sample came from */ `
  CREATE TABLE synthesis_jobs (
    id            INTEGER PRIMARY KEY,
    dataset_id    INTEGER NOT NULL REFERENCES datasets(id) ON DELETE CASCADE,
    provider      TEXT NOT NULL,              -- 'gemini' | 'openai' | 'local'
    model         TEXT NOT NULL,
    settings      TEXT NOT NULL,              -- JSON: endpoints asked, base URL, concurrency, batch size (never a key)
    status        TEXT NOT NULL CHECK (status IN ('running', 'cancelled', 'finished')),
    created_at    TEXT NOT NULL,
    finished_at   TEXT,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    requests      INTEGER NOT NULL DEFAULT 0,
    retries       INTEGER NOT NULL DEFAULT 0,
    cost_usd      REAL NOT NULL DEFAULT 0
  );
  CREATE TABLE synthesis_answers (
    id          INTEGER PRIMARY KEY,
    job_id      INTEGER NOT NULL REFERENCES synthesis_jobs(id) ON DELETE CASCADE,
    prompt_hash TEXT NOT NULL,
    raw         TEXT NOT NULL,                -- the provider's answer, verbatim
    finish      TEXT NOT NULL,                -- 'stop' | 'length' | 'blocked' | 'other', and why
    at          TEXT NOT NULL
  );
  CREATE TABLE synthesis_endpoints (
    job_id      INTEGER NOT NULL REFERENCES synthesis_jobs(id) ON DELETE CASCADE,
    api         TEXT NOT NULL,
    endpoint    TEXT NOT NULL,                -- 'GET /path/{id}'
    status      TEXT NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    samples     INTEGER NOT NULL DEFAULT 0,
    failure     TEXT,                         -- FailureKind, when failed
    message     TEXT,
    answer_id   INTEGER REFERENCES synthesis_answers(id),
    prompt_hash TEXT,
    attempts    INTEGER NOT NULL DEFAULT 0,
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (job_id, api, endpoint)
  );
  CREATE TABLE sample_provenance (
    dataset_id   INTEGER NOT NULL,
    sample_id    TEXT NOT NULL,
    job_id       INTEGER NOT NULL REFERENCES synthesis_jobs(id) ON DELETE CASCADE,
    answer_id    INTEGER NOT NULL REFERENCES synthesis_answers(id),
    provider     TEXT NOT NULL,
    model        TEXT NOT NULL,
    prompt_hash  TEXT NOT NULL,
    endpoint     TEXT NOT NULL,
    ground_truth TEXT NOT NULL,               -- JSON: the oracle program's verdict in the sandbox
    created_at   TEXT NOT NULL,
    PRIMARY KEY (dataset_id, sample_id),
    FOREIGN KEY (dataset_id, sample_id) REFERENCES samples(dataset_id, id) ON DELETE CASCADE
  );
  `,
  /* 6: knowledge conditions and failure classes: the knowledge lines a run put in each sample's prompt, the failure classes of each output */ `
  ALTER TABLE run_inputs ADD COLUMN knowledge TEXT;   -- JSON string[]: the prompt's API knowledge lines (NULL: none)
  ALTER TABLE run_samples ADD COLUMN failures TEXT;   -- JSON FailureClass[] of the scorer's verdict (NULL: not classified yet; filled on read)
  `,
  /* 7: the process running a synthesis job, so another process sharing the database neither shows it interrupted nor resumes it twice */ `
  ALTER TABLE synthesis_jobs ADD COLUMN owner_pid INTEGER;   -- NULL once the job stopped
  `,
  /* 8: the hash cache also keys on ctime and inode (as git's index), which cp -p, rsync -t and tar do not restore; older rows (NULL) are hashed again once */ `
  ALTER TABLE file_hashes ADD COLUMN ctime_ms REAL;
  ALTER TABLE file_hashes ADD COLUMN ino TEXT;
  `,
  /* 9: a sample's fields beyond api, index, task, config, checks and vetted (the real-world dataset's starter_code, definitions, template_url, provenance, and any unknown field), kept verbatim; a run's snapshot keeps them too */ `
  ALTER TABLE samples ADD COLUMN fields TEXT;      -- JSON object (NULL: none)
  ALTER TABLE run_inputs ADD COLUMN fields TEXT;   -- JSON object (NULL: none)
  `,
  /* 10: each sample's Setup as the run gave it (starter, where its call starts, definitions, client), taken with the snapshot, so the run, its resume, the inspector and exports read one and never rebuild it */ `
  ALTER TABLE run_inputs ADD COLUMN setup TEXT;    -- JSON Setup (NULL: a run stored before; built from its settings)
  `,
];
