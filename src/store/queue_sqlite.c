/*
 * The job queue of kjudge serve and its bearer tokens on SQLite: the
 * queue table (struct kj_queue_ops, store_int.h) of the SQLite store.  See
 * the "job queue" block of include/kjudge/store.h and docs/api.md; tables
 * `jobs` and `api_tokens` come from migration step 2 of schema.sql.
 *
 * Each function is one transaction on the connection: BEGIN IMMEDIATE (the
 * write lock up front, so SQLite's busy timeout applies between servers or
 * threads with their own connections), or a savepoint when the caller has a
 * transaction open.  queue.c has checked the arguments.
 */
#include <assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/hash.h"
#include "kjudge/store.h"
#include "store/store_int.h"

/* ---- SQLite helpers ------------------------------------------------------ */

static int db_fail(sqlite3 *db, struct kj_err *err, const char *what)
{
	return kj_err_set(err, KJ_E_IO, "queue: %s: %s", what, sqlite3_errmsg(db));
}

static int exec(sqlite3 *db, const char *sql, struct kj_err *err)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int rc = kj_err_set(err, KJ_E_IO, "queue: %.60s: %s", sql, msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return rc;
	}
	return 0;
}

static int prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct kj_err *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return kj_err_set(err, KJ_E_IO, "queue: cannot prepare '%.60s': %s", sql, sqlite3_errmsg(db));
	}
	return 0;
}

static int step_done(sqlite3 *db, sqlite3_stmt *st, struct kj_err *err, const char *what)
{
	int r;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		;
	return r == SQLITE_DONE ? 0 : db_fail(db, err, what);
}

static void bind_str(sqlite3_stmt *st, int i, const char *s)
{
	sqlite3_bind_text(st, i, s ? s : "", -1, SQLITE_TRANSIENT);
}

static const char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? (const char *)s : "";
}

struct tx {
	sqlite3 *db;
	int nested;
};

static int tx_begin(struct tx *t, kj_db *s, struct kj_err *err)
{
	t->db = kj_store_sqlite(s);
	t->nested = !sqlite3_get_autocommit(t->db);
	return exec(t->db, t->nested ? "SAVEPOINT kj_queue" : "BEGIN IMMEDIATE", err);
}

static int tx_commit(struct tx *t, struct kj_err *err)
{
	return exec(t->db, t->nested ? "RELEASE kj_queue" : "COMMIT", err);
}

static void tx_rollback(struct tx *t)
{
	if (t->nested)
		exec(t->db, "ROLLBACK TO kj_queue; RELEASE kj_queue", NULL);
	else if (!sqlite3_get_autocommit(t->db))
		exec(t->db, "ROLLBACK", NULL);
}

/* ---- reading jobs -------------------------------------------------------- */

#define JOB_COLS                                                                               \
	"id, state, task, backend, sha256, model, sample, round, token_id, idem_key, "          \
	"request_sha256, attempts, owner, lease_until, candidate_id, status, error, created, " \
	"started, finished"
#define JOB_NCOLS 20

/* Fills j from a row of JOB_COLS (then source, verdict when with_text). */
static int read_job(sqlite3_stmt *st, struct kj_job *j, int with_text, struct kj_err *err)
{
	kj_job_release(j);
	j->id = sqlite3_column_int64(st, 0);
	if (kj_job_state_from_name(col_str(st, 1), &j->state))
		return kj_err_set(err, KJ_E_INTERNAL, "queue: job %lld has unknown state '%s'",
				  (long long)j->id, col_str(st, 1));
	snprintf(j->task, sizeof(j->task), "%s", col_str(st, 2));
	snprintf(j->backend, sizeof(j->backend), "%s", col_str(st, 3));
	snprintf(j->sha256, sizeof(j->sha256), "%s", col_str(st, 4));
	snprintf(j->model, sizeof(j->model), "%s", col_str(st, 5));
	j->sample = sqlite3_column_type(st, 6) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 6);
	j->round = sqlite3_column_int(st, 7);
	j->token_id = sqlite3_column_int64(st, 8);
	snprintf(j->idem_key, sizeof(j->idem_key), "%s", col_str(st, 9));
	snprintf(j->request_sha256, sizeof(j->request_sha256), "%s", col_str(st, 10));
	j->attempts = sqlite3_column_int(st, 11);
	snprintf(j->owner, sizeof(j->owner), "%s", col_str(st, 12));
	j->lease_until = sqlite3_column_double(st, 13);
	j->candidate_id = sqlite3_column_int64(st, 14);
	snprintf(j->status, sizeof(j->status), "%s", col_str(st, 15));
	snprintf(j->error, sizeof(j->error), "%s", col_str(st, 16));
	j->created = sqlite3_column_double(st, 17);
	j->started = sqlite3_column_double(st, 18);
	j->finished = sqlite3_column_double(st, 19);
	if (!with_text)
		return 0;
	j->source_len = (size_t)sqlite3_column_bytes(st, JOB_NCOLS);
	j->source = malloc(j->source_len + 1);
	if (!j->source)
		return kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
	if (j->source_len)
		memcpy(j->source, sqlite3_column_blob(st, JOB_NCOLS), j->source_len);
	j->source[j->source_len] = 0;
	if (sqlite3_column_type(st, JOB_NCOLS + 1) != SQLITE_NULL) {
		j->verdict = strdup(col_str(st, JOB_NCOLS + 1));
		if (!j->verdict)
			return kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
	}
	return 0;
}

static int get_job(sqlite3 *db, int64_t id, struct kj_job *j, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT " JOB_COLS ", source, verdict FROM jobs WHERE id = ?1", &st, err), r;
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		rc = read_job(st, j, 1, err);
	else if (r == SQLITE_DONE)
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no job %lld", (long long)id);
	else
		rc = db_fail(db, err, "cannot read the job");
	sqlite3_finalize(st);
	return rc;
}

static int sq_queue_get(kj_db *s, int64_t id, struct kj_job *j, struct kj_err *err)
{
	return get_job(kj_store_sqlite(s), id, j, err);
}

/* ---- submit -------------------------------------------------------------- */

static int count_active(sqlite3 *db, int64_t token_id, int64_t *n, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT count(*) FROM jobs WHERE token_id = ?1 AND state IN ('queued', 'running')",
		      &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, token_id);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(db, err, "cannot count the token's jobs");
	sqlite3_finalize(st);
	return rc;
}

static int submit(struct tx *t, const struct kj_job_new *n, int64_t *id,
		  enum kj_submit_result *result, struct kj_err *err)
{
	sqlite3_stmt *st;
	char sha[65];
	int has_key = n->idem_key && *n->idem_key, rc, r;
	if (has_key) {
		if ((rc = prep(t->db, "SELECT id, request_sha256 FROM jobs WHERE token_id = ?1 AND idem_key = ?2",
			       &st, err)))
			return rc;
		sqlite3_bind_int64(st, 1, n->token_id);
		bind_str(st, 2, n->idem_key);
		r = sqlite3_step(st);
		if (r == SQLITE_ROW) {
			*id = sqlite3_column_int64(st, 0);
			*result = strcmp(col_str(st, 1), n->request_sha256 ? n->request_sha256 : "")
					  ? KJ_SUBMIT_CONFLICT
					  : KJ_SUBMIT_REPLAYED;
			sqlite3_finalize(st);
			return 0;
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return db_fail(t->db, err, "cannot look up the idempotency key");
	}
	if (n->quota > 0) {
		int64_t active = 0;
		if ((rc = count_active(t->db, n->token_id, &active, err)))
			return rc;
		if (active >= n->quota) {
			*id = 0;
			*result = KJ_SUBMIT_OVER_QUOTA;
			return 0;
		}
	}
	kj_sha256_hex(n->source, n->source_len, sha);
	if ((rc = prep(t->db,
		       "INSERT INTO jobs (state, task, backend, source, sha256, model, sample, round, "
		       "token_id, idem_key, request_sha256, created) "
		       "VALUES ('queued', ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
		       &st, err)))
		return rc;
	bind_str(st, 1, n->task);
	bind_str(st, 2, n->backend);
	sqlite3_bind_text(st, 3, n->source, (int)n->source_len, SQLITE_TRANSIENT);
	bind_str(st, 4, sha);
	bind_str(st, 5, n->model);
	if (n->sample >= 0)
		sqlite3_bind_int(st, 6, n->sample);
	else
		sqlite3_bind_null(st, 6);
	sqlite3_bind_int(st, 7, n->round);
	sqlite3_bind_int64(st, 8, n->token_id);
	if (has_key)
		bind_str(st, 9, n->idem_key);
	else
		sqlite3_bind_null(st, 9);
	bind_str(st, 10, n->request_sha256);
	sqlite3_bind_double(st, 11, n->now);
	rc = step_done(t->db, st, err, "cannot add the job");
	sqlite3_finalize(st);
	if (rc)
		return rc;
	*id = sqlite3_last_insert_rowid(t->db);
	*result = KJ_SUBMIT_CREATED;
	return 0;
}

static int sq_queue_submit(kj_db *s, const struct kj_job_new *n, int64_t *id,
		    enum kj_submit_result *result, struct kj_err *err)
{
	struct tx t;
	int rc;
	if ((rc = tx_begin(&t, s, err)))
		return rc;
	if ((rc = submit(&t, n, id, result, err))) {
		tx_rollback(&t);
		return rc;
	}
	return tx_commit(&t, err);
}

/* ---- claim, heartbeat, complete, release ---------------------------------- */

static int sq_queue_claim(kj_db *s, const char *backend, const char *owner, double now,
		   double lease_s, struct kj_job *j, int *got, struct kj_err *err)
{
	struct tx t;
	sqlite3_stmt *st = NULL;
	int64_t id = 0;
	int rc, r;
	*got = 0;
	if ((rc = tx_begin(&t, s, err)))
		return rc;
	if ((rc = prep(t.db, "SELECT id FROM jobs WHERE state = 'queued' AND backend = ?1 ORDER BY id LIMIT 1",
		       &st, err)))
		goto fail;
	bind_str(st, 1, backend);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		id = sqlite3_column_int64(st, 0);
	else if (r != SQLITE_DONE)
		rc = db_fail(t.db, err, "cannot look for a queued job");
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto fail;
	if (!id) {
		tx_rollback(&t);
		return 0;
	}
	if ((rc = prep(t.db,
		       "UPDATE jobs SET state = 'running', attempts = attempts + 1, owner = ?2, "
		       "lease_until = ?3, started = ?4 WHERE id = ?1",
		       &st, err)))
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	bind_str(st, 2, owner);
	sqlite3_bind_double(st, 3, now + lease_s);
	sqlite3_bind_double(st, 4, now);
	rc = step_done(t.db, st, err, "cannot claim the job");
	sqlite3_finalize(st);
	if (rc || (rc = get_job(t.db, id, j, err)))
		goto fail;
	if ((rc = tx_commit(&t, err)))
		return rc;
	*got = 1;
	return 0;
fail:
	tx_rollback(&t);
	return rc;
}

/* Runs an UPDATE on the running job id held by owner; KJ_E_NOTFOUND when it
 * changed no row. */
static int update_held(kj_db *s, const char *sql, int64_t id, const char *owner,
		       void (*bind)(sqlite3_stmt *st, const void *ctx), const void *ctx,
		       struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	int rc = prep(db, sql, &st, err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, id);
	bind_str(st, 2, owner);
	if (bind)
		bind(st, ctx);
	rc = step_done(db, st, err, "cannot update the job");
	sqlite3_finalize(st);
	if (!rc && sqlite3_changes(db) == 0)
		rc = kj_err_set(err, KJ_E_NOTFOUND, "job %lld is not running under '%s'", (long long)id,
				owner ? owner : "");
	return rc;
}

struct hb_ctx {
	double until;
};

static void bind_hb(sqlite3_stmt *st, const void *ctx)
{
	sqlite3_bind_double(st, 3, ((const struct hb_ctx *)ctx)->until);
}

static int sq_queue_heartbeat(kj_db *s, int64_t id, const char *owner, double now, double lease_s,
		       struct kj_err *err)
{
	struct hb_ctx c = { now + lease_s };
	return update_held(s,
			   "UPDATE jobs SET lease_until = ?3 WHERE id = ?1 AND owner = ?2 "
			   "AND state = 'running'",
			   id, owner, bind_hb, &c, err);
}

struct done_ctx {
	const char *state, *status, *verdict, *error;
	int64_t candidate_id;
	double now;
};

static void bind_done(sqlite3_stmt *st, const void *ctx)
{
	const struct done_ctx *c = ctx;
	bind_str(st, 3, c->state);
	if (c->candidate_id > 0)
		sqlite3_bind_int64(st, 4, c->candidate_id);
	else
		sqlite3_bind_null(st, 4);
	bind_str(st, 5, c->status);
	if (c->verdict)
		bind_str(st, 6, c->verdict);
	else
		sqlite3_bind_null(st, 6);
	bind_str(st, 7, c->error);
	sqlite3_bind_double(st, 8, c->now);
}

static int sq_queue_complete(kj_db *s, int64_t id, const char *owner, kj_job_state state,
		      int64_t candidate_id, const char *status, const char *verdict,
		      const char *error, double now, struct kj_err *err)
{
	struct done_ctx c = { kj_job_state_name(state), status, verdict, error, candidate_id, now };
	return update_held(s,
			   "UPDATE jobs SET state = ?3, candidate_id = ?4, status = ?5, verdict = ?6, "
			   "error = ?7, finished = ?8, lease_until = NULL "
			   "WHERE id = ?1 AND owner = ?2 AND state = 'running'",
			   id, owner, bind_done, &c, err);
}

static int sq_queue_release(kj_db *s, int64_t id, const char *owner, struct kj_err *err)
{
	return update_held(s,
			   "UPDATE jobs SET state = 'queued', owner = '', lease_until = NULL "
			   "WHERE id = ?1 AND owner = ?2 AND state = 'running'",
			   id, owner, NULL, NULL, err);
}

static int sq_queue_requeue_stale(kj_db *s, double now, int max_attempts, int *requeued,
			   int *failed, struct kj_err *err)
{
	struct tx t;
	sqlite3_stmt *st = NULL;
	int rc, nf = 0, nr = 0;
	if (requeued)
		*requeued = 0;
	if (failed)
		*failed = 0;
	if ((rc = tx_begin(&t, s, err)))
		return rc;
	if (max_attempts > 0) {
		if ((rc = prep(t.db,
			       "UPDATE jobs SET state = 'failed', finished = ?1, lease_until = NULL, "
			       "error = 'abandoned after ' || attempts || ' attempts: its server stopped "
			       "while judging it each time' "
			       "WHERE state = 'running' AND lease_until < ?1 AND attempts >= ?2",
			       &st, err)))
			goto fail;
		sqlite3_bind_double(st, 1, now);
		sqlite3_bind_int(st, 2, max_attempts);
		rc = step_done(t.db, st, err, "cannot fail abandoned jobs");
		sqlite3_finalize(st);
		if (rc)
			goto fail;
		nf = sqlite3_changes(t.db);
	}
	if ((rc = prep(t.db,
		       "UPDATE jobs SET state = 'queued', owner = '', lease_until = NULL "
		       "WHERE state = 'running' AND lease_until < ?1",
		       &st, err)))
		goto fail;
	sqlite3_bind_double(st, 1, now);
	rc = step_done(t.db, st, err, "cannot requeue stale jobs");
	sqlite3_finalize(st);
	if (rc)
		goto fail;
	nr = sqlite3_changes(t.db);
	if ((rc = tx_commit(&t, err)))
		return rc;
	if (requeued)
		*requeued = nr;
	if (failed)
		*failed = nf;
	return 0;
fail:
	tx_rollback(&t);
	return rc;
}

static int sq_queue_cancel(kj_db *s, int64_t id, int64_t token_id, double now, kj_job_state *state,
		    struct kj_err *err)
{
	struct tx t;
	sqlite3_stmt *st = NULL;
	int rc, r;
	if ((rc = tx_begin(&t, s, err)))
		return rc;
	if ((rc = prep(t.db, "SELECT state, token_id FROM jobs WHERE id = ?1", &st, err)))
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	r = sqlite3_step(st);
	if (r == SQLITE_DONE || (r == SQLITE_ROW && token_id > 0 && sqlite3_column_int64(st, 1) != token_id))
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no job %lld", (long long)id);
	else if (r != SQLITE_ROW)
		rc = db_fail(t.db, err, "cannot read the job");
	else if (kj_job_state_from_name(col_str(st, 0), state))
		rc = kj_err_set(err, KJ_E_INTERNAL, "queue: job %lld has an unknown state", (long long)id);
	sqlite3_finalize(st);
	st = NULL;
	if (rc)
		goto fail;
	if (*state == KJ_JOB_QUEUED) {
		if ((rc = prep(t.db,
			       "UPDATE jobs SET state = 'cancelled', finished = ?2 WHERE id = ?1 AND state = 'queued'",
			       &st, err)))
			goto fail;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_double(st, 2, now);
		rc = step_done(t.db, st, err, "cannot cancel the job");
		sqlite3_finalize(st);
		if (rc)
			goto fail;
		*state = KJ_JOB_CANCELLED;
	}
	return tx_commit(&t, err);
fail:
	tx_rollback(&t);
	return rc;
}

static int sq_queue_list(kj_db *s, int state, int64_t token_id, int64_t after_id, int limit,
		  int (*fn)(void *ctx, const struct kj_job *j), void *ctx, struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	struct kj_job j;
	int rc, r;
	rc = prep(db,
		  "SELECT " JOB_COLS " FROM jobs WHERE (?1 = '' OR state = ?1) AND (?2 = 0 OR token_id = ?2) "
		  "AND id > ?3 ORDER BY id LIMIT ?4",
		  &st, err);
	if (rc)
		return rc;
	bind_str(st, 1, state < 0 ? "" : kj_job_state_name((kj_job_state)state));
	sqlite3_bind_int64(st, 2, token_id > 0 ? token_id : 0);
	sqlite3_bind_int64(st, 3, after_id);
	sqlite3_bind_int(st, 4, limit > 0 ? limit : 100);
	kj_job_init(&j);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if ((rc = read_job(st, &j, 0, err)) || (rc = fn(ctx, &j)))
			break;
	}
	if (!rc && r != SQLITE_DONE)
		rc = db_fail(db, err, "cannot list the jobs");
	kj_job_release(&j);
	sqlite3_finalize(st);
	return rc;
}

static int sq_queue_counts(kj_db *s, int64_t token_id, int64_t n[KJ_JOB_STATE_COUNT], struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	int rc, r;
	rc = prep(db, "SELECT state, count(*) FROM jobs WHERE (?1 = 0 OR token_id = ?1) GROUP BY state", &st,
		  err);
	if (rc)
		return rc;
	sqlite3_bind_int64(st, 1, token_id > 0 ? token_id : 0);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		kj_job_state k;
		if (!kj_job_state_from_name(col_str(st, 0), &k))
			n[k] = sqlite3_column_int64(st, 1);
	}
	if (r != SQLITE_DONE)
		rc = db_fail(db, err, "cannot count the jobs");
	sqlite3_finalize(st);
	return rc;
}

/* ---- tokens -------------------------------------------------------------- */

static int sq_token_add(kj_db *s, const char *name, const char *sha256_hex, int quota, int64_t *id,
		 struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	int rc, r;
	if ((rc = prep(db, "INSERT INTO api_tokens (name, sha256, quota) VALUES (?1, ?2, ?3)", &st, err)))
		return rc;
	bind_str(st, 1, name);
	bind_str(st, 2, sha256_hex);
	sqlite3_bind_int(st, 3, quota);
	r = sqlite3_step(st);
	sqlite3_finalize(st);
	if ((r & 0xff) == SQLITE_CONSTRAINT)
		return kj_err_set(err, KJ_E_USAGE, "a token named '%s' exists already", name);
	if (r != SQLITE_DONE)
		return db_fail(db, err, "cannot add the token");
	if (id)
		*id = sqlite3_last_insert_rowid(db);
	return 0;
}

static void read_token(sqlite3_stmt *st, struct kj_token *t)
{
	t->id = sqlite3_column_int64(st, 0);
	snprintf(t->name, sizeof(t->name), "%s", col_str(st, 1));
	snprintf(t->sha256, sizeof(t->sha256), "%s", col_str(st, 2));
	t->quota = sqlite3_column_int(st, 3);
	snprintf(t->created, sizeof(t->created), "%s", col_str(st, 4));
}

static int sq_token_find(kj_db *s, const char *sha256_hex, struct kj_token *t, struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	int rc = prep(db, "SELECT id, name, sha256, quota, created FROM api_tokens WHERE sha256 = ?1", &st,
		      err), r;
	if (rc)
		return rc;
	bind_str(st, 1, sha256_hex);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		read_token(st, t);
	else if (r == SQLITE_DONE)
		rc = kj_err_set(err, KJ_E_NOTFOUND, "unknown token");
	else
		rc = db_fail(db, err, "cannot look up the token");
	sqlite3_finalize(st);
	return rc;
}

static int sq_token_remove(kj_db *s, const char *name, struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	int rc = prep(db, "DELETE FROM api_tokens WHERE name = ?1", &st, err);
	if (rc)
		return rc;
	bind_str(st, 1, name);
	rc = step_done(db, st, err, "cannot remove the token");
	sqlite3_finalize(st);
	if (!rc && sqlite3_changes(db) == 0)
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no token named '%s'", name ? name : "");
	return rc;
}

static int sq_token_list(kj_db *s, struct kj_token **v, int *n, struct kj_err *err)
{
	sqlite3 *db = kj_store_sqlite(s);
	sqlite3_stmt *st;
	struct kj_token *a = NULL;
	int rc, r, cnt = 0, cap = 0;
	*v = NULL;
	*n = 0;
	if ((rc = prep(db, "SELECT id, name, sha256, quota, created FROM api_tokens ORDER BY id", &st, err)))
		return rc;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (cnt == cap) {
			struct kj_token *na;
			cap = cap ? 2 * cap : 8;
			na = realloc(a, (size_t)cap * sizeof(*a));
			if (!na) {
				rc = kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
				break;
			}
			a = na;
		}
		read_token(st, &a[cnt++]);
	}
	if (!rc && r != SQLITE_DONE)
		rc = db_fail(db, err, "cannot list the tokens");
	sqlite3_finalize(st);
	if (rc) {
		free(a);
		return rc;
	}
	assert(cnt <= cap);
	*v = a;
	*n = cnt;
	return 0;
}

const struct kj_queue_ops kj_queue_sqlite_ops = {
	.submit = sq_queue_submit,
	.get = sq_queue_get,
	.claim = sq_queue_claim,
	.heartbeat = sq_queue_heartbeat,
	.complete = sq_queue_complete,
	.release = sq_queue_release,
	.requeue_stale = sq_queue_requeue_stale,
	.cancel = sq_queue_cancel,
	.list = sq_queue_list,
	.counts = sq_queue_counts,
	.token_add = sq_token_add,
	.token_find = sq_token_find,
	.token_remove = sq_token_remove,
	.token_list = sq_token_list,
};
