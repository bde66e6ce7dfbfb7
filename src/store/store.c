/* The results store on SQLite: see include/kjudge/store.h and docs/store.md. */
#include <assert.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/knobs.h"
#include "kjudge/store.h"
#include "store/pg.h"
#include "store/rules.h"
#include "store/schema.h"

#ifndef KJ_VERSION_STRING
#define KJ_VERSION_STRING "0.1"
#endif

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

struct kj_db {
	sqlite3 *db;        /* NULL when the store is PostgreSQL */
	struct kj_pg *pg;   /* the PostgreSQL backend (src/store/pg.c), else NULL */
	pthread_mutex_t mu;
	int outer; /* inside kj_store_begin() */
};

int kj_store_schema_latest(void)
{
	struct kj_schema_step st[KJ_SCHEMA_MAX_STEPS];
	int n = kj_schema_steps(kj_store_schema_sql, st, KJ_SCHEMA_MAX_STEPS);
	assert(n > 0);
	return n;
}

static int db_fail(sqlite3 *db, struct kj_err *err, const char *what)
{
	return kj_err_set(err, KJ_E_IO, "store: %s: %s", what, sqlite3_errmsg(db));
}

static int exec(sqlite3 *db, const char *sql, struct kj_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = kj_err_set(err, KJ_E_IO, "store: %.80s: %s", sql, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct kj_err *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return kj_err_set(err, KJ_E_IO, "store: cannot prepare '%.60s': %s", sql, sqlite3_errmsg(db));
	}
	return 0;
}

/* Steps a statement that returns no row (or whose rows are ignored). */
static int step_done(sqlite3 *db, sqlite3_stmt *st, struct kj_err *err, const char *what)
{
	int r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (r != SQLITE_DONE)
		return db_fail(db, err, what);
	return 0;
}

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

/* NULL for "unknown" values the verdict marks negative (no calibration). */
static void bind_pos(sqlite3_stmt *st, int i, double x)
{
	if (x >= 0)
		sqlite3_bind_double(st, i, x);
	else
		sqlite3_bind_null(st, i);
}

static void bind_id(sqlite3_stmt *st, int i, int64_t id)
{
	if (id > 0)
		sqlite3_bind_int64(st, i, id);
	else
		sqlite3_bind_null(st, i);
}

static const char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

/* Each write is a transaction of its own, or a savepoint inside the caller's
 * kj_store_begin().  Outside one, BEGIN IMMEDIATE takes the write lock up
 * front, so the busy timeout applies instead of a failing lock upgrade. */
static int tx_begin(kj_db *s, struct kj_err *err)
{
	return exec(s->db, s->outer ? "SAVEPOINT kj_op" : "BEGIN IMMEDIATE", err);
}

static int tx_commit(kj_db *s, struct kj_err *err)
{
	return exec(s->db, s->outer ? "RELEASE kj_op" : "COMMIT", err);
}

static void tx_rollback(kj_db *s)
{
	if (s->outer)
		exec(s->db, "ROLLBACK TO kj_op; RELEASE kj_op", NULL);
	else if (!sqlite3_get_autocommit(s->db))
		exec(s->db, "ROLLBACK", NULL);
}

static int user_version(sqlite3 *db, int *v, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "PRAGMA user_version", &st, err);
	if (rc)
		return rc;
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_fail(db, err, "cannot read user_version");
	} else {
		*v = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	return rc;
}

static int migrate(sqlite3 *db, const char *path, struct kj_err *err)
{
	struct kj_schema_step st[KJ_SCHEMA_MAX_STEPS];
	int n = kj_schema_steps(kj_store_schema_sql, st, KJ_SCHEMA_MAX_STEPS), have, rc;
	if (n <= 0)
		return kj_err_set(err, KJ_E_INTERNAL, "store: the embedded schema has no valid migration steps");
	if ((rc = user_version(db, &have, err)))
		return rc;
	if (have > n)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "store: '%s' has schema version %d, written by a newer kjudge "
				  "(this one knows %d)", path, have, n);
	for (int i = have; i < n; i++) {
		char *sql, ver[48];
		int now;
		if ((rc = exec(db, "BEGIN IMMEDIATE", err)))
			return rc;
		/* another process may have migrated while we waited for the lock */
		if ((rc = user_version(db, &now, err)))
			goto fail;
		if (now > i) {
			exec(db, "COMMIT", NULL);
			i = now - 1;
			continue;
		}
		sql = strndup(st[i].sql, st[i].len);
		if (!sql) {
			rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
			goto fail;
		}
		rc = exec(db, sql, err);
		free(sql);
		if (rc) {
			kj_err_prefix(err, "migration step %d", st[i].n);
			goto fail;
		}
		snprintf(ver, sizeof(ver), "PRAGMA user_version = %d", st[i].n);
		if ((rc = exec(db, ver, err)) || (rc = exec(db, "COMMIT", err)))
			goto fail;
	}
	return 0;
fail:
	exec(db, "ROLLBACK", NULL);
	return rc;
}

int kj_store_open_readonly(const char *url, kj_db **out, struct kj_err *err)
{
	struct kj_pg *pg;
	kj_db *s;
	int rc;
	*out = NULL;
	if (!kj_pg_is_url(url))
		return kj_err_set(err, KJ_E_USAGE, "store: '%s' is not a PostgreSQL URL (a SQLite store "
				  "is read with kj_score_load)", url);
	if ((rc = kj_pg_open_readonly(url, &pg, err)))
		return rc;
	if (!(s = calloc(1, sizeof(*s)))) {
		kj_pg_close(pg);
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	}
	s->pg = pg;
	pthread_mutex_init(&s->mu, NULL);
	*out = s;
	return 0;
}

int kj_store_open(const char *path, kj_db **out, struct kj_err *err)
{
	kj_db *s;
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int rc;
	*out = NULL;
	if (kj_pg_is_url(path)) {
		struct kj_pg *pg;
		if ((rc = kj_pg_open(path, &pg, err)))
			return rc;
		if (!(s = calloc(1, sizeof(*s)))) {
			kj_pg_close(pg);
			return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
		}
		s->pg = pg;
		pthread_mutex_init(&s->mu, NULL);
		*out = s;
		return 0;
	}
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
			    NULL) != SQLITE_OK) {
		rc = kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", path,
				db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return rc;
	}
	sqlite3_busy_timeout(db, 10000);
	sqlite3_extended_result_codes(db, 1);
	/* the first read tells a non-database file apart */
	if ((rc = prep(db, "PRAGMA journal_mode = WAL", &st, err))) {
		kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return rc;
	}
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", path, sqlite3_errmsg(db));
		sqlite3_finalize(st);
		sqlite3_close(db);
		return rc;
	}
	sqlite3_finalize(st);
	if ((rc = exec(db, "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON", err)) ||
	    (rc = migrate(db, path, err))) {
		sqlite3_close(db);
		return rc;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		sqlite3_close(db);
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	}
	s->db = db;
	pthread_mutex_init(&s->mu, NULL);
	*out = s;
	return 0;
}

void kj_store_close(kj_db *s)
{
	if (!s)
		return;
	if (s->pg) {
		kj_pg_close(s->pg);
		pthread_mutex_destroy(&s->mu);
		free(s);
		return;
	}
	if (!sqlite3_get_autocommit(s->db))
		exec(s->db, "ROLLBACK", NULL);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

struct sqlite3 *kj_store_sqlite(kj_db *s)
{
	return s->db;
}

struct kj_pg *kj_store_pg(kj_db *s)
{
	return s ? s->pg : NULL;
}

const char *kj_store_backend(kj_db *s)
{
	return s->pg ? "postgresql" : "sqlite";
}

#define LOCK(s) pthread_mutex_lock(&(s)->mu)
#define UNLOCK(s) pthread_mutex_unlock(&(s)->mu)

int kj_store_schema_version(kj_db *s, struct kj_err *err)
{
	if (s->pg)
		return kj_pg_schema_version(s->pg, err);
	int v = 0, rc;
	LOCK(s);
	rc = user_version(s->db, &v, err);
	UNLOCK(s);
	return rc ? rc : v;
}

int kj_store_begin(kj_db *s, struct kj_err *err)
{
	if (s->pg)
		return kj_pg_begin(s->pg, err);
	int rc;
	LOCK(s);
	if (s->outer) {
		UNLOCK(s);
		return kj_err_set(err, KJ_E_USAGE, "store: a transaction is already open");
	}
	rc = exec(s->db, "BEGIN IMMEDIATE", err);
	if (!rc)
		s->outer = 1;
	UNLOCK(s);
	return rc;
}

static int end_outer(kj_db *s, const char *sql, struct kj_err *err)
{
	int rc;
	LOCK(s);
	if (!s->outer) {
		UNLOCK(s);
		return kj_err_set(err, KJ_E_USAGE, "store: no transaction is open");
	}
	rc = exec(s->db, sql, err);
	if (!rc || sqlite3_get_autocommit(s->db))
		s->outer = 0;
	UNLOCK(s);
	return rc;
}

int kj_store_commit(kj_db *s, struct kj_err *err)
{
	if (s->pg)
		return kj_pg_commit(s->pg, err);
	return end_outer(s, "COMMIT", err);
}

int kj_store_rollback(kj_db *s, struct kj_err *err)
{
	if (s->pg)
		return kj_pg_rollback(s->pg, err);
	return end_outer(s, "ROLLBACK", err);
}

/* ---- runs, tasks, candidates ------------------------------------------- */

static int run_find(kj_db *s, const char *name, int64_t *run_id, char *backend, size_t bl,
		    struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc = prep(s->db, "SELECT id, backend FROM runs WHERE name = ?1", &st, err), r;
	if (rc)
		return rc;
	bind_str(st, 1, name);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(st, 0);
		if (backend)
			snprintf(backend, bl, "%s", col_str(st, 1));
	} else if (r == SQLITE_DONE) {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no run '%s' in this database", name);
	} else {
		rc = db_fail(s->db, err, "cannot look up the run");
	}
	sqlite3_finalize(st);
	return rc;
}

int kj_store_run_find(kj_db *s, const char *name, int64_t *run_id, struct kj_err *err)
{
	int rc;
	if (s->pg)
		return kj_pg_run_find(s->pg, name, run_id, err);
	LOCK(s);
	rc = run_find(s, name, run_id, NULL, 0, err);
	UNLOCK(s);
	return rc;
}

int kj_store_run_get_or_create(kj_db *s, const char *name, const char *backend,
			       const char *spec, const char *settings, int64_t *run_id,
			       struct kj_err *err)
{
	sqlite3_stmt *st = NULL;
	char have[16];
	int rc;
	if (!name || !*name)
		return kj_err_set(err, KJ_E_USAGE, "store: a run needs a name");
	if (!backend || (strcmp(backend, "cpu") && strcmp(backend, "cuda")))
		return kj_err_set(err, KJ_E_USAGE, "store: unknown backend '%s'", backend ? backend : "");
	if (s->pg)
		return kj_pg_run_get_or_create(s->pg, name, backend, spec, settings, run_id, err);
	LOCK(s);
	if ((rc = tx_begin(s, err)))
		goto out;
	if ((rc = prep(s->db,
		       "INSERT INTO runs (name, backend, spec, settings, kjudge_version) "
		       "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (name) DO NOTHING",
		       &st, err)))
		goto fail;
	bind_str(st, 1, name);
	bind_str(st, 2, backend);
	bind_str(st, 3, spec);
	bind_str(st, 4, settings && *settings ? settings : "{}");
	bind_str(st, 5, KJ_VERSION_STRING);
	if ((rc = step_done(s->db, st, err, "cannot create the run")))
		goto fail;
	if ((rc = run_find(s, name, run_id, have, sizeof(have), err)))
		goto fail;
	if (strcmp(have, backend)) {
		rc = kj_err_set(err, KJ_E_USAGE, "run '%s' is a %s run, not %s", name, have, backend);
		goto fail;
	}
	rc = tx_commit(s, err);
	goto out;
fail:
	tx_rollback(s);
out:
	sqlite3_finalize(st);
	UNLOCK(s);
	return rc;
}

const char *kj_store_task_dtype(const kj_task *t)
{
	int have = -1;
	for (int i = 0; i < t->nvals; i++) {
		if (t->vals[i].kind != KJ_V_OUTPUT)
			continue;
		if (have >= 0 && have != (int)t->vals[i].dtype)
			return "mixed";
		have = (int)t->vals[i].dtype;
	}
	return have < 0 ? "" : kj_dtype_name((kj_dtype)have);
}

int kj_store_put_task(kj_db *s, const kj_task *t, const char *kt_sha256, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (s->pg)
		return kj_pg_put_task(s->pg, t, kt_sha256, err);
	LOCK(s);
	rc = prep(s->db,
		  "INSERT INTO tasks (id, level, category, about, sha256, dtype) "
		  "VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (id) DO UPDATE SET "
		  "level = excluded.level, category = excluded.category, about = excluded.about, "
		  "sha256 = excluded.sha256, dtype = excluded.dtype",
		  &st, err);
	if (!rc) {
		bind_str(st, 1, t->id);
		sqlite3_bind_int(st, 2, t->level);
		bind_str(st, 3, t->category);
		bind_str(st, 4, t->about);
		bind_str(st, 5, kt_sha256);
		bind_str(st, 6, kj_store_task_dtype(t));
		rc = step_done(s->db, st, err, "cannot write the task");
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	return rc;
}

static int add_candidate(kj_db *s, const struct kj_store_candidate *c, const char *sha,
			 int64_t *id, int *created, struct kj_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc, r;
	if ((rc = prep(s->db, "SELECT 1 FROM tasks WHERE id = ?1", &st, err)))
		return rc;
	bind_str(st, 1, c->task);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if (r == SQLITE_DONE)
		return kj_err_set(err, KJ_E_USAGE, "store: unknown task '%s' (add it with kj_store_put_task)",
				  c->task ? c->task : "");
	if (r != SQLITE_ROW)
		return db_fail(s->db, err, "cannot look up the task");
	if ((rc = prep(s->db,
		       "SELECT id, sha256 FROM candidates WHERE run_id = ?1 AND model = ?2 AND task = ?3 "
		       "AND sample = ?4 AND round = ?5",
		       &st, err)))
		return rc;
	sqlite3_bind_int64(st, 1, c->run_id);
	bind_str(st, 2, c->model);
	bind_str(st, 3, c->task);
	sqlite3_bind_int(st, 4, c->sample);
	sqlite3_bind_int(st, 5, c->round);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		if (strcmp(col_str(st, 1), sha))
			rc = kj_err_set(err, KJ_E_USAGE,
					"candidate (model '%s', task %s, sample %d, round %d) already holds "
					"another source", c->model ? c->model : "", c->task, c->sample, c->round);
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return db_fail(s->db, err, "cannot look up the candidate");
	if ((rc = prep(s->db,
		       "INSERT INTO candidates (run_id, task, source, sha256, model, method, sample, round, "
		       "parent_id, path) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
		       &st, err)))
		return rc;
	sqlite3_bind_int64(st, 1, c->run_id);
	bind_str(st, 2, c->task);
	sqlite3_bind_text(st, 3, c->source ? c->source : "", c->source ? (int)c->source_len : 0,
			  SQLITE_TRANSIENT);
	bind_str(st, 4, sha);
	bind_str(st, 5, c->model);
	bind_str(st, 6, c->method);
	sqlite3_bind_int(st, 7, c->sample);
	sqlite3_bind_int(st, 8, c->round);
	bind_id(st, 9, c->parent_id);
	bind_str(st, 10, c->path);
	rc = step_done(s->db, st, err, "cannot add the candidate");
	sqlite3_finalize(st);
	if (rc)
		return rc;
	*id = sqlite3_last_insert_rowid(s->db);
	if (created)
		*created = 1;
	return 0;
}

int kj_store_add_candidate(kj_db *s, const struct kj_store_candidate *c, int64_t *id,
			   int *created, struct kj_err *err)
{
	char sha[65];
	int rc;
	if (created)
		*created = 0;
	if (c->source_len > (size_t)0x7fffffff)
		return kj_err_set(err, KJ_E_USAGE, "store: a candidate source of %zu bytes is too large",
				  c->source_len);
	if (c->sha256)
		snprintf(sha, sizeof(sha), "%s", c->sha256);
	else
		kj_sha256_hex(c->source ? c->source : "", c->source ? c->source_len : 0, sha);
	if (s->pg)
		return kj_pg_add_candidate(s->pg, c, sha, id, created, err);
	LOCK(s);
	if (!(rc = tx_begin(s, err))) {
		rc = add_candidate(s, c, sha, id, created, err);
		if (rc)
			tx_rollback(s);
		else
			rc = tx_commit(s, err);
	}
	UNLOCK(s);
	if (rc && created)
		*created = 0;
	return rc;
}

int kj_store_link_parents(kj_db *s, int64_t run_id, int *linked, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (s->pg)
		return kj_pg_link_parents(s->pg, run_id, linked, err);
	LOCK(s);
	rc = prep(s->db,
		  "UPDATE candidates AS c SET parent_id = (SELECT p.id FROM candidates p WHERE "
		  "p.run_id = c.run_id AND p.model = c.model AND p.task = c.task AND p.sample = c.sample "
		  "AND p.round = c.round - 1) "
		  "WHERE c.run_id = ?1 AND c.parent_id IS NULL AND c.round > 0 AND EXISTS (SELECT 1 FROM "
		  "candidates p WHERE p.run_id = c.run_id AND p.model = c.model AND p.task = c.task "
		  "AND p.sample = c.sample AND p.round = c.round - 1)",
		  &st, err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, run_id);
		rc = step_done(s->db, st, err, "cannot link parent candidates");
		if (!rc && linked)
			*linked = sqlite3_changes(s->db);
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	return rc;
}

int kj_store_pending(kj_db *s, int64_t run_id,
		     int (*fn)(void *ctx, const struct kj_store_cand *c), void *ctx,
		     struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc, r;
	if (s->pg)
		return kj_pg_pending(s->pg, run_id, fn, ctx, err);
	LOCK(s);
	rc = prep(s->db,
		  "SELECT id, task, sha256, source, model, method, path, sample, round FROM candidates c "
		  "WHERE run_id = ?1 AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = c.id) "
		  "ORDER BY id",
		  &st, err);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct kj_store_cand c;
		c.id = sqlite3_column_int64(st, 0);
		c.task = col_str(st, 1);
		c.sha256 = col_str(st, 2);
		c.source = col_str(st, 3);
		c.source_len = (size_t)sqlite3_column_bytes(st, 3);
		c.model = col_str(st, 4);
		c.method = col_str(st, 5);
		c.path = col_str(st, 6);
		c.sample = sqlite3_column_int(st, 7);
		c.round = sqlite3_column_int(st, 8);
		if ((rc = fn(ctx, &c)))
			break;
	}
	if (!rc && r != SQLITE_DONE)
		rc = db_fail(s->db, err, "cannot list pending candidates");
	sqlite3_finalize(st);
out:
	UNLOCK(s);
	return rc;
}

/* ---- devices and calibrations ------------------------------------------ */

int kj_store_device_upsert(kj_db *s, const char *uuid, const char *name, const char *arch,
			   const char *info, int64_t *id, struct kj_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;
	if (!uuid || !*uuid)
		return kj_err_set(err, KJ_E_USAGE, "store: a device needs a uuid");
	if (s->pg)
		return kj_pg_device_upsert(s->pg, uuid, name, arch, info, id, err);
	LOCK(s);
	if ((rc = tx_begin(s, err)))
		goto out;
	if ((rc = prep(s->db,
		       "INSERT INTO devices (uuid, name, arch, info) VALUES (?1, ?2, ?3, ?4) "
		       "ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, arch = excluded.arch, "
		       "info = excluded.info",
		       &st, err)))
		goto fail;
	bind_str(st, 1, uuid);
	bind_str(st, 2, name);
	bind_str(st, 3, arch);
	bind_str(st, 4, info && *info ? info : "{}");
	if ((rc = step_done(s->db, st, err, "cannot write the device")))
		goto fail;
	sqlite3_finalize(st);
	if ((rc = prep(s->db, "SELECT id FROM devices WHERE uuid = ?1", &st, err)))
		goto fail;
	bind_str(st, 1, uuid);
	if (sqlite3_step(st) != SQLITE_ROW) {
		rc = db_fail(s->db, err, "cannot read the device back");
		goto fail;
	}
	*id = sqlite3_column_int64(st, 0);
	rc = tx_commit(s, err);
	goto out;
fail:
	tx_rollback(s);
out:
	sqlite3_finalize(st);
	UNLOCK(s);
	return rc;
}

int kj_store_calibration_add(kj_db *s, int64_t device_id, const kj_calib *c, struct kj_err *err)
{
	sqlite3_stmt *st;
	json_t *r = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "fp64", c->fp64_tflops, "fp32",
			      c->fp32_tflops, "tf32", c->tf32_tflops, "fp16", c->fp16_tflops, "bf16",
			      c->bf16_tflops, "int8", c->int8_tops, "fp8", c->fp8_tflops, "seconds",
			      c->seconds);
	char *rates = r ? json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	int rc;
	json_decref(r);
	if (!rates)
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	if (s->pg) {
		rc = kj_pg_calibration_add(s->pg, device_id, rates, c->copy_gbs, err);
		free(rates);
		return rc;
	}
	LOCK(s);
	rc = prep(s->db, "INSERT INTO calibrations (device_id, copy_gbs, rates) VALUES (?1, ?2, ?3)", &st,
		  err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, device_id);
		sqlite3_bind_double(st, 2, c->copy_gbs);
		bind_str(st, 3, rates);
		rc = step_done(s->db, st, err, "cannot write the calibration");
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	free(rates);
	return rc;
}

static double rate(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0;
}

/* The rates JSON of a calibrations row into c. */
static void calib_rates(kj_calib *c, const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	c->fp64_tflops = rate(o, "fp64");
	c->fp32_tflops = rate(o, "fp32");
	c->tf32_tflops = rate(o, "tf32");
	c->fp16_tflops = rate(o, "fp16");
	c->bf16_tflops = rate(o, "bf16");
	c->int8_tops = rate(o, "int8");
	c->fp8_tflops = rate(o, "fp8");
	c->seconds = rate(o, "seconds");
	json_decref(o);
}

int kj_store_calibration_latest(kj_db *s, int64_t device_id, kj_calib *c, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc, r;
	memset(c, 0, sizeof(*c));
	if (s->pg) {
		char *rates = NULL;
		rc = kj_pg_calibration_latest(s->pg, device_id, &c->copy_gbs, &rates, c->uuid,
					      sizeof(c->uuid), c->name, sizeof(c->name), err);
		if (!rc)
			calib_rates(c, rates);
		free(rates);
		return rc;
	}
	LOCK(s);
	rc = prep(s->db,
		  "SELECT c.copy_gbs, c.rates, d.uuid, d.name FROM calibrations c JOIN devices d ON "
		  "d.id = c.device_id WHERE c.device_id = ?1 ORDER BY c.created DESC, c.id DESC LIMIT 1",
		  &st, err);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, device_id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		c->copy_gbs = sqlite3_column_double(st, 0);
		snprintf(c->uuid, sizeof(c->uuid), "%s", col_str(st, 2));
		snprintf(c->name, sizeof(c->name), "%s", col_str(st, 3));
		calib_rates(c, col_str(st, 1));
	} else if (r == SQLITE_DONE) {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "store: device %lld has no calibration",
				(long long)device_id);
	} else {
		rc = db_fail(s->db, err, "cannot read the calibration");
	}
	sqlite3_finalize(st);
out:
	UNLOCK(s);
	return rc;
}

/* ---- verdicts ----------------------------------------------------------- */

int kj_store_judgement_begin(kj_db *s, int64_t candidate_id, int64_t device_id, int64_t *id,
			     struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (s->pg)
		return kj_pg_judgement_begin(s->pg, candidate_id, device_id, id, err);
	LOCK(s);
	rc = prep(s->db, "INSERT INTO judgements (candidate_id, device_id, pid) VALUES (?1, ?2, ?3)", &st,
		  err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, candidate_id);
		bind_id(st, 2, device_id);
		sqlite3_bind_int64(st, 3, (int64_t)getpid());
		rc = step_done(s->db, st, err, "cannot log the judgement");
		sqlite3_finalize(st);
		if (!rc)
			*id = sqlite3_last_insert_rowid(s->db);
	}
	UNLOCK(s);
	return rc;
}

/* The candidate's run and whether it has a verdict already. */
static int cand_state(kj_db *s, int64_t id, int64_t *run_id, int *has_verdict,
		      char *task, size_t tl, char *sha, size_t shl, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc = prep(s->db,
		      "SELECT run_id, EXISTS (SELECT 1 FROM verdicts WHERE candidate_id = c.id), task, "
		      "sha256 FROM candidates c WHERE id = ?1",
		      &st, err), r;
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(st, 0);
		*has_verdict = sqlite3_column_int(st, 1);
		if (task)
			snprintf(task, tl, "%s", col_str(st, 2));
		if (sha)
			snprintf(sha, shl, "%s", col_str(st, 3));
	} else if (r == SQLITE_DONE) {
		rc = kj_err_set(err, KJ_E_USAGE, "store: no candidate %lld", (long long)id);
	} else {
		rc = db_fail(s->db, err, "cannot look up the candidate");
	}
	sqlite3_finalize(st);
	return rc;
}

static int put_shapes(kj_db *s, int64_t cid, const kj_verdict *v, const kj_task *t,
		      int64_t device_id, struct kj_err *err)
{
	sqlite3_stmt *st = NULL, *bl = NULL;
	char shape[512];
	int rc;
	if ((rc = prep(s->db,
		       "INSERT INTO verdict_shapes (candidate_id, kind, bind, shape, weight, ms, iqr_ms, n, "
		       "baseline_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes) VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
		       &st, err)))
		return rc;
	if ((rc = prep(s->db,
		       "INSERT INTO baselines (task, shape, device_id, ms, iqr_ms, n) VALUES "
		       "(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (task, shape, device_id) DO UPDATE SET "
		       "ms = excluded.ms, iqr_ms = excluded.iqr_ms, n = excluded.n, updated = " NOW_SQL,
		       &bl, err)))
		goto out;
	for (int i = 0; i < v->nperf && !rc; i++) {
		const kj_perf *p = &v->perf[i];
		if (p->n <= 0)
			continue;
		if (p->bind < 0 || p->bind >= t->nbind) {
			rc = kj_err_set(err, KJ_E_INTERNAL, "store: perf entry %d names shape %d of %d", i,
					p->bind, t->nbind);
			break;
		}
		kj_binding_str(t, &t->binds[p->bind], shape, sizeof(shape));
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, cid);
		bind_str(st, 2, t->binds[p->bind].bench ? "bench" : "check");
		sqlite3_bind_int(st, 3, p->bind);
		bind_str(st, 4, shape);
		sqlite3_bind_double(st, 5, p->weight);
		sqlite3_bind_double(st, 6, p->ms);
		sqlite3_bind_double(st, 7, p->iqr_ms);
		sqlite3_bind_int(st, 8, p->n);
		bind_pos(st, 9, p->baseline_n > 0 ? p->baseline_ms : -1);
		bind_pos(st, 10, p->baseline_n > 0 ? p->speedup : -1);
		bind_pos(st, 11, p->sol_ms);
		bind_pos(st, 12, p->sol_frac);
		bind_pos(st, 13, p->iou);
		bind_pos(st, 14, p->mfu);
		sqlite3_bind_double(st, 15, p->flops);
		sqlite3_bind_double(st, 16, p->bytes);
		rc = step_done(s->db, st, err, "cannot write a verdict shape");
		if (rc || device_id <= 0 || p->baseline_n <= 0)
			continue;
		sqlite3_reset(bl);
		bind_str(bl, 1, t->id);
		bind_str(bl, 2, shape);
		sqlite3_bind_int64(bl, 3, device_id);
		sqlite3_bind_double(bl, 4, p->baseline_ms);
		sqlite3_bind_double(bl, 5, p->baseline_iqr_ms);
		sqlite3_bind_int(bl, 6, p->baseline_n);
		rc = step_done(s->db, bl, err, "cannot write a baseline");
	}
out:
	sqlite3_finalize(st);
	sqlite3_finalize(bl);
	return rc;
}

static int put_checks(kj_db *s, int64_t cid, const kj_verdict *v, const kj_task *t,
		      struct kj_err *err)
{
	sqlite3_stmt *st;
	char shape[512];
	int rc = prep(s->db,
		      "INSERT INTO verdict_checks (candidate_id, kind, bind, shape, seed_index, flavour, "
		      "output, pass, max_abs, max_rel, baseline_max_abs, budget_metric, tol_ratio, "
		      "baseline_tol_ratio, budget, budget_used) VALUES "
		      "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
		      &st, err);
	if (rc)
		return rc;
	for (int i = 0; i < v->nchecks && !rc; i++) {
		const kj_check *k = &v->checks[i];
		if (k->bind < 0 || k->bind >= t->nbind) {
			rc = kj_err_set(err, KJ_E_INTERNAL, "store: check %d names shape %d of %d", i,
					k->bind, t->nbind);
			break;
		}
		kj_binding_str(t, &t->binds[k->bind], shape, sizeof(shape));
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, cid);
		bind_str(st, 2, t->binds[k->bind].bench ? "bench" : "check");
		sqlite3_bind_int(st, 3, k->bind);
		bind_str(st, 4, shape);
		sqlite3_bind_int(st, 5, k->seed_index);
		bind_str(st, 6, kj_seed_flavour_name(k->flavour));
		bind_str(st, 7, k->output);
		sqlite3_bind_int(st, 8, k->pass ? 1 : 0);
		sqlite3_bind_double(st, 9, k->max_abs);
		sqlite3_bind_double(st, 10, k->max_rel);
		sqlite3_bind_double(st, 11, k->base_max_abs);
		bind_str(st, 12, k->budget_metric);
		sqlite3_bind_double(st, 13, k->tol_ratio);
		if (isnan(k->base_tol_ratio))
			sqlite3_bind_null(st, 14);
		else
			sqlite3_bind_double(st, 14, k->base_tol_ratio);
		sqlite3_bind_double(st, 15, k->budget);
		sqlite3_bind_int(st, 16, k->budget_used ? 1 : 0);
		rc = step_done(s->db, st, err, "cannot write a verdict check");
	}
	sqlite3_finalize(st);
	return rc;
}

static int put_verdict(kj_db *s, int64_t cid, const kj_verdict *v, const kj_task *t,
		       const char *json, const struct kj_store_verdict_opts *o, struct kj_err *err)
{
	sqlite3_stmt *st;
	char flags[256];
	int64_t run_id;
	int has, rc;
	if ((rc = cand_state(s, cid, &run_id, &has, NULL, 0, NULL, 0, err)))
		return rc;
	if ((rc = kj_store_check_put(cid, run_id, has, o, err)))
		return rc;
	kj_flags_str(v->flags, flags, sizeof(flags));
	if ((rc = prep(s->db,
		       "INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id, "
		       "cache_key, status, stage, reason, flags, fallback_libs, speedup, compile_s, total_s, "
		       "json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
		       &st, err)))
		return rc;
	sqlite3_bind_int64(st, 1, cid);
	sqlite3_bind_int64(st, 2, run_id);
	bind_str(st, 3, t->id);
	bind_str(st, 4, v->sha256);
	bind_str(st, 5, kj_backend_name(v->backend));
	bind_id(st, 6, o ? o->device_id : 0);
	bind_str(st, 7, o ? o->cache_key : NULL);
	bind_str(st, 8, kj_status_name(v->status));
	bind_str(st, 9, kj_stage_name(v->stage));
	bind_str(st, 10, v->reason);
	bind_str(st, 11, flags);
	bind_str(st, 12, v->fallback_libs);
	bind_pos(st, 13, v->speedup > 0 ? v->speedup : -1);
	sqlite3_bind_double(st, 14, v->compile_s);
	sqlite3_bind_double(st, 15, v->total_s);
	bind_str(st, 16, json);
	rc = step_done(s->db, st, err, "cannot write the verdict");
	sqlite3_finalize(st);
	if (rc || (rc = put_shapes(s, cid, v, t, o ? o->device_id : 0, err)) ||
	    (rc = put_checks(s, cid, v, t, err)))
		return rc;
	if (o && o->judgement_id > 0) {
		if ((rc = prep(s->db, "UPDATE judgements SET finished = " NOW_SQL " WHERE id = ?1", &st, err)))
			return rc;
		sqlite3_bind_int64(st, 1, o->judgement_id);
		rc = step_done(s->db, st, err, "cannot finish the judgement");
		sqlite3_finalize(st);
	}
	return rc;
}

int kj_store_put_verdict(kj_db *s, int64_t candidate_id, const kj_verdict *v,
			 const kj_task *t, const char *json,
			 const struct kj_store_verdict_opts *o, struct kj_err *err)
{
	char *own = NULL;
	int rc;
	if (!json) {
		own = kj_verdict_json_text(v, t);
		if (!own)
			return kj_err_set(err, KJ_E_NOMEM, "store: cannot render the verdict JSON");
		json = own;
	}
	if (s->pg) {
		rc = kj_pg_put_verdict(s->pg, candidate_id, v, t, json, o, err);
		free(own);
		return rc;
	}
	LOCK(s);
	if (!(rc = tx_begin(s, err))) {
		rc = put_verdict(s, candidate_id, v, t, json, o, err);
		if (rc)
			tx_rollback(s);
		else
			rc = tx_commit(s, err);
	}
	UNLOCK(s);
	free(own);
	return rc;
}

int kj_store_find_verdict_by_sha(kj_db *s, const char *sha256, const char *task,
				 const char *backend, int64_t device_id, const char *cache_key,
				 int64_t *candidate_id, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc, r;
	*candidate_id = 0;
	if (s->pg)
		return kj_pg_find_verdict_by_sha(s->pg, sha256, task, backend, device_id, cache_key,
						 candidate_id, err);
	LOCK(s);
	rc = prep(s->db,
		  "SELECT candidate_id FROM verdicts WHERE sha256 = ?1 AND task = ?2 AND backend = ?3 "
		  "AND (?4 = 0 OR device_id = ?4) AND (?5 IS NULL OR cache_key = ?5) "
		  "AND reused_from IS NULL ORDER BY id LIMIT 1",
		  &st, err);
	if (!rc) {
		bind_str(st, 1, sha256);
		bind_str(st, 2, task);
		bind_str(st, 3, backend);
		sqlite3_bind_int64(st, 4, device_id > 0 ? device_id : 0);
		if (cache_key)
			bind_str(st, 5, cache_key);
		else
			sqlite3_bind_null(st, 5);
		r = sqlite3_step(st);
		if (r == SQLITE_ROW)
			*candidate_id = sqlite3_column_int64(st, 0);
		else if (r != SQLITE_DONE)
			rc = db_fail(s->db, err, "cannot look up the verdict cache");
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	return rc;
}

static int copy_verdict(kj_db *s, int64_t from, int64_t to, struct kj_err *err)
{
	static const char copy_row[] =
		"INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id, cache_key, "
		"status, stage, reason, flags, fallback_libs, speedup, compile_s, total_s, reused_from, "
		"json) SELECT ?2, ?3, task, sha256, backend, device_id, cache_key, status, stage, reason, "
		"flags, fallback_libs, speedup, compile_s, total_s, coalesce(reused_from, candidate_id), "
		"json FROM verdicts WHERE candidate_id = ?1";
	static const char copy_shapes[] =
		"INSERT INTO verdict_shapes SELECT ?2, kind, bind, shape, weight, ms, iqr_ms, n, "
		"baseline_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes FROM verdict_shapes "
		"WHERE candidate_id = ?1";
	static const char copy_checks[] =
		"INSERT INTO verdict_checks (candidate_id, kind, bind, shape, seed_index, flavour, output, "
		"pass, max_abs, max_rel, baseline_max_abs, budget_metric, tol_ratio, baseline_tol_ratio, "
		"budget, budget_used) SELECT ?2, kind, bind, shape, seed_index, flavour, output, pass, "
		"max_abs, max_rel, baseline_max_abs, budget_metric, tol_ratio, baseline_tol_ratio, budget, "
		"budget_used FROM verdict_checks WHERE candidate_id = ?1";
	static const char *const sql[] = { copy_row, copy_shapes, copy_checks };
	char ftask[256], fsha[65], ttask[256], tsha[65];
	int64_t frun, trun;
	int fhas, thas, rc;
	if ((rc = cand_state(s, from, &frun, &fhas, ftask, sizeof(ftask), fsha, sizeof(fsha), err)) ||
	    (rc = cand_state(s, to, &trun, &thas, ttask, sizeof(ttask), tsha, sizeof(tsha), err)))
		return rc;
	if ((rc = kj_store_check_copy(from, fhas, ftask, fsha, to, thas, ttask, tsha, err)))
		return rc;
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !rc; i++) {
		sqlite3_stmt *st;
		if ((rc = prep(s->db, sql[i], &st, err)))
			break;
		sqlite3_bind_int64(st, 1, from);
		sqlite3_bind_int64(st, 2, to);
		sqlite3_bind_int64(st, 3, trun);
		rc = step_done(s->db, st, err, "cannot copy the verdict");
		sqlite3_finalize(st);
	}
	return rc;
}

int kj_store_copy_verdict(kj_db *s, int64_t from, int64_t to, struct kj_err *err)
{
	int rc;
	if (s->pg)
		return kj_pg_copy_verdict(s->pg, from, to, err);
	LOCK(s);
	if (!(rc = tx_begin(s, err))) {
		rc = copy_verdict(s, from, to, err);
		if (rc)
			tx_rollback(s);
		else
			rc = tx_commit(s, err);
	}
	UNLOCK(s);
	return rc;
}

int kj_store_get_verdict(kj_db *s, int64_t candidate_id, char **json, kj_status *status,
			 struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc, r;
	if (json)
		*json = NULL;
	if (s->pg) {
		char name[32] = "";
		rc = kj_pg_get_verdict(s->pg, candidate_id, json, name, sizeof(name), err);
		if (!rc && status && kj_status_from_name(name, status))
			rc = kj_err_set(err, KJ_E_INTERNAL, "store: unknown status '%s'", name);
		return rc;
	}
	LOCK(s);
	rc = prep(s->db, "SELECT json, status FROM verdicts WHERE candidate_id = ?1", &st, err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, candidate_id);
		r = sqlite3_step(st);
		if (r == SQLITE_ROW) {
			if (json && !(*json = strdup(col_str(st, 0))))
				rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
			if (status && kj_status_from_name(col_str(st, 1), status))
				rc = kj_err_set(err, KJ_E_INTERNAL, "store: unknown status '%s'",
						col_str(st, 1));
		} else if (r == SQLITE_DONE) {
			rc = kj_err_set(err, KJ_E_NOTFOUND, "store: candidate %lld has no verdict",
					(long long)candidate_id);
		} else {
			rc = db_fail(s->db, err, "cannot read the verdict");
		}
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	return rc;
}

void kj_store_cache_key(const struct kj_eval_opts *o, char *buf, size_t len)
{
	char seed[32], sh[65];
	/* the seed only as a hash: a hidden seed must not be readable here */
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->base_seed);
	kj_sha256_hex(seed, strlen(seed), sh);
	/* jail: verdicts of a judge with the sandbox (and its trusted timing)
	 * are not mixed with older or unconfined ones; errbudget: nor those of a
	 * judge without the error budget or with another multiple */
	snprintf(buf, len, "seeds=%d;perf=%d;timeout=%g;budget=%g;policy=%s;seed=%.12s;jail=%d;errbudget=%g",
		 o->seeds, o->no_perf ? 0 : 1, o->call_timeout_s, o->perf_budget_s,
		 o->policy == KJ_POLICY_STRICT ? "strict" : "flag", sh, o->unconfined ? 0 : 1, KJ_BUDGET_MULT);
	/* knobs: a verdict's speedups are against the baseline the knobs
	 * select, so a default run reuses no verdict of a run with knobs set,
	 * nor the other way round (a hash: the list can be long; knobs with
	 * a value kj_gpu_open refuses key as "invalid") */
	if (kj_backend_is_gpu(o->backend)) {
		char knobs[KJ_KNOBS_KEY_MAX], kh[65];
		if (kj_knobs_key(knobs, sizeof(knobs), NULL))
			snprintf(knobs, sizeof(knobs), "invalid");
		if (*knobs) {
			kj_sha256_hex(knobs, strlen(knobs), kh);
			snprintf(buf + strlen(buf), len - strlen(buf), ";knobs=%.16s", kh);
		}
	}
}

int kj_store_run_counts(kj_db *s, int64_t run_id, struct kj_store_counts *c, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc, r;
	memset(c, 0, sizeof(*c));
	if (s->pg)
		return kj_pg_run_counts(s->pg, run_id, c, err);
	LOCK(s);
	rc = prep(s->db,
		  "SELECT v.status, count(c.id), count(v.id), count(v.reused_from) FROM candidates c "
		  "LEFT JOIN verdicts v ON v.candidate_id = c.id WHERE c.run_id = ?1 GROUP BY v.status",
		  &st, err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, run_id);
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			kj_status k;
			c->candidates += sqlite3_column_int64(st, 1);
			c->judged += sqlite3_column_int64(st, 2);
			c->reused += sqlite3_column_int64(st, 3);
			if (sqlite3_column_type(st, 0) != SQLITE_NULL &&
			    !kj_status_from_name(col_str(st, 0), &k))
				c->by_status[k] += sqlite3_column_int64(st, 1);
		}
		if (r != SQLITE_DONE)
			rc = db_fail(s->db, err, "cannot count the run");
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	return rc;
}
