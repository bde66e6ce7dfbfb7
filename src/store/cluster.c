/*
 * The cluster queue on PostgreSQL (include/kjudge/cluster.h, docs/cluster.md)
 * and the copy of a run into a SQLite store for reports.
 */
#include <postgresql/libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/cluster.h"
#include "store/pg_internal.h"

#define LOCK(p) pthread_mutex_lock(&(p)->mu)
#define UNLOCK(p) pthread_mutex_unlock(&(p)->mu)

/* The connection of a store whose backend has the cluster queue. */
static struct kj_pg *need_pg(kj_db *s, struct kj_err *err)
{
	struct kj_pg *p = s->ops->cluster(s);
	if (!p)
		kj_err_set(err, KJ_E_UNSUPPORTED, "the cluster queue needs a postgresql:// store "
			   "(this one is SQLite)");
	return p;
}

void kj_cluster_job_release(struct kj_cluster_job *j)
{
	free(j->settings);
	free(j->source);
	j->settings = j->source = NULL;
}

/* ---- enqueue ---------------------------------------------------------------- */

static const char sql_requeue_failed[] =
	"UPDATE run_jobs j SET state = 'queued', attempts = 0, owner = '', error = '', "
	"lease_until = NULL, finished = NULL WHERE run_id = $1 AND state = 'failed' "
	"AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = j.candidate_id)";
/* enqueues of one run are serialised: two at once would both see a group
 * without a job */
static const char sql_enqueue_lock[] =
	"SELECT pg_advisory_xact_lock(7424592, ($1::bigint % 2147483647)::int)";
static const char sql_enqueue[] =
	"INSERT INTO run_jobs (run_id, candidate_id, backend) "
	"SELECT $1, min(c.id), (SELECT backend FROM runs WHERE id = $1) FROM candidates c "
	"WHERE c.run_id = $1 AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = c.id) "
	"GROUP BY c.task, c.sha256 "
	"HAVING NOT EXISTS (SELECT 1 FROM run_jobs j JOIN candidates c2 ON c2.id = j.candidate_id "
	" WHERE j.run_id = $1 AND j.state IN ('queued', 'running') AND c2.task = c.task "
	" AND c2.sha256 = c.sha256) "
	"ORDER BY min(c.id) ON CONFLICT (candidate_id) DO NOTHING";

int kj_cluster_enqueue(kj_db *s, int64_t run_id, int *added, int *requeued, struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	struct pga a;
	PGresult *r;
	int rc;
	if (!p)
		return KJ_E_UNSUPPORTED;
	pga_init(&a);
	pga_i64(&a, run_id);
	LOCK(p);
	if ((rc = pg_tx_begin(p, err)))
		goto out;
	if ((rc = pg_do(p, sql_enqueue_lock, &a, err, "cannot lock the run's queue")))
		goto fail;
	if (!(r = pg_q(p, sql_requeue_failed, &a, err, "cannot requeue failed jobs", &rc)))
		goto fail;
	if (requeued)
		*requeued = atoi(PQcmdTuples(r));
	PQclear(r);
	if (!(r = pg_q(p, sql_enqueue, &a, err, "cannot enqueue the run", &rc)))
		goto fail;
	if (added)
		*added = atoi(PQcmdTuples(r));
	PQclear(r);
	rc = pg_tx_commit(p, err);
	goto out;
fail:
	pg_tx_rollback(p);
out:
	UNLOCK(p);
	return rc;
}

/* ---- claim, heartbeat --------------------------------------------------------- */

static const char sql_sweep[] =
	"UPDATE run_jobs SET state = 'failed', lease_until = NULL, finished = kj_now(), "
	"error = 'lease expired after ' || attempts || ' claims (the worker died or hung each time)' "
	"WHERE backend = $1 AND state IN ('queued', 'running') AND state = 'running' "
	"AND lease_until < now() AND attempts >= $2";
static const char sql_claim[] =
	"UPDATE run_jobs SET state = 'running', owner = $3, attempts = attempts + 1, "
	"lease_until = now() + make_interval(secs => $4::double precision), started = kj_now() "
	"WHERE id = (SELECT id FROM run_jobs WHERE backend = $1 AND state IN ('queued', 'running') "
	" AND (state = 'queued' OR lease_until < now()) AND ($2::bigint = 0 OR run_id = $2::bigint) "
	" ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
	/* checked again on the row as locked: the scan of the partial index
	 * has been seen to hand out a row another claim had just taken */
	"AND (state = 'queued' OR (state = 'running' AND lease_until < now())) "
	"RETURNING id, run_id, candidate_id, attempts";
static const char sql_claimable[] =
	"SELECT EXISTS (SELECT 1 FROM run_jobs WHERE backend = $1 AND state IN ('queued', 'running') "
	"AND (state = 'queued' OR lease_until < now()) AND ($2::bigint = 0 OR run_id = $2::bigint))";
static const char sql_job_detail[] =
	"SELECT c.task, c.sha256, c.source, c.path, c.model, c.sample, c.round, r.name, r.settings, "
	"r.backend FROM candidates c JOIN runs r ON r.id = c.run_id WHERE c.id = $1";

static int claim(struct kj_pg *p, const char *backend, int64_t run_id, const char *owner,
		 double lease_s, int max_attempts, struct kj_cluster_job *j, int *got,
		 struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, backend);
	pga_i64(&a, max_attempts > 0 ? max_attempts : 1000000);
	if ((rc = pg_do(p, sql_sweep, &a, err, "cannot fail abandoned jobs")))
		return rc;
	pga_init(&a);
	pga_str(&a, backend);
	pga_i64(&a, run_id > 0 ? run_id : 0);
	pga_str(&a, owner);
	pga_dbl(&a, lease_s);
	for (int tries = 0;; tries++) {
		struct pga b;
		PGresult *e;
		int more;
		if (!(r = pg_q(p, sql_claim, &a, err, "cannot claim a job", &rc)))
			return rc;
		if (PQntuples(r) == 1)
			break;
		PQclear(r);
		/* nothing claimed: the queue is empty, or the row found was taken
		 * meanwhile (refused by the second check); look again */
		if (tries == 20)
			return 0;
		pga_init(&b);
		pga_str(&b, backend);
		pga_i64(&b, run_id > 0 ? run_id : 0);
		if (!(e = pg_q(p, sql_claimable, &b, err, "cannot look at the queue", &rc)))
			return rc;
		more = pg_str(e, 0, 0)[0] == 't';
		PQclear(e);
		if (!more)
			return 0;
	}
	j->id = pg_i64(r, 0, 0);
	j->run_id = pg_i64(r, 0, 1);
	j->candidate_id = pg_i64(r, 0, 2);
	j->attempts = (int)pg_i64(r, 0, 3);
	PQclear(r);
	snprintf(j->owner, sizeof(j->owner), "%s", owner);
	pga_init(&a);
	pga_i64(&a, j->candidate_id);
	if (!(r = pg_q(p, sql_job_detail, &a, err, "cannot read the job's candidate", &rc)))
		return rc;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return kj_err_set(err, KJ_E_INTERNAL, "store: job %lld names no candidate",
				  (long long)j->id);
	}
	snprintf(j->task, sizeof(j->task), "%s", pg_str(r, 0, 0));
	snprintf(j->sha256, sizeof(j->sha256), "%s", pg_str(r, 0, 1));
	j->source_len = (size_t)PQgetlength(r, 0, 2);
	j->source = strdup(pg_str(r, 0, 2));
	if (*pg_str(r, 0, 3))
		snprintf(j->label, sizeof(j->label), "%s", pg_str(r, 0, 3));
	else
		snprintf(j->label, sizeof(j->label), "%s/%s/%s_%s", *pg_str(r, 0, 4) ? pg_str(r, 0, 4) : "-",
			 j->task, pg_str(r, 0, 5), pg_str(r, 0, 6));
	snprintf(j->run_name, sizeof(j->run_name), "%s", pg_str(r, 0, 7));
	j->settings = strdup(pg_str(r, 0, 8));
	snprintf(j->backend, sizeof(j->backend), "%s", pg_str(r, 0, 9));
	PQclear(r);
	if (!j->source || !j->settings)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	*got = 1;
	return 0;
}

int kj_cluster_claim(kj_db *s, const char *backend, int64_t run_id, const char *owner,
		     double lease_s, int max_attempts, struct kj_cluster_job *j, int *got,
		     struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	int rc;
	*got = 0;
	memset(j, 0, sizeof(*j));
	if (!p)
		return KJ_E_UNSUPPORTED;
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err))) {
		rc = claim(p, backend, run_id, owner, lease_s, max_attempts, j, got, err);
		if (rc)
			pg_tx_rollback(p);
		else
			rc = pg_tx_commit(p, err);
	}
	UNLOCK(p);
	if (rc) {
		kj_cluster_job_release(j);
		*got = 0;
	}
	return rc;
}

static const char sql_heartbeat[] =
	"UPDATE run_jobs SET lease_until = now() + make_interval(secs => $4::double precision) "
	"WHERE id = $1 AND owner = $2 AND attempts = $3 AND state = 'running'";

int kj_cluster_heartbeat(kj_db *s, const struct kj_cluster_job *j, double lease_s,
			 struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	struct pga a;
	PGresult *r;
	int rc;
	if (!p)
		return KJ_E_UNSUPPORTED;
	pga_init(&a);
	pga_i64(&a, j->id);
	pga_str(&a, j->owner);
	pga_i64(&a, j->attempts);
	pga_dbl(&a, lease_s);
	LOCK(p);
	if ((r = pg_q(p, sql_heartbeat, &a, err, "cannot renew the lease", &rc))) {
		if (atoi(PQcmdTuples(r)) != 1)
			rc = kj_err_set(err, KJ_E_NOTFOUND, "job %lld: the lease was lost (taken again "
					"after it expired)", (long long)j->id);
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

/* ---- complete, fail ---------------------------------------------------------- */

static const char sql_lock_job[] =
	"SELECT state, owner, attempts, EXISTS (SELECT 1 FROM verdicts v WHERE "
	"v.candidate_id = j.candidate_id) FROM run_jobs j WHERE id = $1 FOR UPDATE";
static const char sql_followers[] =
	"SELECT c.id FROM candidates c WHERE c.run_id = $1 AND c.task = $2 AND c.sha256 = $3 "
	"AND c.id <> $4 AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = c.id) "
	"ORDER BY c.id";
static const char sql_job_done[] =
	"UPDATE run_jobs SET state = 'done', lease_until = NULL, finished = kj_now(), error = '' "
	"WHERE id = $1";
static const char sql_follower_jobs_done[] =
	"UPDATE run_jobs j SET state = 'done', lease_until = NULL, finished = kj_now() "
	"FROM candidates c WHERE c.id = j.candidate_id AND j.run_id = $1 AND c.task = $2 "
	"AND c.sha256 = $3 AND j.id <> $4 AND j.state IN ('queued', 'failed')";

/* The job's row locked, and whether j's token still holds it. */
static int hold(struct kj_pg *p, const struct kj_cluster_job *j, int *has_verdict,
		struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_i64(&a, j->id);
	if (!(r = pg_q(p, sql_lock_job, &a, err, "cannot lock the job", &rc)))
		return rc;
	if (PQntuples(r) != 1 || strcmp(pg_str(r, 0, 0), "running") || strcmp(pg_str(r, 0, 1), j->owner) ||
	    pg_i64(r, 0, 2) != j->attempts)
		rc = kj_err_set(err, KJ_E_NOTFOUND,
				"job %lld: the lease was lost (the job is %s, claim %lld by '%s'; this "
				"worker held claim %d): nothing written", (long long)j->id,
				PQntuples(r) ? pg_str(r, 0, 0) : "gone", PQntuples(r) ? (long long)pg_i64(r, 0, 2) : 0LL,
				PQntuples(r) ? pg_str(r, 0, 1) : "", j->attempts);
	else if (has_verdict)
		*has_verdict = pg_str(r, 0, 3)[0] == 't';
	PQclear(r);
	return rc;
}

static int complete(struct kj_pg *p, const struct kj_cluster_job *j, const kj_verdict *v,
		    const kj_task *t, const char *json, const struct kj_store_verdict_opts *o,
		    int64_t reuse_from, int *copies, struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int has = 0, rc;
	if ((rc = hold(p, j, &has, err)))
		return rc;
	if (!has) {
		if (v)
			rc = pg_put_verdict_tx(p, j->candidate_id, v, t, json, o, err);
		else
			rc = pg_copy_verdict_tx(p, reuse_from, j->candidate_id, err);
		if (rc)
			return rc;
	}
	pga_init(&a);
	pga_i64(&a, j->run_id);
	pga_str(&a, j->task);
	pga_str(&a, j->sha256);
	pga_i64(&a, j->candidate_id);
	if (!(r = pg_q(p, sql_followers, &a, err, "cannot list candidates with the same source", &rc)))
		return rc;
	for (int i = 0; i < PQntuples(r) && !rc; i++)
		if (!(rc = pg_copy_verdict_tx(p, j->candidate_id, pg_i64(r, i, 0), err)) && copies)
			(*copies)++;
	PQclear(r);
	if (rc)
		return rc;
	pga_init(&a);
	pga_i64(&a, j->run_id);
	pga_str(&a, j->task);
	pga_str(&a, j->sha256);
	pga_i64(&a, j->id);
	if ((rc = pg_do(p, sql_follower_jobs_done, &a, err, "cannot end the jobs of the copies")))
		return rc;
	pga_init(&a);
	pga_i64(&a, j->id);
	return pg_do(p, sql_job_done, &a, err, "cannot end the job");
}

int kj_cluster_complete(kj_db *s, const struct kj_cluster_job *j, const kj_verdict *v,
			const kj_task *t, const char *json, const struct kj_store_verdict_opts *o,
			int64_t reuse_from, int *copies, struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	char *own = NULL;
	int rc;
	if (copies)
		*copies = 0;
	if (!p)
		return KJ_E_UNSUPPORTED;
	if (!v && reuse_from <= 0)
		return kj_err_set(err, KJ_E_USAGE, "kj_cluster_complete: neither a verdict nor one to reuse");
	if (v && !json) {
		if (!(own = kj_verdict_json_text(v, t)))
			return kj_err_set(err, KJ_E_NOMEM, "store: cannot render the verdict JSON");
		json = own;
	}
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err))) {
		rc = complete(p, j, v, t, json, o, reuse_from, copies, err);
		if (rc)
			pg_tx_rollback(p);
		else
			rc = pg_tx_commit(p, err);
	}
	UNLOCK(p);
	if (rc && copies)
		*copies = 0;
	free(own);
	return rc;
}

static const char sql_fail[] =
	"UPDATE run_jobs SET state = CASE WHEN attempts >= $2 THEN 'failed' ELSE 'queued' END, "
	"error = $3, lease_until = NULL, finished = CASE WHEN attempts >= $2 THEN kj_now() END "
	"WHERE id = $1";

int kj_cluster_fail(kj_db *s, const struct kj_cluster_job *j, const char *error,
		    int max_attempts, struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	struct pga a;
	int rc;
	if (!p)
		return KJ_E_UNSUPPORTED;
	LOCK(p);
	if ((rc = pg_tx_begin(p, err)))
		goto out;
	if (!(rc = hold(p, j, NULL, err))) {
		pga_init(&a);
		pga_i64(&a, j->id);
		pga_i64(&a, max_attempts > 0 ? max_attempts : 1);
		pga_str(&a, error);
		rc = pg_do(p, sql_fail, &a, err, "cannot hand the job back");
	}
	if (rc)
		pg_tx_rollback(p);
	else
		rc = pg_tx_commit(p, err);
out:
	UNLOCK(p);
	return rc;
}

static const char sql_counts[] =
	"SELECT state, count(*), count(*) FILTER (WHERE state = 'running' AND lease_until < now()) "
	"FROM run_jobs WHERE ($1::bigint = 0 OR run_id = $1::bigint) "
	"AND ($2::text = '' OR backend = $2::text) GROUP BY state";

int kj_cluster_counts(kj_db *s, int64_t run_id, const char *backend,
		      struct kj_cluster_counts *c, struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	struct pga a;
	PGresult *r;
	int rc;
	memset(c, 0, sizeof(*c));
	if (!p)
		return KJ_E_UNSUPPORTED;
	pga_init(&a);
	pga_i64(&a, run_id > 0 ? run_id : 0);
	pga_str(&a, backend);
	LOCK(p);
	if ((r = pg_q(p, sql_counts, &a, err, "cannot count the jobs", &rc))) {
		for (int i = 0; i < PQntuples(r); i++) {
			const char *st = pg_str(r, i, 0);
			int64_t n = pg_i64(r, i, 1);
			if (!strcmp(st, "queued"))
				c->queued = n;
			else if (!strcmp(st, "running"))
				c->running = n;
			else if (!strcmp(st, "done"))
				c->done = n;
			else if (!strcmp(st, "failed"))
				c->failed = n;
			c->expired += pg_i64(r, i, 2);
		}
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

/* ---- export to SQLite ----------------------------------------------------------- */

#define IN_RUN "candidate_id IN (SELECT id FROM candidates WHERE run_id = $1)"

static const struct {
	const char *table, *cols, *where;
} export_tables[] = {
	{ "runs", "id, name, created, backend, spec, settings, kjudge_version", "id = $1" },
	{ "tasks", "id, level, category, about, sha256, dtype",
	  "id IN (SELECT task FROM candidates WHERE run_id = $1)" },
	{ "devices", "id, name, uuid, arch, info", "$1 > 0" },
	{ "calibrations", "id, device_id, copy_gbs, rates, created", "$1 > 0" },
	{ "candidates", "id, run_id, task, source, sha256, model, method, sample, round, parent_id, "
			"path, created", "run_id = $1" },
	{ "verdicts", "id, candidate_id, run_id, task, sha256, backend, device_id, cache_key, status, "
		      "stage, reason, flags, fallback_libs, speedup, compile_s, total_s, reused_from, json, "
		      "judged_at", "run_id = $1" },
	{ "verdict_shapes", "candidate_id, kind, bind, shape, weight, ms, iqr_ms, n, baseline_ms, "
			    "speedup, sol_ms, sol_frac, iou, mfu, flops, bytes", IN_RUN },
	{ "verdict_checks", "candidate_id, kind, bind, shape, seed_index, flavour, output, pass, "
			    "max_abs, max_rel, baseline_max_abs, budget_metric, tol_ratio, baseline_tol_ratio, "
			    "budget, budget_used", IN_RUN },
	{ "baselines", "task, shape, device_id, ms, iqr_ms, n, updated", "$1 > 0" },
	{ "judgements", "id, candidate_id, device_id, pid, started, finished", IN_RUN },
};

enum { OID_INT8 = 20, OID_INT2 = 21, OID_INT4 = 23, OID_FLOAT4 = 700, OID_FLOAT8 = 701 };

static int export_table(struct kj_pg *p, sqlite3 *db, int k, int64_t run_id, struct kj_err *err)
{
	char sel[1024], ins[1024];
	struct pga a;
	PGresult *r;
	sqlite3_stmt *st;
	int rc, ncol;
	snprintf(sel, sizeof(sel), "SELECT %s FROM %s WHERE %s", export_tables[k].cols,
		 export_tables[k].table, export_tables[k].where);
	pga_init(&a);
	pga_i64(&a, run_id);
	r = PQexecParams(p->c, sel, 1, NULL, a.v, NULL, NULL, 0);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		rc = pg_fail(p, r, err, "cannot read the run");
		PQclear(r);
		return rc;
	}
	ncol = PQnfields(r);
	snprintf(ins, sizeof(ins), "INSERT INTO %s (%s) VALUES (", export_tables[k].table,
		 export_tables[k].cols);
	for (int c = 0; c < ncol; c++)
		snprintf(ins + strlen(ins), sizeof(ins) - strlen(ins), "%s?", c ? ", " : "");
	snprintf(ins + strlen(ins), sizeof(ins) - strlen(ins), ")");
	if (sqlite3_prepare_v2(db, ins, -1, &st, NULL) != SQLITE_OK) {
		rc = kj_err_set(err, KJ_E_IO, "store: cannot prepare the copy of %s: %s",
				export_tables[k].table, sqlite3_errmsg(db));
		PQclear(r);
		return rc;
	}
	rc = 0;
	for (int i = 0; i < PQntuples(r) && !rc; i++) {
		sqlite3_reset(st);
		for (int c = 0; c < ncol; c++) {
			Oid t = PQftype(r, c);
			if (PQgetisnull(r, i, c))
				sqlite3_bind_null(st, c + 1);
			else if (t == OID_INT8 || t == OID_INT4 || t == OID_INT2)
				sqlite3_bind_int64(st, c + 1, pg_i64(r, i, c));
			else if (t == OID_FLOAT8 || t == OID_FLOAT4)
				sqlite3_bind_double(st, c + 1, pg_dbl(r, i, c));
			else
				sqlite3_bind_text(st, c + 1, PQgetvalue(r, i, c), PQgetlength(r, i, c),
						  SQLITE_TRANSIENT);
		}
		if (sqlite3_step(st) != SQLITE_DONE)
			rc = kj_err_set(err, KJ_E_IO, "store: cannot copy a row of %s: %s",
					export_tables[k].table, sqlite3_errmsg(db));
	}
	sqlite3_finalize(st);
	PQclear(r);
	return rc;
}

int kj_store_export_sqlite(kj_db *s, const char *run, const char *sqlite_path,
			   struct kj_err *err)
{
	struct kj_pg *p = need_pg(s, err);
	kj_db *out = NULL;
	sqlite3 *db;
	int64_t run_id;
	int rc;
	if (!p)
		return KJ_E_UNSUPPORTED;
	if ((rc = kj_store_run_find(s, run, &run_id, err)))
		return rc;
	if ((rc = kj_store_open(sqlite_path, &out, err)))
		return rc;
	db = kj_store_sqlite(out);
	/* verdicts may name candidates of other runs (reused_from) */
	if (sqlite3_exec(db, "PRAGMA foreign_keys = OFF; BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		rc = kj_err_set(err, KJ_E_IO, "store: cannot write '%s': %s", sqlite_path, sqlite3_errmsg(db));
		kj_store_close(out);
		return rc;
	}
	LOCK(p);
	/* one snapshot of the run, even while workers write */
	if (!(rc = pg_exec(p, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err))) {
		for (size_t k = 0; k < sizeof(export_tables) / sizeof(export_tables[0]) && !rc; k++)
			rc = export_table(p, db, (int)k, run_id, err);
		pg_exec(p, rc ? "ROLLBACK" : "COMMIT", rc ? NULL : err);
	}
	UNLOCK(p);
	if (sqlite3_exec(db, rc ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL) != SQLITE_OK && !rc)
		rc = kj_err_set(err, KJ_E_IO, "store: cannot write '%s': %s", sqlite_path, sqlite3_errmsg(db));
	kj_store_close(out);
	return rc;
}
