/*
 * The results store on SQLite: the backend of include/kjudge/store.h for a
 * file path (src/store/store_int.h, docs/store.md).  One connection, its
 * lock, WAL mode.  A store opened read-only (kj_store_open_readonly: reports)
 * is opened with mode=ro and never migrated; one whose folder cannot be
 * written (an archive, a shared results folder) cannot get the WAL index file
 * a reader needs, and is then read as an immutable file, which is what it is.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjudge/version.h"
#include "store/rules.h"
#include "store/schema.h"
#include "store/store_int.h"


#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"

struct kj_sqlite {
	struct kj_db base;
	sqlite3 *db;
	pthread_mutex_t mu;
	int outer;      /* inside kj_store_begin() */
	char *path;     /* for messages */
};

static const struct kj_store_ops sqlite_ops;

#define SQ(d) ((struct kj_sqlite *)(d))

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

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Each write is a transaction of its own, or a savepoint inside the caller's
 * kj_store_begin().  Outside one, BEGIN IMMEDIATE takes the write lock up
 * front, so the busy timeout applies instead of a failing lock upgrade. */
static int tx_begin(struct kj_sqlite *s, struct kj_err *err)
{
	return exec(s->db, s->outer ? "SAVEPOINT kj_op" : "BEGIN IMMEDIATE", err);
}

static int tx_commit(struct kj_sqlite *s, struct kj_err *err)
{
	return exec(s->db, s->outer ? "RELEASE kj_op" : "COMMIT", err);
}

static void tx_rollback(struct kj_sqlite *s)
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

/* Opens path read-write, WAL mode, migrated to this binary's schema. */
static int open_rw(const char *path, sqlite3 **out, struct kj_err *err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int rc;
	*out = NULL;
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
	*out = db;
	return 0;
}

/* The "file:" URI of path, percent-encoded, with the query q. */
static char *uri_of(const char *path, const char *q)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), o = 0;
	char *u = malloc(3 * n + strlen(q) + 16);
	if (!u)
		return NULL;
	/* an absolute path gets an empty authority: "file:///x" */
	memcpy(u, path[0] == '/' ? "file://" : "file:", path[0] == '/' ? 7 : 5);
	o = path[0] == '/' ? 7 : 5;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/._-~", *p)) {
			u[o++] = (char)*p;
		} else {
			u[o++] = '%';
			u[o++] = hex[*p >> 4];
			u[o++] = hex[*p & 15];
		}
	}
	u[o++] = '?';
	memcpy(u + o, q, strlen(q) + 1);
	return u;
}

/* Opens path read-only (mode=ro, or immutable=1 too) and reads its
 * user_version: the first read, where a reader that cannot get the WAL index
 * fails.  Returns the SQLite result code; *db is set even on failure. */
static int open_ro_uri(const char *path, int immutable, sqlite3 **db)
{
	char *uri = uri_of(path, immutable ? "mode=ro&immutable=1" : "mode=ro");
	sqlite3_stmt *st;
	int rc;
	*db = NULL;
	if (!uri)
		return SQLITE_NOMEM;
	rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX,
			     NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_extended_result_codes(*db, 1);
	sqlite3_busy_timeout(*db, 10000);
	if ((rc = sqlite3_prepare_v2(*db, "PRAGMA user_version", -1, &st, NULL)) != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		rc = SQLITE_OK;
	sqlite3_finalize(st);
	return rc;
}

/* A write-ahead log next to path that holds commits not yet in the file. */
static int wal_has_data(const char *path)
{
	char wal[4200];
	struct stat sb;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	return stat(wal, &sb) == 0 && sb.st_size > 0;
}

/* Opens path for reading only: never created, migrated or written. */
static int open_ro(const char *path, sqlite3 **out, struct kj_err *err)
{
	sqlite3 *db = NULL;
	struct stat sb;
	int src, rc;
	*out = NULL;
	if (stat(path, &sb))
		return kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", path, strerror(errno));
	src = open_ro_uri(path, 0, &db);
	/* no WAL index can be made next to the file (read-only folder or medium):
	 * with no log holding commits, the file alone is the whole store */
	if (((src & 0xff) == SQLITE_CANTOPEN || (src & 0xff) == SQLITE_READONLY) &&
	    !wal_has_data(path)) {
		sqlite3_close(db);
		src = open_ro_uri(path, 1, &db);
	}
	if (src != SQLITE_OK) {
		if (wal_has_data(path))
			rc = kj_err_set(err, KJ_E_IO, "cannot read the store '%s' read-only: %s; its "
					"write-ahead log '%s-wal' holds commits that a reader can only see "
					"with write access to its folder (or with its '-shm' file next to "
					"it)", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(src), path);
		else
			rc = kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", path,
					db ? sqlite3_errmsg(db) : sqlite3_errstr(src));
		sqlite3_close(db);
		return rc;
	}
	*out = db;
	return 0;
}

int kj_sqlite_open(const char *path, int readonly, kj_db **out, struct kj_err *err)
{
	struct kj_sqlite *s;
	sqlite3 *db;
	int rc;
	*out = NULL;
	if ((rc = readonly ? open_ro(path, &db, err) : open_rw(path, &db, err)))
		return rc;
	if (!(s = calloc(1, sizeof(*s))) || !(s->path = strdup(path))) {
		free(s);
		sqlite3_close(db);
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	}
	s->base.ops = &sqlite_ops;
	s->db = db;
	pthread_mutex_init(&s->mu, NULL);
	*out = &s->base;
	return 0;
}

static void sq_close(kj_db *d)
{
	struct kj_sqlite *s = SQ(d);
	if (!sqlite3_get_autocommit(s->db))
		exec(s->db, "ROLLBACK", NULL);
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->mu);
	free(s->path);
	free(s);
}

static struct sqlite3 *sq_sqlite(kj_db *d)
{
	return SQ(d)->db;
}

static struct kj_pg *sq_cluster(kj_db *d)
{
	return NULL;
}

#define LOCK(s) pthread_mutex_lock(&(s)->mu)
#define UNLOCK(s) pthread_mutex_unlock(&(s)->mu)

static int sq_schema_version(kj_db *d, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	int v = 0, rc;
	LOCK(s);
	rc = user_version(s->db, &v, err);
	UNLOCK(s);
	return rc ? rc : v;
}

static int sq_begin(kj_db *d, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
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

static int end_outer(struct kj_sqlite *s, const char *sql, struct kj_err *err)
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

static int sq_commit(kj_db *d, struct kj_err *err)
{
	return end_outer(SQ(d), "COMMIT", err);
}

static int sq_rollback(kj_db *d, struct kj_err *err)
{
	return end_outer(SQ(d), "ROLLBACK", err);
}

/* ---- runs, tasks, candidates ------------------------------------------- */

static int run_find(struct kj_sqlite *s, const char *name, int64_t *run_id, char *backend, size_t bl,
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

static int sq_run_find(kj_db *d, const char *name, int64_t *run_id, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	int rc;
	LOCK(s);
	rc = run_find(s, name, run_id, NULL, 0, err);
	UNLOCK(s);
	return rc;
}

static int sq_run_get_or_create(kj_db *d, const char *name, const char *backend,
			       const char *spec, const char *settings, int64_t *run_id,
			       struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st = NULL;
	char have[16];
	int rc;
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
	bind_str(st, 5, kj_version());
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

static int sq_put_task(kj_db *d, const kj_task *t, const char *kt_sha256, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc;
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

static int add_candidate(struct kj_sqlite *s, const struct kj_store_candidate *c, const char *sha,
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

static int sq_add_candidate(kj_db *d, const struct kj_store_candidate *c, const char *sha,
			    int64_t *id, int *created, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	int rc;
	LOCK(s);
	if (!(rc = tx_begin(s, err))) {
		rc = add_candidate(s, c, sha, id, created, err);
		if (rc)
			tx_rollback(s);
		else
			rc = tx_commit(s, err);
	}
	UNLOCK(s);
	return rc;
}

static int sq_link_parents(kj_db *d, int64_t run_id, int *linked, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc;
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

static int sq_pending(kj_db *d, int64_t run_id,
		     int (*fn)(void *ctx, const struct kj_store_cand *c), void *ctx,
		     struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc, r;
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

static int sq_device_upsert(kj_db *d, const char *uuid, const char *name, const char *arch,
			   const char *info, int64_t *id, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st = NULL;
	int rc;
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

static int sq_calibration_add(kj_db *d, int64_t device_id, const char *rates, double copy_gbs,
			      struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc;
	LOCK(s);
	rc = prep(s->db, "INSERT INTO calibrations (device_id, copy_gbs, rates) VALUES (?1, ?2, ?3)", &st,
		  err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, device_id);
		sqlite3_bind_double(st, 2, copy_gbs);
		bind_str(st, 3, rates);
		rc = step_done(s->db, st, err, "cannot write the calibration");
		sqlite3_finalize(st);
	}
	UNLOCK(s);
	return rc;
}

static int sq_calibration_latest(kj_db *d, int64_t device_id, double *copy_gbs, char **rates,
				 char *uuid, size_t ul, char *name, size_t nl, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc, r;
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
		*copy_gbs = sqlite3_column_double(st, 0);
		snprintf(uuid, ul, "%s", col_str(st, 2));
		snprintf(name, nl, "%s", col_str(st, 3));
		if (!(*rates = strdup(col_str(st, 1))))
			rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
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

static int sq_judgement_begin(kj_db *d, int64_t candidate_id, int64_t device_id, int64_t *id,
			     struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc;
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
static int cand_state(struct kj_sqlite *s, int64_t id, int64_t *run_id, int *has_verdict,
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

static int put_shapes(struct kj_sqlite *s, int64_t cid, const kj_verdict *v, const kj_task *t,
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

static int put_checks(struct kj_sqlite *s, int64_t cid, const kj_verdict *v, const kj_task *t,
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

static int put_verdict(struct kj_sqlite *s, int64_t cid, const kj_verdict *v, const kj_task *t,
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

static int sq_put_verdict(kj_db *d, int64_t candidate_id, const kj_verdict *v,
			 const kj_task *t, const char *json,
			 const struct kj_store_verdict_opts *o, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	int rc;
	LOCK(s);
	if (!(rc = tx_begin(s, err))) {
		rc = put_verdict(s, candidate_id, v, t, json, o, err);
		if (rc)
			tx_rollback(s);
		else
			rc = tx_commit(s, err);
	}
	UNLOCK(s);
	return rc;
}

static int sq_find_verdict_by_sha(kj_db *d, const char *sha256, const char *task,
				 const char *backend, int64_t device_id, const char *cache_key,
				 int64_t *candidate_id, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc, r;
	*candidate_id = 0;
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

static int copy_verdict(struct kj_sqlite *s, int64_t from, int64_t to, struct kj_err *err)
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

static int sq_copy_verdict(kj_db *d, int64_t from, int64_t to, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	int rc;
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

static int sq_get_verdict(kj_db *d, int64_t candidate_id, char **json, char *status, size_t sl,
			  struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc, r;
	LOCK(s);
	rc = prep(s->db, "SELECT json, status FROM verdicts WHERE candidate_id = ?1", &st, err);
	if (!rc) {
		sqlite3_bind_int64(st, 1, candidate_id);
		r = sqlite3_step(st);
		if (r == SQLITE_ROW) {
			if (json && !(*json = strdup(col_str(st, 0))))
				rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
			snprintf(status, sl, "%s", col_str(st, 1));
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

static int sq_run_counts(kj_db *d, int64_t run_id, struct kj_store_counts *c, struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc, r;
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

/* ---- reading a run (reports) and a chain's attempts ------------------------ */

static int read_fail(struct kj_sqlite *s, struct kj_err *err, const char *what)
{
	return kj_err_set(err, KJ_E_IO, "cannot %s in '%s': %s", what, s->path, sqlite3_errmsg(s->db));
}

static const char read_run_sql[] =
	"SELECT id, name, backend, created, spec, settings, kjudge_version FROM runs WHERE name = ?1";
static const char read_cand_sql[] =
	"SELECT c.id, coalesce(c.parent_id, 0), c.task, c.model, c.method, c.sha256, c.path, c.source,"
	" coalesce(t.level, 0), coalesce(t.category, ''), coalesce(t.dtype, ''), c.sample, c.round,"
	" v.id IS NOT NULL, coalesce(v.status, ''), coalesce(v.stage, ''), coalesce(v.reason, ''),"
	" coalesce(v.flags, ''), v.speedup, coalesce(v.judged_at, ''), coalesce(v.cache_key, ''), v.json"
	" FROM candidates c LEFT JOIN tasks t ON t.id = c.task"
	" LEFT JOIN verdicts v ON v.candidate_id = c.id"
	" WHERE c.run_id = ?1 ORDER BY c.id";
static const char read_shape_sql[] =
	"SELECT s.candidate_id, s.weight, s.ms, s.iqr_ms, s.speedup, s.sol_ms, s.sol_frac, s.iou,"
	" s.mfu, s.flops, s.bytes FROM verdict_shapes s JOIN candidates c ON c.id = s.candidate_id"
	" WHERE c.run_id = ?1 ORDER BY s.candidate_id, s.bind";
static const char read_calib_sql[] =
	"SELECT d.name, d.uuid, cal.copy_gbs, cal.rates, cal.created FROM calibrations cal"
	" JOIN devices d ON d.id = cal.device_id"
	" WHERE d.id IN (SELECT DISTINCT device_id FROM verdicts WHERE run_id = ?1)"
	" AND cal.id = (SELECT c2.id FROM calibrations c2 WHERE c2.device_id = d.id"
	"  ORDER BY c2.created DESC, c2.id DESC LIMIT 1)"
	" ORDER BY d.id";
static const char read_device_sql[] =
	"SELECT d.name, d.uuid, d.arch, count(*) FROM verdicts v JOIN devices d ON d.id = v.device_id"
	" WHERE v.run_id = ?1 GROUP BY d.id ORDER BY d.id";
static const char read_span_sql[] =
	"SELECT coalesce(min(judged_at), ''), coalesce(max(judged_at), ''), count(DISTINCT cache_key)"
	" FROM verdicts WHERE run_id = ?1";

/* Hands the row at st to rd's callback for query k (0 cand ... 4 span). */
static int read_row(sqlite3_stmt *st, int k, const struct kj_store_reader *rd, void *ctx)
{
	switch (k) {
	case 0: {
		struct kj_store_cand_row c;
		c.id = sqlite3_column_int64(st, 0);
		c.parent_id = sqlite3_column_int64(st, 1);
		c.task = col_str(st, 2);
		c.model = col_str(st, 3);
		c.method = col_str(st, 4);
		c.sha256 = col_str(st, 5);
		c.path = col_str(st, 6);
		c.source = sqlite3_column_blob(st, 7);
		c.source_len = (size_t)sqlite3_column_bytes(st, 7);
		if (!c.source)
			c.source = "";
		c.level = sqlite3_column_int(st, 8);
		c.category = col_str(st, 9);
		c.dtype = col_str(st, 10);
		c.sample = sqlite3_column_int(st, 11);
		c.round = sqlite3_column_int(st, 12);
		c.judged = sqlite3_column_int(st, 13);
		c.status = col_str(st, 14);
		c.stage = col_str(st, 15);
		c.reason = col_str(st, 16);
		c.flags = col_str(st, 17);
		c.speedup = col_real(st, 18);
		c.judged_at = col_str(st, 19);
		c.cache_key = col_str(st, 20);
		c.json = sqlite3_column_type(st, 21) == SQLITE_NULL ? NULL : col_str(st, 21);
		return rd->cand ? rd->cand(ctx, &c) : 0;
	}
	case 1: {
		struct kj_store_shape_row r;
		r.candidate_id = sqlite3_column_int64(st, 0);
		r.weight = col_real(st, 1);
		r.ms = col_real(st, 2);
		r.iqr_ms = col_real(st, 3);
		r.speedup = col_real(st, 4);
		r.sol_ms = col_real(st, 5);
		r.sol_frac = col_real(st, 6);
		r.iou = col_real(st, 7);
		r.mfu = col_real(st, 8);
		r.flops = col_real(st, 9);
		r.bytes = col_real(st, 10);
		return rd->shape ? rd->shape(ctx, &r) : 0;
	}
	case 2: {
		struct kj_store_calib_row r;
		r.name = col_str(st, 0);
		r.uuid = col_str(st, 1);
		r.copy_gbs = col_real(st, 2);
		r.rates = col_str(st, 3);
		r.created = col_str(st, 4);
		return rd->calib ? rd->calib(ctx, &r) : 0;
	}
	case 3: {
		struct kj_store_device_row r;
		r.name = col_str(st, 0);
		r.uuid = col_str(st, 1);
		r.arch = col_str(st, 2);
		r.verdicts = sqlite3_column_int(st, 3);
		return rd->device ? rd->device(ctx, &r) : 0;
	}
	default: {
		struct kj_store_span_row r;
		r.first_judged = col_str(st, 0);
		r.last_judged = col_str(st, 1);
		r.settings = sqlite3_column_int(st, 2);
		return rd->span ? rd->span(ctx, &r) : 0;
	}
	}
}

static int read_run_rows(struct kj_sqlite *s, const char *run, const struct kj_store_reader *rd,
			 void *ctx, struct kj_err *err)
{
	static const struct {
		const char *sql, *what;
	} q[] = {
		{ read_cand_sql, "read the candidates" },   { read_shape_sql, "read the verdict shapes" },
		{ read_calib_sql, "read the calibrations" }, { read_device_sql, "read the devices" },
		{ read_span_sql, "read the verdict dates" },
	};
	struct kj_store_run_row rr;
	sqlite3_stmt *st;
	int rc = 0, r;
	if (sqlite3_prepare_v2(s->db, read_run_sql, -1, &st, NULL) != SQLITE_OK)
		return kj_err_set(err, KJ_E_IO, "'%s' is not a kjudge store: %s", s->path,
				  sqlite3_errmsg(s->db));
	bind_str(st, 1, run);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		rr.id = sqlite3_column_int64(st, 0);
		rr.name = col_str(st, 1);
		rr.backend = col_str(st, 2);
		rr.created = col_str(st, 3);
		rr.spec = col_str(st, 4);
		rr.settings = col_str(st, 5);
		rr.version = col_str(st, 6);
		rc = rd->run ? rd->run(ctx, &rr) : 0;
	} else if (r == SQLITE_DONE) {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no run '%s' in '%s'", run, s->path);
	} else {
		rc = read_fail(s, err, "find the run");
	}
	if (rc) {
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_finalize(st);
	for (int k = 0; k < (int)(sizeof(q) / sizeof(q[0])) && !rc; k++) {
		if (sqlite3_prepare_v2(s->db, q[k].sql, -1, &st, NULL) != SQLITE_OK)
			return read_fail(s, err, q[k].what);
		sqlite3_bind_int64(st, 1, rr.id);
		while ((r = sqlite3_step(st)) == SQLITE_ROW && !(rc = read_row(st, k, rd, ctx)))
			;
		if (!rc && r != SQLITE_DONE)
			rc = read_fail(s, err, q[k].what);
		sqlite3_finalize(st);
	}
	return rc;
}

static int sq_read_run(kj_db *d, const char *run, const struct kj_store_reader *rd, void *ctx,
		       struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	int rc, own;
	LOCK(s);
	/* one read transaction: every table seen at the same instant even while
	 * `kjudge run` commits verdicts */
	own = !s->outer && sqlite3_get_autocommit(s->db);
	if (own && sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		rc = read_fail(s, err, "start a read transaction");
		UNLOCK(s);
		return rc;
	}
	rc = read_run_rows(s, run, rd, ctx, err);
	if (own)
		sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	UNLOCK(s);
	return rc;
}

static int sq_attempts(kj_db *d, int64_t run_id, const char *model, const char *task, int sample,
		       int (*fn)(void *ctx, const struct kj_store_attempt *a), void *ctx,
		       struct kj_err *err)
{
	struct kj_sqlite *s = SQ(d);
	sqlite3_stmt *st;
	int rc, r;
	LOCK(s);
	rc = prep(s->db,
		  "SELECT c.id, c.round, c.method, c.source, c.sha256, v.json FROM candidates c "
		  "LEFT JOIN verdicts v ON v.candidate_id = c.id WHERE c.run_id = ?1 AND "
		  "c.model = ?2 AND c.task = ?3 AND c.sample = ?4 ORDER BY c.round",
		  &st, err);
	if (rc)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	bind_str(st, 2, model);
	bind_str(st, 3, task);
	sqlite3_bind_int(st, 4, sample);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		struct kj_store_attempt a;
		a.id = sqlite3_column_int64(st, 0);
		a.round = sqlite3_column_int(st, 1);
		a.method = col_str(st, 2);
		a.source = sqlite3_column_blob(st, 3);
		a.source_len = (size_t)sqlite3_column_bytes(st, 3);
		if (!a.source)
			a.source = "";
		a.sha256 = col_str(st, 4);
		a.json = sqlite3_column_type(st, 5) == SQLITE_NULL ? NULL : col_str(st, 5);
		if ((rc = fn(ctx, &a)))
			break;
	}
	if (!rc && r != SQLITE_DONE)
		rc = db_fail(s->db, err, "cannot read the run's attempts");
	sqlite3_finalize(st);
out:
	UNLOCK(s);
	return rc;
}

static const struct kj_store_ops sqlite_ops = {
	.name = "sqlite",
	.queue = &kj_queue_sqlite_ops,
	.close = sq_close,
	.sqlite = sq_sqlite,
	.cluster = sq_cluster,
	.schema_version = sq_schema_version,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.run_get_or_create = sq_run_get_or_create,
	.run_find = sq_run_find,
	.put_task = sq_put_task,
	.add_candidate = sq_add_candidate,
	.link_parents = sq_link_parents,
	.pending = sq_pending,
	.device_upsert = sq_device_upsert,
	.calibration_add = sq_calibration_add,
	.calibration_latest = sq_calibration_latest,
	.judgement_begin = sq_judgement_begin,
	.put_verdict = sq_put_verdict,
	.find_verdict_by_sha = sq_find_verdict_by_sha,
	.copy_verdict = sq_copy_verdict,
	.get_verdict = sq_get_verdict,
	.run_counts = sq_run_counts,
	.read_run = sq_read_run,
	.attempts = sq_attempts,
};
