-- kjudge store schema for PostgreSQL: src/store/schema.sql translated.
--
-- Same steps, same numbers, same tables and columns as the SQLite schema
-- (src/store/schema.sql); only the types differ: INTEGER PRIMARY KEY ->
-- BIGSERIAL, ids BIGINT, REAL -> DOUBLE PRECISION, and the default times come
-- from kj_now(), which writes the same ISO-8601 UTC text as SQLite's
-- strftime('%Y-%m-%dT%H:%M:%fZ', 'now').  kj_store_open() applies every step
-- above the version in kjudge_schema, each in one transaction under an
-- advisory lock (many workers may open a new database at once).  Steps are
-- append-only, as in schema.sql; a step added there is added here with the
-- same number (docs/store.md).

-- migrate: 1

CREATE FUNCTION kj_now() RETURNS text LANGUAGE sql VOLATILE AS
$$ SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

CREATE TABLE runs (
	id             BIGSERIAL PRIMARY KEY,
	name           TEXT NOT NULL UNIQUE,
	created        TEXT NOT NULL DEFAULT kj_now(),
	backend        TEXT NOT NULL CHECK (backend IN ('cpu', 'cuda')),
	spec           TEXT NOT NULL DEFAULT '',
	settings       TEXT NOT NULL DEFAULT '{}',
	kjudge_version TEXT NOT NULL DEFAULT ''
);

CREATE TABLE devices (
	id    BIGSERIAL PRIMARY KEY,
	name  TEXT NOT NULL DEFAULT '',
	uuid  TEXT NOT NULL UNIQUE,
	arch  TEXT NOT NULL DEFAULT '',
	info  TEXT NOT NULL DEFAULT '{}'
);

CREATE TABLE calibrations (
	id         BIGSERIAL PRIMARY KEY,
	device_id  BIGINT NOT NULL REFERENCES devices(id),
	copy_gbs   DOUBLE PRECISION,
	rates      TEXT NOT NULL DEFAULT '{}',
	created    TEXT NOT NULL DEFAULT kj_now()
);
CREATE INDEX calibrations_device ON calibrations(device_id, created);

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

CREATE TABLE candidates (
	id         BIGSERIAL PRIMARY KEY,
	run_id     BIGINT NOT NULL REFERENCES runs(id),
	task       TEXT NOT NULL REFERENCES tasks(id),
	source     TEXT NOT NULL,
	sha256     TEXT NOT NULL,
	model      TEXT NOT NULL DEFAULT '',
	method     TEXT NOT NULL DEFAULT '',
	sample     INTEGER NOT NULL DEFAULT 0,
	round      INTEGER NOT NULL DEFAULT 0,
	parent_id  BIGINT REFERENCES candidates(id),
	path       TEXT NOT NULL DEFAULT '',
	created    TEXT NOT NULL DEFAULT kj_now(),
	UNIQUE (run_id, model, task, sample, round)
);
CREATE INDEX candidates_run_task ON candidates(run_id, task);
CREATE INDEX candidates_run_model ON candidates(run_id, model, task, sample, round);
CREATE INDEX candidates_sha ON candidates(sha256);
CREATE INDEX candidates_parent ON candidates(parent_id);

CREATE TABLE verdicts (
	id             BIGSERIAL PRIMARY KEY,
	candidate_id   BIGINT NOT NULL UNIQUE REFERENCES candidates(id),
	run_id         BIGINT NOT NULL REFERENCES runs(id),
	task           TEXT NOT NULL,
	sha256         TEXT NOT NULL,
	backend        TEXT NOT NULL,
	device_id      BIGINT REFERENCES devices(id),
	cache_key      TEXT NOT NULL DEFAULT '',
	status         TEXT NOT NULL,
	stage          TEXT NOT NULL,
	reason         TEXT NOT NULL DEFAULT '',
	flags          TEXT NOT NULL DEFAULT '',
	fallback_libs  TEXT NOT NULL DEFAULT '',
	speedup        DOUBLE PRECISION,
	compile_s      DOUBLE PRECISION,
	total_s        DOUBLE PRECISION,
	reused_from    BIGINT REFERENCES candidates(id),
	json           TEXT NOT NULL,
	judged_at      TEXT NOT NULL DEFAULT kj_now()
);
CREATE INDEX verdicts_cache ON verdicts(sha256, task, backend, device_id, cache_key);
CREATE INDEX verdicts_run_status ON verdicts(run_id, status);
CREATE INDEX verdicts_task ON verdicts(task);

CREATE TABLE verdict_shapes (
	candidate_id  BIGINT NOT NULL REFERENCES candidates(id),
	kind          TEXT NOT NULL DEFAULT 'bench',
	bind          INTEGER NOT NULL,
	shape         TEXT NOT NULL,
	weight        DOUBLE PRECISION,
	ms            DOUBLE PRECISION,
	iqr_ms        DOUBLE PRECISION,
	n             INTEGER,
	baseline_ms   DOUBLE PRECISION,
	speedup       DOUBLE PRECISION,
	sol_ms        DOUBLE PRECISION,
	sol_frac      DOUBLE PRECISION,
	iou           DOUBLE PRECISION,
	mfu           DOUBLE PRECISION,
	flops         DOUBLE PRECISION,
	bytes         DOUBLE PRECISION,
	PRIMARY KEY (candidate_id, bind)
);

CREATE TABLE verdict_checks (
	candidate_id      BIGINT NOT NULL REFERENCES candidates(id),
	kind              TEXT NOT NULL,
	bind              INTEGER NOT NULL,
	shape             TEXT NOT NULL,
	seed_index        INTEGER NOT NULL,
	flavour           TEXT NOT NULL DEFAULT '',
	output            TEXT NOT NULL,
	pass              INTEGER NOT NULL,
	max_abs           DOUBLE PRECISION,
	max_rel           DOUBLE PRECISION,
	baseline_max_abs  DOUBLE PRECISION,
	PRIMARY KEY (candidate_id, bind, seed_index, output)
);

CREATE TABLE baselines (
	task       TEXT NOT NULL,
	shape      TEXT NOT NULL,
	device_id  BIGINT NOT NULL REFERENCES devices(id),
	ms         DOUBLE PRECISION NOT NULL,
	iqr_ms     DOUBLE PRECISION,
	n          INTEGER,
	updated    TEXT NOT NULL DEFAULT kj_now(),
	PRIMARY KEY (task, shape, device_id)
);

CREATE TABLE judgements (
	id            BIGSERIAL PRIMARY KEY,
	candidate_id  BIGINT NOT NULL REFERENCES candidates(id),
	device_id     BIGINT REFERENCES devices(id),
	pid           BIGINT NOT NULL DEFAULT 0,
	started       TEXT NOT NULL DEFAULT kj_now(),
	finished      TEXT
);
CREATE INDEX judgements_candidate ON judgements(candidate_id);

-- migrate: 2

-- The job queue of `kjudge serve` (src/store/schema.sql step 2; times are
-- unix seconds as there).
CREATE TABLE api_tokens (
	id       BIGSERIAL PRIMARY KEY,
	name     TEXT NOT NULL UNIQUE,
	sha256   TEXT NOT NULL UNIQUE,
	quota    INTEGER NOT NULL DEFAULT 0,
	created  TEXT NOT NULL DEFAULT kj_now()
);

CREATE TABLE jobs (
	id              BIGSERIAL PRIMARY KEY,
	state           TEXT NOT NULL DEFAULT 'queued'
	                CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
	task            TEXT NOT NULL,
	backend         TEXT NOT NULL,
	source          TEXT NOT NULL,
	sha256          TEXT NOT NULL,
	model           TEXT NOT NULL DEFAULT '',
	sample          INTEGER,
	round           INTEGER NOT NULL DEFAULT 0,
	token_id        BIGINT NOT NULL DEFAULT 0,
	idem_key        TEXT,
	request_sha256  TEXT NOT NULL DEFAULT '',
	attempts        INTEGER NOT NULL DEFAULT 0,
	owner           TEXT NOT NULL DEFAULT '',
	lease_until     DOUBLE PRECISION,
	candidate_id    BIGINT REFERENCES candidates(id),
	status          TEXT NOT NULL DEFAULT '',
	verdict         TEXT,
	error           TEXT NOT NULL DEFAULT '',
	created         DOUBLE PRECISION NOT NULL,
	started         DOUBLE PRECISION,
	finished        DOUBLE PRECISION,
	UNIQUE (token_id, idem_key)
);
CREATE INDEX jobs_state ON jobs(state, id);
CREATE INDEX jobs_token_state ON jobs(token_id, state);

-- migrate: 3

-- The cluster queue of a run (docs/cluster.md): one job per distinct source
-- (task, sha256) among the run's pending candidates, taken by `kjudge worker`
-- processes on any number of nodes.  state queued -> running -> done |
-- failed.  A claim sets owner, attempts + 1 and lease_until = now() + lease
-- (the database's clock, never a node's); the owner renews the lease while it
-- judges.  (owner, attempts) is the lease's fencing token: the verdict and
-- the job's completion are written in one transaction only while the row
-- still holds that token, so a worker that lost its lease writes nothing.  A
-- running job whose lease has passed is claimed again (attempts + 1) by the
-- first worker that asks, or failed after max_attempts claims.
CREATE TABLE run_jobs (
	id            BIGSERIAL PRIMARY KEY,
	run_id        BIGINT NOT NULL REFERENCES runs(id),
	candidate_id  BIGINT NOT NULL UNIQUE REFERENCES candidates(id),
	backend       TEXT NOT NULL,
	state         TEXT NOT NULL DEFAULT 'queued'
	              CHECK (state IN ('queued', 'running', 'done', 'failed')),
	attempts      INTEGER NOT NULL DEFAULT 0,
	owner         TEXT NOT NULL DEFAULT '',
	lease_until   TIMESTAMPTZ,
	error         TEXT NOT NULL DEFAULT '',
	created       TEXT NOT NULL DEFAULT kj_now(),
	started       TEXT,
	finished      TEXT
);
-- the claim's index: open jobs only, so that done jobs (millions, over
-- time) cost a claim nothing
CREATE INDEX run_jobs_open ON run_jobs(backend, id) WHERE state IN ('queued', 'running');
CREATE INDEX run_jobs_run ON run_jobs(run_id, state);
-- the copies of a verdict for a run's identical sources are found by source
CREATE INDEX candidates_run_sha ON candidates(run_id, sha256);

-- migrate: 4

-- The error budget of each check (src/store/schema.sql step 4).
ALTER TABLE verdict_checks ADD COLUMN budget_metric TEXT NOT NULL DEFAULT '';
ALTER TABLE verdict_checks ADD COLUMN tol_ratio DOUBLE PRECISION;
ALTER TABLE verdict_checks ADD COLUMN baseline_tol_ratio DOUBLE PRECISION;
ALTER TABLE verdict_checks ADD COLUMN budget DOUBLE PRECISION;
ALTER TABLE verdict_checks ADD COLUMN budget_used INTEGER NOT NULL DEFAULT 0;
-- migrate: 5

-- Runs of the Python backends (src/store/schema.sql step 5).
ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_backend_check;
ALTER TABLE runs ADD CONSTRAINT runs_backend_check
	CHECK (backend IN ('cpu', 'cuda', 'triton', 'kernelbench'));
