-- kjudge store schema: the one source of truth.
--
-- The file is a list of migration steps.  A line `-- migrate: N` starts step
-- N (numbered from 1, in order, without gaps); everything up to the next such
-- line is that step's SQL.  kj_store_open() applies every step above the
-- database's `PRAGMA user_version` in order, each in its own transaction that
-- also sets user_version = N, so a crash leaves the database at a whole step.
-- Steps are append-only: never edit a step that has shipped, add a new one.
-- The file is embedded in the binary (src/store/schema.c); docs/store.md
-- describes every table.

-- migrate: 1

-- One batch of candidates judged with one set of settings.
CREATE TABLE runs (
	id             INTEGER PRIMARY KEY,
	name           TEXT NOT NULL UNIQUE,
	created        TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	backend        TEXT NOT NULL CHECK (backend IN ('cpu', 'cuda')),
	spec           TEXT NOT NULL DEFAULT '',
	settings       TEXT NOT NULL DEFAULT '{}',
	kjudge_version TEXT NOT NULL DEFAULT ''
);

-- A device verdicts were measured on: a GPU (uuid GPU-...) or a host CPU
-- (uuid cpu:<hostname>).
CREATE TABLE devices (
	id    INTEGER PRIMARY KEY,
	name  TEXT NOT NULL DEFAULT '',
	uuid  TEXT NOT NULL UNIQUE,
	arch  TEXT NOT NULL DEFAULT '',
	info  TEXT NOT NULL DEFAULT '{}'
);

-- Measured peaks (kjudge calibrate); the newest row per device is current.
CREATE TABLE calibrations (
	id         INTEGER PRIMARY KEY,
	device_id  INTEGER NOT NULL REFERENCES devices(id),
	copy_gbs   REAL,
	rates      TEXT NOT NULL DEFAULT '{}',
	created    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX calibrations_device ON calibrations(device_id, created);

-- Task metadata, copied from the .kt file when a candidate for it is added.
CREATE TABLE tasks (
	id        TEXT PRIMARY KEY,
	level     INTEGER NOT NULL DEFAULT 0,
	category  TEXT NOT NULL DEFAULT '',
	about     TEXT NOT NULL DEFAULT '',
	sha256    TEXT NOT NULL DEFAULT '',
	dtype     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tasks_level ON tasks(level);
CREATE INDEX tasks_category ON tasks(category);

-- A candidate kernel: source and origin.  (run, model, task, sample, round)
-- names it; adding it again returns the same row.
CREATE TABLE candidates (
	id         INTEGER PRIMARY KEY,
	run_id     INTEGER NOT NULL REFERENCES runs(id),
	task       TEXT NOT NULL REFERENCES tasks(id),
	source     TEXT NOT NULL,
	sha256     TEXT NOT NULL,
	model      TEXT NOT NULL DEFAULT '',
	method     TEXT NOT NULL DEFAULT '',
	sample     INTEGER NOT NULL DEFAULT 0,
	round      INTEGER NOT NULL DEFAULT 0,
	parent_id  INTEGER REFERENCES candidates(id),
	path       TEXT NOT NULL DEFAULT '',
	created    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	UNIQUE (run_id, model, task, sample, round)
);
CREATE INDEX candidates_run_task ON candidates(run_id, task);
CREATE INDEX candidates_run_model ON candidates(run_id, model, task, sample, round);
CREATE INDEX candidates_sha ON candidates(sha256);
CREATE INDEX candidates_parent ON candidates(parent_id);

-- The verdict of a candidate, one at most.  reused_from is NULL when this
-- candidate was judged itself, else the candidate whose verdict (identical
-- source, task, backend, device and verdict settings) was copied.  json is the
-- whole kjudge.verdict/1 object.  cache_key holds the settings that change a
-- verdict (seeds, perf on/off, timeout, policy): reuse needs it equal.
CREATE TABLE verdicts (
	id             INTEGER PRIMARY KEY,
	candidate_id   INTEGER NOT NULL UNIQUE REFERENCES candidates(id),
	run_id         INTEGER NOT NULL REFERENCES runs(id),
	task           TEXT NOT NULL,
	sha256         TEXT NOT NULL,
	backend        TEXT NOT NULL,
	device_id      INTEGER REFERENCES devices(id),
	cache_key      TEXT NOT NULL DEFAULT '',
	status         TEXT NOT NULL,
	stage          TEXT NOT NULL,
	reason         TEXT NOT NULL DEFAULT '',
	flags          TEXT NOT NULL DEFAULT '',
	fallback_libs  TEXT NOT NULL DEFAULT '',
	speedup        REAL,
	compile_s      REAL,
	total_s        REAL,
	reused_from    INTEGER REFERENCES candidates(id),
	json           TEXT NOT NULL,
	judged_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX verdicts_cache ON verdicts(sha256, task, backend, device_id, cache_key);
CREATE INDEX verdicts_run_status ON verdicts(run_id, status);
CREATE INDEX verdicts_task ON verdicts(task);

-- Performance per bench shape of a verdict (none when not timed).
CREATE TABLE verdict_shapes (
	candidate_id  INTEGER NOT NULL REFERENCES candidates(id),
	kind          TEXT NOT NULL DEFAULT 'bench',
	bind          INTEGER NOT NULL,
	shape         TEXT NOT NULL,
	weight        REAL,
	ms            REAL,
	iqr_ms        REAL,
	n             INTEGER,
	baseline_ms   REAL,
	speedup       REAL,
	sol_ms        REAL,
	sol_frac      REAL,
	iou           REAL,
	mfu           REAL,
	flops         REAL,
	bytes         REAL,
	PRIMARY KEY (candidate_id, bind)
);

-- Correctness comparisons of a verdict: one output, shape and seed each.
CREATE TABLE verdict_checks (
	candidate_id      INTEGER NOT NULL REFERENCES candidates(id),
	kind              TEXT NOT NULL,
	bind              INTEGER NOT NULL,
	shape             TEXT NOT NULL,
	seed_index        INTEGER NOT NULL,
	flavour           TEXT NOT NULL DEFAULT '',
	output            TEXT NOT NULL,
	pass              INTEGER NOT NULL,
	max_abs           REAL,
	max_rel           REAL,
	baseline_max_abs  REAL,
	PRIMARY KEY (candidate_id, bind, seed_index, output)
);

-- Eager baseline timings seen by verdicts, per task, shape and device.
CREATE TABLE baselines (
	task       TEXT NOT NULL,
	shape      TEXT NOT NULL,
	device_id  INTEGER NOT NULL REFERENCES devices(id),
	ms         REAL NOT NULL,
	iqr_ms     REAL,
	n          INTEGER,
	updated    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	PRIMARY KEY (task, shape, device_id)
);

-- One row per call of the judge on a candidate: written (committed) before
-- the judge starts and finished in the verdict's transaction.  A row left
-- unfinished is a judgement a crash interrupted; a candidate never has two
-- finished rows.
CREATE TABLE judgements (
	id            INTEGER PRIMARY KEY,
	candidate_id  INTEGER NOT NULL REFERENCES candidates(id),
	device_id     INTEGER REFERENCES devices(id),
	pid           INTEGER NOT NULL DEFAULT 0,
	started       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	finished      TEXT
);
CREATE INDEX judgements_candidate ON judgements(candidate_id);

-- migrate: 2

-- The job queue of `kjudge serve` (docs/api.md, include/kjudge/store.h).
-- Bearer tokens of the service: only the sha256 of a token is kept.  quota is
-- the most jobs a token may have queued or running at once (0: no limit).
CREATE TABLE api_tokens (
	id       INTEGER PRIMARY KEY,
	name     TEXT NOT NULL UNIQUE,
	sha256   TEXT NOT NULL UNIQUE,
	quota    INTEGER NOT NULL DEFAULT 0,
	created  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- One accepted request to judge a candidate.  state moves queued -> running
-- -> done | failed, or queued -> cancelled; a running job whose lease_until
-- (unix seconds) has passed belonged to a server that died and goes back to
-- queued.  attempts counts the claims, so a job judged again after a crash
-- says so.  (token_id, idem_key) is unique: a retried POST with the same
-- idempotency key returns the same job; request_sha256 tells a replay from a
-- different request under the same key.  token_id 0: no token.  sample NULL:
-- the candidate's sample is the job id.  Times are unix seconds.
CREATE TABLE jobs (
	id              INTEGER PRIMARY KEY,
	state           TEXT NOT NULL DEFAULT 'queued'
	                CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	task            TEXT NOT NULL,
	backend         TEXT NOT NULL,
	source          TEXT NOT NULL,
	sha256          TEXT NOT NULL,
	model           TEXT NOT NULL DEFAULT '',
	sample          INTEGER,
	round           INTEGER NOT NULL DEFAULT 0,
	token_id        INTEGER NOT NULL DEFAULT 0,
	idem_key        TEXT,
	request_sha256  TEXT NOT NULL DEFAULT '',
	attempts        INTEGER NOT NULL DEFAULT 0,
	owner           TEXT NOT NULL DEFAULT '',
	lease_until     REAL,
	candidate_id    INTEGER REFERENCES candidates(id),
	status          TEXT NOT NULL DEFAULT '',
	verdict         TEXT,
	error           TEXT NOT NULL DEFAULT '',
	created         REAL NOT NULL,
	started         REAL,
	finished        REAL,
	UNIQUE (token_id, idem_key)
);
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_token_state ON jobs(token_id, state);

-- migrate: 3

-- The cluster queue of a run (docs/cluster.md): one job per distinct source
-- among the run's pending candidates, taken by `kjudge worker` processes.
-- Only a PostgreSQL store uses it (src/store/cluster.c; schema_pg.sql has the
-- same step 3 with PostgreSQL types); it exists here so that both backends
-- have the same tables at the same version.  lease_until: unix seconds here,
-- a timestamptz there.
CREATE TABLE run_jobs (
	id            INTEGER PRIMARY KEY,
	run_id        INTEGER NOT NULL REFERENCES runs(id),
	candidate_id  INTEGER NOT NULL UNIQUE REFERENCES candidates(id),
	backend       TEXT NOT NULL,
	state         TEXT NOT NULL DEFAULT 'queued'
	              CHECK (state IN ('queued', 'running', 'done', 'failed')),
	attempts      INTEGER NOT NULL DEFAULT 0,
	owner         TEXT NOT NULL DEFAULT '',
	lease_until   REAL,
	error         TEXT NOT NULL DEFAULT '',
	created       TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
	started       TEXT,
	finished      TEXT
);
CREATE INDEX run_jobs_open ON run_jobs(backend, id) WHERE state IN ('queued', 'running');
CREATE INDEX run_jobs_run ON run_jobs(run_id, state);
CREATE INDEX candidates_run_sha ON candidates(run_id, sha256);

-- migrate: 4

-- The error budget of each check (docs/verdict.md): the governing measure
-- (elementwise, cos, l1, rmse), the candidate's and the eager baseline's
-- distance on it over the declared limit, the limit applied (max(1, K x the
-- baseline's); 1 where the declared tolerance governs), and whether the
-- check passed only because of the budget.  Rows written before this step
-- keep NULL ratios and budget_used 0.
ALTER TABLE verdict_checks ADD COLUMN budget_metric TEXT NOT NULL DEFAULT '';
ALTER TABLE verdict_checks ADD COLUMN tol_ratio REAL;
ALTER TABLE verdict_checks ADD COLUMN baseline_tol_ratio REAL;
ALTER TABLE verdict_checks ADD COLUMN budget REAL;
ALTER TABLE verdict_checks ADD COLUMN budget_used INTEGER NOT NULL DEFAULT 0;
-- migrate: 5

-- Runs of the Python backends (kjudge run --backend triton|kernelbench,
-- KernelBench problem files).  Widening a CHECK constraint changes no stored
-- row, so the table's SQL is rewritten in place (SQLite's writable_schema:
-- a rebuild would drop a table that candidates, verdicts and run_jobs
-- reference); the table made and dropped after it bumps the schema cookie,
-- so that every other open connection reads the new constraint.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql = replace(sql, 'CHECK (backend IN (''cpu'', ''cuda''))',
	'CHECK (backend IN (''cpu'', ''cuda'', ''triton'', ''kernelbench''))')
	WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = RESET;
CREATE TABLE kj_schema_bump (x);
DROP TABLE kj_schema_bump;
