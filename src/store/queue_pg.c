/*
 * The job queue of kjudge serve and its bearer tokens on PostgreSQL: the
 * queue table (struct kj_queue_ops, store_int.h) of the PostgreSQL store,
 * with the contract of the SQLite one (queue_sqlite.c), on the `jobs` and
 * `api_tokens` tables of step 2 of schema_pg.sql.  Several
 * serve processes, on several nodes, may share one queue:
 *
 * - a claim takes the oldest queued job with FOR UPDATE SKIP LOCKED, so
 *   claimers never wait on each other, and checks the state again on the
 *   locked row (as cluster.c does: a row found by one claim's scan has been
 *   seen handed to another claim as well); a claim refused by that check
 *   looks again;
 * - heartbeat, complete and release change the row only while it is running
 *   under the caller's owner name, in one statement: a server whose job was
 *   requeued (its lease passed) writes nothing;
 * - the submits of one token are serialised by an advisory lock on the token
 *   id, so that the idempotency key look-up and the quota count see every
 *   earlier submit of that token (SQLite gets this from BEGIN IMMEDIATE).
 *
 * Times are the callers' unix seconds, as on SQLite: servers sharing a queue
 * need clocks that agree to well within a lease (docs/cluster.md).
 */
#include <postgresql/libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/hash.h"
#include "store/pg_internal.h"

#define LOCK(p) pthread_mutex_lock(&(p)->mu)
#define UNLOCK(p) pthread_mutex_unlock(&(p)->mu)

#define JOB_COLS                                                                               \
	"id, state, task, backend, sha256, model, sample, round, token_id, idem_key, "          \
	"request_sha256, attempts, owner, lease_until, candidate_id, status, error, created, " \
	"started, finished"
#define JOB_NCOLS 20

/* a NULL time or id reads as 0, as in the SQLite queue */
static double dbl0(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : pg_dbl(r, row, col);
}

/* Fills j from row of a result of JOB_COLS (then source, verdict when
 * with_text). */
static int read_job(const PGresult *r, int row, struct kj_job *j, int with_text, struct kj_err *err)
{
	kj_job_release(j);
	j->id = pg_i64(r, row, 0);
	if (kj_job_state_from_name(pg_str(r, row, 1), &j->state))
		return kj_err_set(err, KJ_E_INTERNAL, "queue: job %lld has unknown state '%s'",
				  (long long)j->id, pg_str(r, row, 1));
	snprintf(j->task, sizeof(j->task), "%s", pg_str(r, row, 2));
	snprintf(j->backend, sizeof(j->backend), "%s", pg_str(r, row, 3));
	snprintf(j->sha256, sizeof(j->sha256), "%s", pg_str(r, row, 4));
	snprintf(j->model, sizeof(j->model), "%s", pg_str(r, row, 5));
	j->sample = PQgetisnull(r, row, 6) ? -1 : (int)pg_i64(r, row, 6);
	j->round = (int)pg_i64(r, row, 7);
	j->token_id = pg_i64(r, row, 8);
	snprintf(j->idem_key, sizeof(j->idem_key), "%s", pg_str(r, row, 9));
	snprintf(j->request_sha256, sizeof(j->request_sha256), "%s", pg_str(r, row, 10));
	j->attempts = (int)pg_i64(r, row, 11);
	snprintf(j->owner, sizeof(j->owner), "%s", pg_str(r, row, 12));
	j->lease_until = dbl0(r, row, 13);
	j->candidate_id = pg_i64(r, row, 14);
	snprintf(j->status, sizeof(j->status), "%s", pg_str(r, row, 15));
	snprintf(j->error, sizeof(j->error), "%s", pg_str(r, row, 16));
	j->created = dbl0(r, row, 17);
	j->started = dbl0(r, row, 18);
	j->finished = dbl0(r, row, 19);
	if (!with_text)
		return 0;
	j->source_len = (size_t)PQgetlength(r, row, JOB_NCOLS);
	j->source = malloc(j->source_len + 1);
	if (!j->source)
		return kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
	memcpy(j->source, pg_str(r, row, JOB_NCOLS), j->source_len);
	j->source[j->source_len] = 0;
	if (!PQgetisnull(r, row, JOB_NCOLS + 1) && !(j->verdict = strdup(pg_str(r, row, JOB_NCOLS + 1))))
		return kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
	return 0;
}

/* ---- get ------------------------------------------------------------------- */

static const char sql_get[] = "SELECT " JOB_COLS ", source, verdict FROM jobs WHERE id = $1";

static int pgq_get(kj_db *d, int64_t id, struct kj_job *j, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_i64(&a, id);
	LOCK(p);
	r = pg_q(p, sql_get, &a, err, "cannot read the job", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	if (PQntuples(r) == 1)
		rc = read_job(r, 0, j, 1, err);
	else
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no job %lld", (long long)id);
	PQclear(r);
	return rc;
}

/* ---- submit ---------------------------------------------------------------- */

static const char sql_token_lock[] =
	"SELECT pg_advisory_xact_lock(7424593, ($1::bigint % 2147483647)::int)";
static const char sql_find_key[] =
	"SELECT id, request_sha256 FROM jobs WHERE token_id = $1 AND idem_key = $2";
static const char sql_active[] =
	"SELECT count(*) FROM jobs WHERE token_id = $1 AND state IN ('queued', 'running')";
static const char sql_insert[] =
	"INSERT INTO jobs (state, task, backend, source, sha256, model, sample, round, token_id, "
	"idem_key, request_sha256, created) "
	"VALUES ('queued', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id";

static int submit(struct kj_pg *p, const struct kj_job_new *n, const char *src, int64_t *id,
		  enum kj_submit_result *result, struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	char sha[65];
	int has_key = n->idem_key && *n->idem_key, rc;
	pga_init(&a);
	pga_i64(&a, n->token_id);
	if ((has_key || n->quota > 0) &&
	    (rc = pg_do(p, sql_token_lock, &a, err, "cannot lock the token's submits")))
		return rc;
	if (has_key) {
		pga_str(&a, n->idem_key);
		if (!(r = pg_q(p, sql_find_key, &a, err, "cannot look up the idempotency key", &rc)))
			return rc;
		if (PQntuples(r) == 1) {
			*id = pg_i64(r, 0, 0);
			*result = strcmp(pg_str(r, 0, 1), n->request_sha256 ? n->request_sha256 : "")
					  ? KJ_SUBMIT_CONFLICT
					  : KJ_SUBMIT_REPLAYED;
			PQclear(r);
			return 0;
		}
		PQclear(r);
	}
	if (n->quota > 0) {
		int64_t active;
		pga_init(&a);
		pga_i64(&a, n->token_id);
		if (!(r = pg_q(p, sql_active, &a, err, "cannot count the token's jobs", &rc)))
			return rc;
		active = pg_i64(r, 0, 0);
		PQclear(r);
		if (active >= n->quota) {
			*id = 0;
			*result = KJ_SUBMIT_OVER_QUOTA;
			return 0;
		}
	}
	kj_sha256_hex(n->source, n->source_len, sha);
	pga_init(&a);
	pga_str(&a, n->task);
	pga_str(&a, n->backend);
	pga_str(&a, src);
	pga_str(&a, sha);
	pga_str(&a, n->model);
	if (n->sample >= 0)
		pga_i64(&a, n->sample);
	else
		pga_null(&a);
	pga_i64(&a, n->round);
	pga_i64(&a, n->token_id);
	if (has_key)
		pga_str(&a, n->idem_key);
	else
		pga_null(&a);
	pga_str(&a, n->request_sha256);
	pga_dbl(&a, n->now);
	if (!(r = pg_q(p, sql_insert, &a, err, "cannot add the job", &rc)))
		return rc;
	*id = pg_i64(r, 0, 0);
	PQclear(r);
	*result = KJ_SUBMIT_CREATED;
	return 0;
}

static int pgq_submit(kj_db *d, const struct kj_job_new *n, int64_t *id,
		  enum kj_submit_result *result, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	char *src;
	int rc;
	/* text parameters end at a NUL, and PostgreSQL text holds none */
	if (memchr(n->source, 0, n->source_len))
		return kj_err_set(err, KJ_E_USAGE, "queue: a source holds a NUL byte, which PostgreSQL "
				  "text cannot store");
	if (!(src = strndup(n->source, n->source_len)))
		return kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err)))
		rc = pg_tx_end(p, submit(p, n, src, id, result, err), err);
	UNLOCK(p);
	free(src);
	if (rc) {
		*id = 0;
		*result = KJ_SUBMIT_CREATED;
	}
	return rc;
}

/* ---- claim ----------------------------------------------------------------- */

static const char sql_claim[] =
	"UPDATE jobs SET state = 'running', attempts = attempts + 1, owner = $2, lease_until = $3, "
	"started = $4 "
	"WHERE id = (SELECT id FROM jobs WHERE state = 'queued' AND backend = $1 ORDER BY id LIMIT 1 "
	" FOR UPDATE SKIP LOCKED) "
	/* checked again on the row as locked (see the top of this file) */
	"AND state = 'queued' "
	"RETURNING " JOB_COLS ", source, verdict";
static const char sql_claimable[] =
	"SELECT EXISTS (SELECT 1 FROM jobs WHERE state = 'queued' AND backend = $1)";

static int pgq_claim(kj_db *d, const char *backend, const char *owner, double now,
		 double lease_s, struct kj_job *j, int *got, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a, b;
	PGresult *r = NULL;
	int rc = 0;
	*got = 0;
	pga_init(&a);
	pga_str(&a, backend);
	pga_str(&a, owner);
	pga_dbl(&a, now + lease_s);
	pga_dbl(&a, now);
	pga_init(&b);
	pga_str(&b, backend);
	LOCK(p);
	for (int tries = 0;; tries++) {
		PGresult *e;
		int more;
		/* one statement: the claim commits by itself, or inside the
		 * caller's kj_store_begin() */
		if (!(r = pg_q(p, sql_claim, &a, err, "cannot claim a job", &rc)))
			break;
		if (PQntuples(r) == 1)
			break;
		PQclear(r);
		r = NULL;
		/* nothing claimed: the queue is empty, or the row found was taken
		 * meanwhile (refused by the second check); look again */
		if (tries == 20)
			break;
		if (!(e = pg_q(p, sql_claimable, &b, err, "cannot look at the queue", &rc)))
			break;
		more = pg_str(e, 0, 0)[0] == 't';
		PQclear(e);
		if (!more)
			break;
	}
	UNLOCK(p);
	if (!r)
		return rc;
	rc = read_job(r, 0, j, 1, err);
	PQclear(r);
	if (!rc)
		*got = 1;
	return rc;
}

/* ---- heartbeat, complete, release ------------------------------------------ */

static const char sql_heartbeat[] =
	"UPDATE jobs SET lease_until = $3 WHERE id = $1 AND owner = $2 AND state = 'running'";
static const char sql_complete[] =
	"UPDATE jobs SET state = $3, candidate_id = $4, status = $5, verdict = $6, error = $7, "
	"finished = $8, lease_until = NULL WHERE id = $1 AND owner = $2 AND state = 'running'";
static const char sql_release[] =
	"UPDATE jobs SET state = 'queued', owner = '', lease_until = NULL "
	"WHERE id = $1 AND owner = $2 AND state = 'running'";

/* Runs an UPDATE of the running job a[0] held by owner a[1]; KJ_E_NOTFOUND
 * when it changed no row. */
static int update_held(struct kj_pg *p, const char *sql, const struct pga *a, int64_t id,
		       const char *owner, struct kj_err *err)
{
	PGresult *r;
	int rc, changed;
	LOCK(p);
	r = pg_q(p, sql, a, err, "cannot update the job", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	changed = atoi(PQcmdTuples(r));
	PQclear(r);
	if (!changed)
		return kj_err_set(err, KJ_E_NOTFOUND, "job %lld is not running under '%s'", (long long)id,
				  owner ? owner : "");
	return 0;
}

static int pgq_heartbeat(kj_db *d, int64_t id, const char *owner, double now, double lease_s,
		     struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	pga_init(&a);
	pga_i64(&a, id);
	pga_str(&a, owner);
	pga_dbl(&a, now + lease_s);
	return update_held(p, sql_heartbeat, &a, id, owner, err);
}

static int pgq_complete(kj_db *d, int64_t id, const char *owner, kj_job_state state,
		    int64_t candidate_id, const char *status, const char *verdict,
		    const char *error, double now, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	pga_init(&a);
	pga_i64(&a, id);
	pga_str(&a, owner);
	pga_str(&a, kj_job_state_name(state));
	pga_id(&a, candidate_id);
	pga_str(&a, status);
	if (verdict)
		pga_str(&a, verdict);
	else
		pga_null(&a);
	pga_str(&a, error);
	pga_dbl(&a, now);
	return update_held(p, sql_complete, &a, id, owner, err);
}

static int pgq_release(kj_db *d, int64_t id, const char *owner, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	pga_init(&a);
	pga_i64(&a, id);
	pga_str(&a, owner);
	return update_held(p, sql_release, &a, id, owner, err);
}

/* ---- stale leases ---------------------------------------------------------- */

static const char sql_abandon[] =
	"UPDATE jobs SET state = 'failed', finished = $1, lease_until = NULL, "
	"error = 'abandoned after ' || attempts || ' attempts: its server stopped while judging it "
	"each time' WHERE state = 'running' AND lease_until < $1 AND attempts >= $2";
static const char sql_requeue[] =
	"UPDATE jobs SET state = 'queued', owner = '', lease_until = NULL "
	"WHERE state = 'running' AND lease_until < $1";

static int requeue_stale(struct kj_pg *p, double now, int max_attempts, int *nr, int *nf,
			 struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_dbl(&a, now);
	if (max_attempts > 0) {
		pga_i64(&a, max_attempts);
		if (!(r = pg_q(p, sql_abandon, &a, err, "cannot fail abandoned jobs", &rc)))
			return rc;
		*nf = atoi(PQcmdTuples(r));
		PQclear(r);
		pga_init(&a);
		pga_dbl(&a, now);
	}
	if (!(r = pg_q(p, sql_requeue, &a, err, "cannot requeue stale jobs", &rc)))
		return rc;
	*nr = atoi(PQcmdTuples(r));
	PQclear(r);
	return 0;
}

static int pgq_requeue_stale(kj_db *d, double now, int max_attempts, int *requeued,
			 int *failed, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc, nr = 0, nf = 0;
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err)))
		rc = pg_tx_end(p, requeue_stale(p, now, max_attempts, &nr, &nf, err), err);
	UNLOCK(p);
	if (rc)
		nr = nf = 0;
	if (requeued)
		*requeued = nr;
	if (failed)
		*failed = nf;
	return rc;
}

/* ---- cancel ---------------------------------------------------------------- */

static const char sql_cancel_look[] = "SELECT state, token_id FROM jobs WHERE id = $1 FOR UPDATE";
static const char sql_cancel[] =
	"UPDATE jobs SET state = 'cancelled', finished = $2 WHERE id = $1 AND state = 'queued'";

static int cancel(struct kj_pg *p, int64_t id, int64_t token_id, double now, kj_job_state *state,
		  struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_i64(&a, id);
	if (!(r = pg_q(p, sql_cancel_look, &a, err, "cannot read the job", &rc)))
		return rc;
	if (PQntuples(r) != 1 || (token_id > 0 && pg_i64(r, 0, 1) != token_id))
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no job %lld", (long long)id);
	else if (kj_job_state_from_name(pg_str(r, 0, 0), state))
		rc = kj_err_set(err, KJ_E_INTERNAL, "queue: job %lld has an unknown state", (long long)id);
	PQclear(r);
	if (rc || *state != KJ_JOB_QUEUED)
		return rc;
	pga_dbl(&a, now);
	if ((rc = pg_do(p, sql_cancel, &a, err, "cannot cancel the job")))
		return rc;
	*state = KJ_JOB_CANCELLED;
	return 0;
}

static int pgq_cancel(kj_db *d, int64_t id, int64_t token_id, double now,
		  kj_job_state *state, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc;
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err)))
		rc = pg_tx_end(p, cancel(p, id, token_id, now, state, err), err);
	UNLOCK(p);
	return rc;
}

/* ---- list, counts ---------------------------------------------------------- */

static const char sql_list[] =
	"SELECT " JOB_COLS " FROM jobs WHERE ($1 = '' OR state = $1) "
	"AND ($2::bigint = 0 OR token_id = $2::bigint) AND id > $3 ORDER BY id LIMIT $4";

static int pgq_list(kj_db *d, int state, int64_t token_id, int64_t after_id, int limit,
		int (*fn)(void *ctx, const struct kj_job *j), void *ctx, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	struct kj_job j;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, state < 0 ? "" : kj_job_state_name((kj_job_state)state));
	pga_i64(&a, token_id > 0 ? token_id : 0);
	pga_i64(&a, after_id);
	pga_i64(&a, limit > 0 ? limit : 100);
	LOCK(p);
	r = pg_q(p, sql_list, &a, err, "cannot list the jobs", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	/* fn runs without the connection's lock: it may use the store */
	kj_job_init(&j);
	for (int i = 0; i < PQntuples(r); i++)
		if ((rc = read_job(r, i, &j, 0, err)) || (rc = fn(ctx, &j)))
			break;
	kj_job_release(&j);
	PQclear(r);
	return rc;
}

static const char sql_counts[] =
	"SELECT state, count(*) FROM jobs WHERE ($1::bigint = 0 OR token_id = $1::bigint) "
	"GROUP BY state";

static int pgq_counts(kj_db *d, int64_t token_id, int64_t n[KJ_JOB_STATE_COUNT],
		  struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_i64(&a, token_id > 0 ? token_id : 0);
	LOCK(p);
	r = pg_q(p, sql_counts, &a, err, "cannot count the jobs", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	for (int i = 0; i < PQntuples(r); i++) {
		kj_job_state k;
		if (!kj_job_state_from_name(pg_str(r, i, 0), &k))
			n[k] = pg_i64(r, i, 1);
	}
	PQclear(r);
	return 0;
}

/* ---- tokens ---------------------------------------------------------------- */

static const char sql_token_add[] =
	"INSERT INTO api_tokens (name, sha256, quota) VALUES ($1, $2, $3) "
	"ON CONFLICT DO NOTHING RETURNING id";
static const char sql_token_find[] =
	"SELECT id, name, sha256, quota, created FROM api_tokens WHERE sha256 = $1";
static const char sql_token_remove[] = "DELETE FROM api_tokens WHERE name = $1";
static const char sql_token_list[] =
	"SELECT id, name, sha256, quota, created FROM api_tokens ORDER BY id";

static int pgq_token_add(kj_db *d, const char *name, const char *sha256_hex, int quota,
		     int64_t *id, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, name);
	pga_str(&a, sha256_hex);
	pga_i64(&a, quota);
	LOCK(p);
	r = pg_q(p, sql_token_add, &a, err, "cannot add the token", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	/* no row: the name or the hash is taken (both unique) */
	if (PQntuples(r) != 1)
		rc = kj_err_set(err, KJ_E_USAGE, "a token named '%s' exists already", name);
	else if (id)
		*id = pg_i64(r, 0, 0);
	PQclear(r);
	return rc;
}

static void read_token(const PGresult *r, int row, struct kj_token *t)
{
	t->id = pg_i64(r, row, 0);
	snprintf(t->name, sizeof(t->name), "%s", pg_str(r, row, 1));
	snprintf(t->sha256, sizeof(t->sha256), "%s", pg_str(r, row, 2));
	t->quota = (int)pg_i64(r, row, 3);
	snprintf(t->created, sizeof(t->created), "%s", pg_str(r, row, 4));
}

static int pgq_token_find(kj_db *d, const char *sha256_hex, struct kj_token *t,
		      struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, sha256_hex);
	LOCK(p);
	r = pg_q(p, sql_token_find, &a, err, "cannot look up the token", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	if (PQntuples(r) == 1)
		read_token(r, 0, t);
	else
		rc = kj_err_set(err, KJ_E_NOTFOUND, "unknown token");
	PQclear(r);
	return rc;
}

static int pgq_token_remove(kj_db *d, const char *name, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, name);
	LOCK(p);
	r = pg_q(p, sql_token_remove, &a, err, "cannot remove the token", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	if (atoi(PQcmdTuples(r)) == 0)
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no token named '%s'", name ? name : "");
	PQclear(r);
	return rc;
}

static int pgq_token_list(kj_db *d, struct kj_token **v, int *n, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	PGresult *r;
	struct kj_token *a;
	int rc, cnt;
	*v = NULL;
	*n = 0;
	LOCK(p);
	r = pg_q(p, sql_token_list, NULL, err, "cannot list the tokens", &rc);
	UNLOCK(p);
	if (!r)
		return rc;
	cnt = PQntuples(r);
	a = malloc((size_t)(cnt ? cnt : 1) * sizeof(*a));
	if (!a) {
		PQclear(r);
		return kj_err_set(err, KJ_E_NOMEM, "queue: out of memory");
	}
	for (int i = 0; i < cnt; i++)
		read_token(r, i, &a[i]);
	PQclear(r);
	*v = a;
	*n = cnt;
	return 0;
}

const struct kj_queue_ops kj_queue_pg_ops = {
	.submit = pgq_submit,
	.get = pgq_get,
	.claim = pgq_claim,
	.heartbeat = pgq_heartbeat,
	.complete = pgq_complete,
	.release = pgq_release,
	.requeue_stale = pgq_requeue_stale,
	.cancel = pgq_cancel,
	.list = pgq_list,
	.counts = pgq_counts,
	.token_add = pgq_token_add,
	.token_find = pgq_token_find,
	.token_remove = pgq_token_remove,
	.token_list = pgq_token_list,
};
