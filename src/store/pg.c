/*
 * The results store on PostgreSQL (libpq): the same contract as the SQLite
 * store (include/kjudge/store.h), for runs shared by many nodes.  See
 * src/store/pg.h, docs/store.md and docs/cluster.md.
 *
 * Statements are prepared once per connection (named after the address of
 * their SQL text) and run with text parameters.  A lost connection is
 * re-established once, outside a transaction, before a call fails.
 */
#include <assert.h>
#include <math.h>
#include <postgresql/libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/version.h"
#include "store/pg_internal.h"
#include "store/rules.h"
#include "store/schema.h"
#include "store/store_int.h"


int kj_pg_is_url(const char *path)
{
	return path && (!strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11));
}

void kj_pg_redact(const char *url, char *buf, size_t len)
{
	const char *scheme = strstr(url, "://"), *at, *colon;
	snprintf(buf, len, "%s", url);
	if (!scheme)
		return;
	scheme += 3;
	at = strchr(scheme, '@');
	colon = strchr(scheme, ':');
	if (at && colon && colon < at)
		snprintf(buf, len, "%.*s:***%s", (int)(colon - url), url, at);
}

/* ---- parameters ----------------------------------------------------------- */

void pga_init(struct pga *a)
{
	a->n = 0;
}

void pga_str(struct pga *a, const char *s)
{
	assert(a->n < PGA_MAX);
	a->v[a->n++] = s ? s : "";
}

void pga_null(struct pga *a)
{
	assert(a->n < PGA_MAX);
	a->v[a->n++] = NULL;
}

void pga_i64(struct pga *a, int64_t x)
{
	assert(a->n < PGA_MAX);
	snprintf(a->buf[a->n], sizeof(a->buf[0]), "%lld", (long long)x);
	a->v[a->n] = a->buf[a->n];
	a->n++;
}

void pga_dbl(struct pga *a, double x)
{
	assert(a->n < PGA_MAX);
	if (isnan(x))
		snprintf(a->buf[a->n], sizeof(a->buf[0]), "NaN");
	else if (isinf(x))
		snprintf(a->buf[a->n], sizeof(a->buf[0]), "%sInfinity", x < 0 ? "-" : "");
	else
		snprintf(a->buf[a->n], sizeof(a->buf[0]), "%.17g", x);
	a->v[a->n] = a->buf[a->n];
	a->n++;
}

/* NULL for the "unknown" values a verdict marks negative. */
static void pga_pos(struct pga *a, double x)
{
	if (x >= 0)
		pga_dbl(a, x);
	else
		pga_null(a);
}

void pga_id(struct pga *a, int64_t id)
{
	if (id > 0)
		pga_i64(a, id);
	else
		pga_null(a);
}

/* ---- connection and statements ------------------------------------------- */

static void msg_of(PGconn *c, char *buf, size_t len)
{
	size_t n;
	snprintf(buf, len, "%s", c ? PQerrorMessage(c) : "out of memory");
	n = strlen(buf);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
}

int pg_fail(struct kj_pg *p, PGresult *r, struct kj_err *err, const char *what)
{
	char m[512];
	const char *rm = r ? PQresultErrorMessage(r) : NULL;
	if (rm && *rm) {
		size_t n;
		snprintf(m, sizeof(m), "%s", rm);
		n = strlen(m);
		while (n && (m[n - 1] == '\n' || m[n - 1] == ' '))
			m[--n] = 0;
	} else {
		msg_of(p->c, m, sizeof(m));
	}
	return kj_err_set(err, KJ_E_IO, "store (%s): %s: %s", p->where, what, m);
}

/* A lost connection, outside a transaction: reconnect once. */
static int try_reset(struct kj_pg *p)
{
	if (PQstatus(p->c) == CONNECTION_OK || p->outer || p->in_tx)
		return 0;
	PQreset(p->c);
	if (PQstatus(p->c) != CONNECTION_OK)
		return 0;
	p->nprep = 0;
	PQclear(PQexec(p->c, "SET client_min_messages = warning"));
	return 1;
}

static const char *prep_name(struct kj_pg *p, const char *sql, int nparams, struct kj_err *err,
			     int *rc)
{
	PGresult *r;
	*rc = 0;
	for (int i = 0; i < p->nprep; i++)
		if (p->prep[i].sql == sql)
			return p->prep[i].name;
	if (p->nprep == PG_MAX_PREP) {
		/* never reached with the statements of this file; unnamed is fine */
		return "";
	}
	snprintf(p->prep[p->nprep].name, sizeof(p->prep[0].name), "kj%d", p->nprep);
	r = PQprepare(p->c, p->prep[p->nprep].name, sql, nparams, NULL);
	if (PQresultStatus(r) != PGRES_COMMAND_OK) {
		*rc = pg_fail(p, r, err, "cannot prepare a statement");
		kj_err_prefix(err, "'%.60s'", sql);
		PQclear(r);
		return NULL;
	}
	PQclear(r);
	p->prep[p->nprep].sql = sql;
	return p->prep[p->nprep++].name;
}

PGresult *pg_q(struct kj_pg *p, const char *sql, const struct pga *a, struct kj_err *err,
	       const char *what, int *rc)
{
	for (int attempt = 0;; attempt++) {
		const char *name = prep_name(p, sql, a ? a->n : 0, err, rc);
		PGresult *r;
		ExecStatusType s;
		if (!name) {
			if (attempt == 0 && try_reset(p))
				continue;
			return NULL;
		}
		if (*name)
			r = PQexecPrepared(p->c, name, a ? a->n : 0, a ? a->v : NULL, NULL, NULL, 0);
		else
			r = PQexecParams(p->c, sql, a ? a->n : 0, NULL, a ? a->v : NULL, NULL, NULL, 0);
		s = PQresultStatus(r);
		if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
			*rc = 0;
			return r;
		}
		if (attempt == 0 && try_reset(p)) {
			PQclear(r);
			continue;
		}
		*rc = pg_fail(p, r, err, what);
		PQclear(r);
		return NULL;
	}
}

int pg_do(struct kj_pg *p, const char *sql, const struct pga *a, struct kj_err *err,
	  const char *what)
{
	int rc;
	PGresult *r = pg_q(p, sql, a, err, what, &rc);
	PQclear(r);
	return rc;
}

/* Plain SQL without parameters (transactions, migrations). */
int pg_exec(struct kj_pg *p, const char *sql, struct kj_err *err)
{
	PGresult *r = PQexec(p->c, sql);
	ExecStatusType s = PQresultStatus(r);
	int rc = 0;
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		if (try_reset(p)) {
			PQclear(r);
			r = PQexec(p->c, sql);
			s = PQresultStatus(r);
		}
		if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
			rc = pg_fail(p, r, err, sql);
	}
	PQclear(r);
	return rc;
}

int64_t pg_i64(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

double pg_dbl(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? NAN : strtod(PQgetvalue(r, row, col), NULL);
}

const char *pg_str(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col);
}

int pg_tx_begin(struct kj_pg *p, struct kj_err *err)
{
	int rc = pg_exec(p, p->outer ? "SAVEPOINT kj_op" : "BEGIN", err);
	if (!rc && !p->outer)
		p->in_tx = 1;
	return rc;
}

int pg_tx_commit(struct kj_pg *p, struct kj_err *err)
{
	int rc = pg_exec(p, p->outer ? "RELEASE SAVEPOINT kj_op" : "COMMIT", err);
	if (!p->outer) {
		if (rc)
			pg_exec(p, "ROLLBACK", NULL);
		p->in_tx = 0;
	}
	return rc;
}

void pg_tx_rollback(struct kj_pg *p)
{
	if (p->outer) {
		pg_exec(p, "ROLLBACK TO SAVEPOINT kj_op", NULL);
		pg_exec(p, "RELEASE SAVEPOINT kj_op", NULL);
	} else {
		pg_exec(p, "ROLLBACK", NULL);
		p->in_tx = 0;
	}
}

int pg_tx_end(struct kj_pg *p, int rc, struct kj_err *err)
{
	if (rc) {
		pg_tx_rollback(p);
		return rc;
	}
	return pg_tx_commit(p, err);
}

/* a holding the one parameter x. */
static const struct pga *pga_1(struct pga *a, int64_t x)
{
	pga_init(a);
	pga_i64(a, x);
	return a;
}

/* pg_q for a statement that returns an id: the first row's first column
 * into *id. */
static int pg_q_id(struct kj_pg *p, const char *sql, const struct pga *a, struct kj_err *err,
		   const char *what, int64_t *id)
{
	int rc;
	PGresult *r = pg_q(p, sql, a, err, what, &rc);
	if (r)
		*id = pg_i64(r, 0, 0);
	PQclear(r);
	return rc;
}

/* ---- migrations ------------------------------------------------------------ */

static int read_version(struct kj_pg *p, int *v, struct kj_err *err)
{
	PGresult *r = PQexec(p->c, "SELECT coalesce(max(version), 0) FROM kjudge_schema");
	int rc = 0;
	if (PQresultStatus(r) != PGRES_TUPLES_OK)
		rc = pg_fail(p, r, err, "cannot read the schema version");
	else
		*v = atoi(PQgetvalue(r, 0, 0));
	PQclear(r);
	return rc;
}

/* Every step above kjudge_schema's version, each in one transaction, under
 * a session advisory lock so that workers opening a new database at once
 * migrate it once. */
static int pg_migrate(struct kj_pg *p, struct kj_err *err)
{
	struct kj_schema_step st[KJ_SCHEMA_MAX_STEPS];
	int n = kj_schema_steps(kj_store_schema_pg_sql, st, KJ_SCHEMA_MAX_STEPS);
	int have = 0, rc;
	if (n <= 0)
		return kj_err_set(err, KJ_E_INTERNAL, "store: the embedded PostgreSQL schema has no valid "
				  "migration steps");
	/* the common case, without the lock: a database at this version */
	if (read_version(p, &have, NULL) == 0 && have == n)
		return 0;
	if ((rc = pg_exec(p, "SELECT pg_advisory_lock(7424591)", err)))
		return rc;
	/* concurrent CREATE TABLE IF NOT EXISTS can fail on the catalog's
	 * unique keys: it runs under the lock */
	if ((rc = pg_exec(p, "CREATE TABLE IF NOT EXISTS kjudge_schema (version INTEGER NOT NULL)", err)) ||
	    (rc = read_version(p, &have, err)))
		goto out;
	if (have > n) {
		rc = kj_err_set(err, KJ_E_UNSUPPORTED,
				"store: '%s' has schema version %d, written by a newer kjudge (this one "
				"knows %d)", p->where, have, n);
		goto out;
	}
	for (int i = have; i < n && !rc; i++) {
		char *sql = strndup(st[i].sql, st[i].len), ver[64];
		if (!sql) {
			rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
			break;
		}
		snprintf(ver, sizeof(ver), "INSERT INTO kjudge_schema (version) VALUES (%d)", st[i].n);
		if (!(rc = pg_exec(p, "BEGIN", err))) {
			if ((rc = pg_exec(p, sql, err)))
				kj_err_prefix(err, "migration step %d", st[i].n);
			if (!rc)
				rc = pg_exec(p, "DELETE FROM kjudge_schema", err);
			if (!rc)
				rc = pg_exec(p, ver, err);
			if (!rc)
				rc = pg_exec(p, "COMMIT", err);
			if (rc)
				pg_exec(p, "ROLLBACK", NULL);
		}
		free(sql);
	}
out:
	pg_exec(p, "SELECT pg_advisory_unlock(7424591)", NULL);
	return rc;
}

/* A reader's check instead of migrating: the schema table must be there (a
 * kjudge store) and not above this binary's steps; an older schema is read as
 * it is (every step keeps step 1's tables, which reports read). */
static int pg_check_version(struct kj_pg *p, struct kj_err *err)
{
	struct kj_schema_step st[KJ_SCHEMA_MAX_STEPS];
	int n = kj_schema_steps(kj_store_schema_pg_sql, st, KJ_SCHEMA_MAX_STEPS), have = 0;
	PGresult *r = PQexec(p->c, "SELECT to_regclass('kjudge_schema') IS NOT NULL");
	int known = PQresultStatus(r) == PGRES_TUPLES_OK && !strcmp(PQgetvalue(r, 0, 0), "t");
	PQclear(r);
	if (!known)
		return kj_err_set(err, KJ_E_IO, "'%s' is not a kjudge store (no kjudge_schema table)",
				  p->where);
	if (read_version(p, &have, err))
		return KJ_E_IO;
	if (n > 0 && have > n)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "store: '%s' has schema version %d, written by a newer kjudge (this one "
				  "knows %d)", p->where, have, n);
	return 0;
}

static const struct kj_store_ops pg_ops;

static void pg_close(struct kj_pg *p)
{
	if (!p)
		return;
	if (p->c && PQtransactionStatus(p->c) != PQTRANS_IDLE)
		PQclear(PQexec(p->c, "ROLLBACK"));
	PQfinish(p->c);
	pthread_mutex_destroy(&p->mu);
	free(p);
}

int kj_pg_open(const char *url, int readonly, kj_db **out, struct kj_err *err)
{
	struct kj_pg *p = calloc(1, sizeof(*p));
	int rc;
	*out = NULL;
	if (!p)
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	p->base.ops = &pg_ops;
	kj_pg_redact(url, p->where, sizeof(p->where));
	p->c = PQconnectdb(url);
	if (!p->c || PQstatus(p->c) != CONNECTION_OK) {
		char m[512];
		msg_of(p->c, m, sizeof(m));
		rc = kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", p->where, m);
		PQfinish(p->c);
		free(p);
		return rc;
	}
	pthread_mutex_init(&p->mu, NULL);
	if ((rc = pg_exec(p, "SET client_min_messages = warning", err)) ||
	    (readonly && (rc = pg_exec(p, "SET default_transaction_read_only = on", err))) ||
	    (rc = readonly ? pg_check_version(p, err) : pg_migrate(p, err))) {
		pg_close(p);
		return rc;
	}
	*out = &p->base;
	return 0;
}

static void pgs_close(kj_db *d)
{
	pg_close(PG(d));
}

static struct sqlite3 *pgs_sqlite(kj_db *d)
{
	return NULL;
}

static struct kj_pg *pgs_cluster(kj_db *d)
{
	return PG(d);
}

#define LOCK(p) pthread_mutex_lock(&(p)->mu)
#define UNLOCK(p) pthread_mutex_unlock(&(p)->mu)

static int pgs_schema_version(kj_db *d, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int v = 0, rc;
	LOCK(p);
	rc = read_version(p, &v, err);
	UNLOCK(p);
	return rc ? rc : v;
}

static int pgs_begin(kj_db *d, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc;
	LOCK(p);
	if (p->outer) {
		UNLOCK(p);
		return kj_err_set(err, KJ_E_USAGE, "store: a transaction is already open");
	}
	rc = pg_exec(p, "BEGIN", err);
	if (!rc)
		p->outer = 1;
	UNLOCK(p);
	return rc;
}

static int end_outer(struct kj_pg *p, const char *sql, struct kj_err *err)
{
	int rc;
	LOCK(p);
	if (!p->outer) {
		UNLOCK(p);
		return kj_err_set(err, KJ_E_USAGE, "store: no transaction is open");
	}
	rc = pg_exec(p, sql, err);
	if (rc && PQtransactionStatus(p->c) != PQTRANS_IDLE)
		pg_exec(p, "ROLLBACK", NULL);
	p->outer = 0;
	UNLOCK(p);
	return rc;
}

static int pgs_commit(kj_db *d, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	return end_outer(p, "COMMIT", err);
}

static int pgs_rollback(kj_db *d, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	return end_outer(p, "ROLLBACK", err);
}

/* ---- runs, tasks, candidates ------------------------------------------- */

static const char sql_run_find[] = "SELECT id, backend FROM runs WHERE name = $1";

static int run_find(struct kj_pg *p, const char *name, int64_t *run_id, char *backend, size_t bl,
		    struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, name);
	if (!(r = pg_q(p, sql_run_find, &a, err, "cannot look up the run", &rc)))
		return rc;
	if (PQntuples(r) == 1) {
		*run_id = pg_i64(r, 0, 0);
		if (backend)
			snprintf(backend, bl, "%s", pg_str(r, 0, 1));
	} else {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "no run '%s' in this database", name);
	}
	PQclear(r);
	return rc;
}

static int pgs_run_find(kj_db *d, const char *name, int64_t *run_id, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc;
	LOCK(p);
	rc = run_find(p, name, run_id, NULL, 0, err);
	UNLOCK(p);
	return rc;
}

static const char sql_run_create[] =
	"INSERT INTO runs (name, backend, spec, settings, kjudge_version) VALUES ($1, $2, $3, $4, $5) "
	"ON CONFLICT (name) DO NOTHING";

static int pgs_run_get_or_create(kj_db *d, const char *name, const char *backend,
			    const char *spec, const char *settings, int64_t *run_id,
			    struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	char have[16];
	int rc;
	LOCK(p);
	if ((rc = pg_tx_begin(p, err)))
		goto out;
	pga_init(&a);
	pga_str(&a, name);
	pga_str(&a, backend);
	pga_str(&a, spec);
	pga_str(&a, settings && *settings ? settings : "{}");
	pga_str(&a, kj_version());
	if ((rc = pg_do(p, sql_run_create, &a, err, "cannot create the run")) ||
	    (rc = run_find(p, name, run_id, have, sizeof(have), err)))
		goto end;
	if (strcmp(have, backend))
		rc = kj_err_set(err, KJ_E_USAGE, "run '%s' is a %s run, not %s", name, have, backend);
end:
	rc = pg_tx_end(p, rc, err);
out:
	UNLOCK(p);
	return rc;
}

static const char sql_put_task[] =
	"INSERT INTO tasks (id, level, category, about, sha256, dtype) VALUES ($1, $2, $3, $4, $5, $6) "
	"ON CONFLICT (id) DO UPDATE SET level = excluded.level, category = excluded.category, "
	"about = excluded.about, sha256 = excluded.sha256, dtype = excluded.dtype";

static int pgs_put_task(kj_db *d, const kj_task *t, const char *kt_sha256, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	int rc;
	pga_init(&a);
	pga_str(&a, t->id);
	pga_i64(&a, t->level);
	pga_str(&a, t->category);
	pga_str(&a, t->about);
	pga_str(&a, kt_sha256);
	pga_str(&a, kj_store_task_dtype(t));
	LOCK(p);
	rc = pg_do(p, sql_put_task, &a, err, "cannot write the task");
	UNLOCK(p);
	return rc;
}

static const char sql_task_exists[] = "SELECT 1 FROM tasks WHERE id = $1";
static const char sql_cand_find[] =
	"SELECT id, sha256 FROM candidates WHERE run_id = $1 AND model = $2 AND task = $3 "
	"AND sample = $4 AND round = $5";
static const char sql_cand_add[] =
	"INSERT INTO candidates (run_id, task, source, sha256, model, method, sample, round, "
	"parent_id, path) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id";

static int add_candidate(struct kj_pg *p, const struct kj_store_candidate *c, const char *src,
			 const char *sha, int64_t *id, int *created, struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, c->task);
	if (!(r = pg_q(p, sql_task_exists, &a, err, "cannot look up the task", &rc)))
		return rc;
	if (PQntuples(r) == 0) {
		PQclear(r);
		return kj_err_set(err, KJ_E_USAGE, "store: unknown task '%s' (add it with kj_store_put_task)",
				  c->task ? c->task : "");
	}
	PQclear(r);
	pga_init(&a);
	pga_i64(&a, c->run_id);
	pga_str(&a, c->model);
	pga_str(&a, c->task);
	pga_i64(&a, c->sample);
	pga_i64(&a, c->round);
	if (!(r = pg_q(p, sql_cand_find, &a, err, "cannot look up the candidate", &rc)))
		return rc;
	if (PQntuples(r) == 1) {
		*id = pg_i64(r, 0, 0);
		if (strcmp(pg_str(r, 0, 1), sha))
			rc = kj_err_set(err, KJ_E_USAGE,
					"candidate (model '%s', task %s, sample %d, round %d) already holds "
					"another source", c->model ? c->model : "", c->task, c->sample, c->round);
		PQclear(r);
		return rc;
	}
	PQclear(r);
	pga_init(&a);
	pga_i64(&a, c->run_id);
	pga_str(&a, c->task);
	pga_str(&a, src);
	pga_str(&a, sha);
	pga_str(&a, c->model);
	pga_str(&a, c->method);
	pga_i64(&a, c->sample);
	pga_i64(&a, c->round);
	pga_id(&a, c->parent_id);
	pga_str(&a, c->path);
	if ((rc = pg_q_id(p, sql_cand_add, &a, err, "cannot add the candidate", id)))
		return rc;
	if (created)
		*created = 1;
	return 0;
}

static int pgs_add_candidate(kj_db *d, const struct kj_store_candidate *c, const char *sha,
			int64_t *id, int *created, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	char *src;
	int rc;
	/* text parameters end at a NUL, and PostgreSQL text holds none */
	if (c->source && memchr(c->source, 0, c->source_len))
		return kj_err_set(err, KJ_E_USAGE, "store: a candidate source holds a NUL byte, which "
				  "PostgreSQL text cannot store");
	src = strndup(c->source ? c->source : "", c->source ? c->source_len : 0);
	if (!src)
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err)))
		rc = pg_tx_end(p, add_candidate(p, c, src, sha, id, created, err), err);
	UNLOCK(p);
	free(src);
	return rc;
}

static const char sql_link[] =
	"UPDATE candidates AS c SET parent_id = p.id FROM candidates p "
	"WHERE c.run_id = $1 AND c.parent_id IS NULL AND c.round > 0 AND p.run_id = c.run_id "
	"AND p.model = c.model AND p.task = c.task AND p.sample = c.sample AND p.round = c.round - 1";

static int pgs_link_parents(kj_db *d, int64_t run_id, int *linked, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	LOCK(p);
	r = pg_q(p, sql_link, pga_1(&a, run_id), err, "cannot link parent candidates", &rc);
	if (r && linked)
		*linked = atoi(PQcmdTuples(r));
	PQclear(r);
	UNLOCK(p);
	return rc;
}

static const char sql_pending[] =
	"SELECT id, task, sha256, source, model, method, path, sample, round FROM candidates c "
	"WHERE run_id = $1 AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = c.id) "
	"ORDER BY id";

static int pgs_pending(kj_db *d, int64_t run_id,
		  int (*fn)(void *ctx, const struct kj_store_cand *c), void *ctx,
		  struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	LOCK(p);
	if ((r = pg_q(p, sql_pending, pga_1(&a, run_id), err, "cannot list pending candidates", &rc))) {
		for (int i = 0; i < PQntuples(r) && !rc; i++) {
			struct kj_store_cand c;
			c.id = pg_i64(r, i, 0);
			c.task = pg_str(r, i, 1);
			c.sha256 = pg_str(r, i, 2);
			c.source = pg_str(r, i, 3);
			c.source_len = (size_t)PQgetlength(r, i, 3);
			c.model = pg_str(r, i, 4);
			c.method = pg_str(r, i, 5);
			c.path = pg_str(r, i, 6);
			c.sample = (int)pg_i64(r, i, 7);
			c.round = (int)pg_i64(r, i, 8);
			rc = fn(ctx, &c);
		}
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

/* ---- devices and calibrations ------------------------------------------ */

static const char sql_dev_upsert[] =
	"INSERT INTO devices (uuid, name, arch, info) VALUES ($1, $2, $3, $4) "
	"ON CONFLICT (uuid) DO UPDATE SET name = excluded.name, arch = excluded.arch, "
	"info = excluded.info RETURNING id";

static int pgs_device_upsert(kj_db *d, const char *uuid, const char *name, const char *arch,
			const char *info, int64_t *id, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	int rc;
	pga_init(&a);
	pga_str(&a, uuid);
	pga_str(&a, name);
	pga_str(&a, arch);
	pga_str(&a, info && *info ? info : "{}");
	LOCK(p);
	rc = pg_q_id(p, sql_dev_upsert, &a, err, "cannot write the device", id);
	UNLOCK(p);
	return rc;
}

static const char sql_calib_add[] =
	"INSERT INTO calibrations (device_id, copy_gbs, rates) VALUES ($1, $2, $3)";

static int pgs_calibration_add(kj_db *d, int64_t device_id, const char *rates_json,
			  double copy_gbs, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	int rc;
	pga_init(&a);
	pga_i64(&a, device_id);
	pga_dbl(&a, copy_gbs);
	pga_str(&a, rates_json);
	LOCK(p);
	rc = pg_do(p, sql_calib_add, &a, err, "cannot write the calibration");
	UNLOCK(p);
	return rc;
}

static const char sql_calib_latest[] =
	"SELECT c.copy_gbs, c.rates, d.uuid, d.name FROM calibrations c JOIN devices d ON "
	"d.id = c.device_id WHERE c.device_id = $1 ORDER BY c.created DESC, c.id DESC LIMIT 1";

static int pgs_calibration_latest(kj_db *d, int64_t device_id, double *copy_gbs,
			     char **rates, char *uuid, size_t ul, char *name, size_t nl,
			     struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	*rates = NULL;
	LOCK(p);
	if ((r = pg_q(p, sql_calib_latest, pga_1(&a, device_id), err, "cannot read the calibration",
		      &rc))) {
		if (PQntuples(r) == 1) {
			*copy_gbs = PQgetisnull(r, 0, 0) ? 0 : pg_dbl(r, 0, 0);
			if (!(*rates = strdup(pg_str(r, 0, 1))))
				rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
			snprintf(uuid, ul, "%s", pg_str(r, 0, 2));
			snprintf(name, nl, "%s", pg_str(r, 0, 3));
		} else {
			rc = kj_err_set(err, KJ_E_NOTFOUND, "store: device %lld has no calibration",
					(long long)device_id);
		}
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

/* ---- verdicts ----------------------------------------------------------- */

static const char sql_judgement_begin[] =
	"INSERT INTO judgements (candidate_id, device_id, pid) VALUES ($1, $2, $3) RETURNING id";

static int pgs_judgement_begin(kj_db *d, int64_t candidate_id, int64_t device_id,
			  int64_t *id, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	int rc;
	pga_init(&a);
	pga_i64(&a, candidate_id);
	pga_id(&a, device_id);
	pga_i64(&a, (int64_t)getpid());
	LOCK(p);
	rc = pg_q_id(p, sql_judgement_begin, &a, err, "cannot log the judgement", id);
	UNLOCK(p);
	return rc;
}

static const char sql_cand_state[] =
	"SELECT run_id, EXISTS (SELECT 1 FROM verdicts WHERE candidate_id = c.id), task, sha256 "
	"FROM candidates c WHERE id = $1";

static int cand_state(struct kj_pg *p, int64_t id, int64_t *run_id, int *has_verdict, char *task,
		      size_t tl, char *sha, size_t shl, struct kj_err *err)
{
	struct pga a;
	PGresult *r;
	int rc;
	if (!(r = pg_q(p, sql_cand_state, pga_1(&a, id), err, "cannot look up the candidate", &rc)))
		return rc;
	if (PQntuples(r) == 1) {
		*run_id = pg_i64(r, 0, 0);
		*has_verdict = pg_str(r, 0, 1)[0] == 't';
		if (task)
			snprintf(task, tl, "%s", pg_str(r, 0, 2));
		if (sha)
			snprintf(sha, shl, "%s", pg_str(r, 0, 3));
	} else {
		rc = kj_err_set(err, KJ_E_USAGE, "store: no candidate %lld", (long long)id);
	}
	PQclear(r);
	return rc;
}

static const char sql_shape[] =
	"INSERT INTO verdict_shapes (candidate_id, kind, bind, shape, weight, ms, iqr_ms, n, "
	"baseline_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes) VALUES "
	"($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";
static const char sql_baseline[] =
	"INSERT INTO baselines (task, shape, device_id, ms, iqr_ms, n) VALUES ($1, $2, $3, $4, $5, $6) "
	"ON CONFLICT (task, shape, device_id) DO UPDATE SET ms = excluded.ms, iqr_ms = excluded.iqr_ms, "
	"n = excluded.n, updated = kj_now()";

static int put_shapes(struct kj_pg *p, int64_t cid, const kj_verdict *v, const kj_task *t,
		      int64_t device_id, struct kj_err *err)
{
	char shape[512];
	int rc = 0;
	for (int i = 0; i < v->nperf && !rc; i++) {
		const kj_perf *q = &v->perf[i];
		struct pga a;
		if (q->n <= 0)
			continue;
		if (q->bind < 0 || q->bind >= t->nbind)
			return kj_err_set(err, KJ_E_INTERNAL, "store: perf entry %d names shape %d of %d", i,
					  q->bind, t->nbind);
		kj_binding_str(t, &t->binds[q->bind], shape, sizeof(shape));
		pga_init(&a);
		pga_i64(&a, cid);
		pga_str(&a, t->binds[q->bind].bench ? "bench" : "check");
		pga_i64(&a, q->bind);
		pga_str(&a, shape);
		pga_dbl(&a, q->weight);
		pga_dbl(&a, q->ms);
		pga_dbl(&a, q->iqr_ms);
		pga_i64(&a, q->n);
		pga_pos(&a, q->baseline_n > 0 ? q->baseline_ms : -1);
		pga_pos(&a, q->baseline_n > 0 ? q->speedup : -1);
		pga_pos(&a, q->sol_ms);
		pga_pos(&a, q->sol_frac);
		pga_pos(&a, q->iou);
		pga_pos(&a, q->mfu);
		pga_dbl(&a, q->flops);
		pga_dbl(&a, q->bytes);
		rc = pg_do(p, sql_shape, &a, err, "cannot write a verdict shape");
		if (rc || device_id <= 0 || q->baseline_n <= 0)
			continue;
		pga_init(&a);
		pga_str(&a, t->id);
		pga_str(&a, shape);
		pga_i64(&a, device_id);
		pga_dbl(&a, q->baseline_ms);
		pga_dbl(&a, q->baseline_iqr_ms);
		pga_i64(&a, q->baseline_n);
		rc = pg_do(p, sql_baseline, &a, err, "cannot write a baseline");
	}
	return rc;
}

static const char sql_check[] =
	"INSERT INTO verdict_checks (candidate_id, kind, bind, shape, seed_index, flavour, output, "
	"pass, max_abs, max_rel, baseline_max_abs, budget_metric, tol_ratio, baseline_tol_ratio, budget, "
	"budget_used) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";

static int put_checks(struct kj_pg *p, int64_t cid, const kj_verdict *v, const kj_task *t,
		      struct kj_err *err)
{
	char shape[512];
	int rc = 0;
	for (int i = 0; i < v->nchecks && !rc; i++) {
		const kj_check *k = &v->checks[i];
		struct pga a;
		if (k->bind < 0 || k->bind >= t->nbind)
			return kj_err_set(err, KJ_E_INTERNAL, "store: check %d names shape %d of %d", i,
					  k->bind, t->nbind);
		kj_binding_str(t, &t->binds[k->bind], shape, sizeof(shape));
		pga_init(&a);
		pga_i64(&a, cid);
		pga_str(&a, t->binds[k->bind].bench ? "bench" : "check");
		pga_i64(&a, k->bind);
		pga_str(&a, shape);
		pga_i64(&a, k->seed_index);
		pga_str(&a, kj_seed_flavour_name(k->flavour));
		pga_str(&a, k->output);
		pga_i64(&a, k->pass ? 1 : 0);
		pga_dbl(&a, k->max_abs);
		pga_dbl(&a, k->max_rel);
		pga_dbl(&a, k->base_max_abs);
		pga_str(&a, k->budget_metric);
		pga_dbl(&a, k->tol_ratio);
		if (isnan(k->base_tol_ratio))
			pga_null(&a);
		else
			pga_dbl(&a, k->base_tol_ratio);
		pga_dbl(&a, k->budget);
		pga_i64(&a, k->budget_used ? 1 : 0);
		rc = pg_do(p, sql_check, &a, err, "cannot write a verdict check");
	}
	return rc;
}

static const char sql_verdict[] =
	"INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id, cache_key, "
	"status, stage, reason, flags, fallback_libs, speedup, compile_s, total_s, json) VALUES "
	"($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)";
static const char sql_judgement_end[] = "UPDATE judgements SET finished = kj_now() WHERE id = $1";

int pg_put_verdict_tx(struct kj_pg *p, int64_t cid, const kj_verdict *v, const kj_task *t,
		      const char *json, const struct kj_store_verdict_opts *o, struct kj_err *err)
{
	struct pga a;
	char flags[256];
	int64_t run_id;
	int has, rc;
	if ((rc = cand_state(p, cid, &run_id, &has, NULL, 0, NULL, 0, err)))
		return rc;
	if ((rc = kj_store_check_put(cid, run_id, has, o, err)))
		return rc;
	kj_flags_str(v->flags, flags, sizeof(flags));
	pga_init(&a);
	pga_i64(&a, cid);
	pga_i64(&a, run_id);
	pga_str(&a, t->id);
	pga_str(&a, v->sha256);
	pga_str(&a, kj_backend_name(v->backend));
	pga_id(&a, o ? o->device_id : 0);
	pga_str(&a, o ? o->cache_key : NULL);
	pga_str(&a, kj_status_name(v->status));
	pga_str(&a, kj_stage_name(v->stage));
	pga_str(&a, v->reason);
	pga_str(&a, flags);
	pga_str(&a, v->fallback_libs);
	pga_pos(&a, v->speedup > 0 ? v->speedup : -1);
	pga_dbl(&a, v->compile_s);
	pga_dbl(&a, v->total_s);
	pga_str(&a, json);
	if ((rc = pg_do(p, sql_verdict, &a, err, "cannot write the verdict")) ||
	    (rc = put_shapes(p, cid, v, t, o ? o->device_id : 0, err)) ||
	    (rc = put_checks(p, cid, v, t, err)))
		return rc;
	if (o && o->judgement_id > 0) {
		rc = pg_do(p, sql_judgement_end, pga_1(&a, o->judgement_id), err,
			   "cannot finish the judgement");
	}
	return rc;
}

static int pgs_put_verdict(kj_db *d, int64_t candidate_id, const kj_verdict *v,
		      const kj_task *t, const char *json, const struct kj_store_verdict_opts *o,
		      struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc;
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err)))
		rc = pg_tx_end(p, pg_put_verdict_tx(p, candidate_id, v, t, json, o, err), err);
	UNLOCK(p);
	return rc;
}

static const char sql_find_sha[] =
	"SELECT candidate_id FROM verdicts WHERE sha256 = $1 AND task = $2 AND backend = $3 "
	"AND ($4::bigint = 0 OR device_id = $4::bigint) AND ($5::text IS NULL OR cache_key = $5::text) "
	"AND reused_from IS NULL ORDER BY id LIMIT 1";

static int pgs_find_verdict_by_sha(kj_db *d, const char *sha256, const char *task,
			      const char *backend, int64_t device_id, const char *cache_key,
			      int64_t *candidate_id, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	*candidate_id = 0;
	pga_init(&a);
	pga_str(&a, sha256);
	pga_str(&a, task);
	pga_str(&a, backend);
	pga_i64(&a, device_id > 0 ? device_id : 0);
	if (cache_key)
		pga_str(&a, cache_key);
	else
		pga_null(&a);
	LOCK(p);
	if ((r = pg_q(p, sql_find_sha, &a, err, "cannot look up the verdict cache", &rc))) {
		if (PQntuples(r) == 1)
			*candidate_id = pg_i64(r, 0, 0);
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

static const char sql_copy_row[] =
	"INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id, cache_key, "
	"status, stage, reason, flags, fallback_libs, speedup, compile_s, total_s, reused_from, "
	"json) SELECT $2, $3, task, sha256, backend, device_id, cache_key, status, stage, reason, "
	"flags, fallback_libs, speedup, compile_s, total_s, coalesce(reused_from, candidate_id), "
	"json FROM verdicts WHERE candidate_id = $1";
static const char sql_copy_shapes[] =
	"INSERT INTO verdict_shapes (candidate_id, kind, bind, shape, weight, ms, iqr_ms, n, "
	"baseline_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes) SELECT $2, kind, bind, shape, "
	"weight, ms, iqr_ms, n, baseline_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes "
	"FROM verdict_shapes WHERE candidate_id = $1 AND $3::bigint > 0";
static const char sql_copy_checks[] =
	"INSERT INTO verdict_checks (candidate_id, kind, bind, shape, seed_index, flavour, output, "
	"pass, max_abs, max_rel, baseline_max_abs, budget_metric, tol_ratio, baseline_tol_ratio, budget, "
	"budget_used) SELECT $2, kind, bind, shape, seed_index, flavour, output, pass, max_abs, max_rel, "
	"baseline_max_abs, budget_metric, tol_ratio, baseline_tol_ratio, budget, budget_used "
	"FROM verdict_checks WHERE candidate_id = $1 AND $3::bigint > 0";

int pg_copy_verdict_tx(struct kj_pg *p, int64_t from, int64_t to, struct kj_err *err)
{
	static const char *const sql[] = { sql_copy_row, sql_copy_shapes, sql_copy_checks };
	char ftask[256], fsha[65], ttask[256], tsha[65];
	int64_t frun, trun;
	int fhas, thas, rc;
	if ((rc = cand_state(p, from, &frun, &fhas, ftask, sizeof(ftask), fsha, sizeof(fsha), err)) ||
	    (rc = cand_state(p, to, &trun, &thas, ttask, sizeof(ttask), tsha, sizeof(tsha), err)))
		return rc;
	if ((rc = kj_store_check_copy(from, fhas, ftask, fsha, to, thas, ttask, tsha, err)))
		return rc;
	for (size_t i = 0; i < sizeof(sql) / sizeof(sql[0]) && !rc; i++) {
		struct pga a;
		pga_init(&a);
		pga_i64(&a, from);
		pga_i64(&a, to);
		pga_i64(&a, trun);
		rc = pg_do(p, sql[i], &a, err, "cannot copy the verdict");
	}
	return rc;
}

static int pgs_copy_verdict(kj_db *d, int64_t from, int64_t to, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc;
	LOCK(p);
	if (!(rc = pg_tx_begin(p, err)))
		rc = pg_tx_end(p, pg_copy_verdict_tx(p, from, to, err), err);
	UNLOCK(p);
	return rc;
}

static const char sql_get_verdict[] = "SELECT json, status FROM verdicts WHERE candidate_id = $1";

static int pgs_get_verdict(kj_db *d, int64_t candidate_id, char **json, char *status,
		      size_t sl, struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	LOCK(p);
	if ((r = pg_q(p, sql_get_verdict, pga_1(&a, candidate_id), err, "cannot read the verdict", &rc))) {
		if (PQntuples(r) == 1) {
			if (json && !(*json = strdup(pg_str(r, 0, 0))))
				rc = kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
			snprintf(status, sl, "%s", pg_str(r, 0, 1));
		} else {
			rc = kj_err_set(err, KJ_E_NOTFOUND, "store: candidate %lld has no verdict",
					(long long)candidate_id);
		}
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

static const char sql_counts[] =
	"SELECT v.status, count(c.id), count(v.id), count(v.reused_from) FROM candidates c "
	"LEFT JOIN verdicts v ON v.candidate_id = c.id WHERE c.run_id = $1 GROUP BY v.status";

static int pgs_run_counts(kj_db *d, int64_t run_id, struct kj_store_counts *c,
		     struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	memset(c, 0, sizeof(*c));
	LOCK(p);
	if ((r = pg_q(p, sql_counts, pga_1(&a, run_id), err, "cannot count the run", &rc))) {
		for (int i = 0; i < PQntuples(r); i++) {
			kj_status k;
			c->candidates += pg_i64(r, i, 1);
			c->judged += pg_i64(r, i, 2);
			c->reused += pg_i64(r, i, 3);
			if (!PQgetisnull(r, i, 0) && !kj_status_from_name(pg_str(r, i, 0), &k))
				c->by_status[k] += pg_i64(r, i, 1);
		}
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

/* ---- reading a run (reports) and a chain's attempts ------------------------ */

static const char sql_read_run[] =
	"SELECT id, name, backend, created, spec, settings, kjudge_version FROM runs WHERE name = $1";
static const char sql_read_cand[] =
	"SELECT c.id, coalesce(c.parent_id, 0), c.task, c.model, c.method, c.sha256, c.path, c.source,"
	" coalesce(t.level, 0), coalesce(t.category, ''), coalesce(t.dtype, ''), c.sample, c.round,"
	" (v.id IS NOT NULL)::int, coalesce(v.status, ''), coalesce(v.stage, ''),"
	" coalesce(v.reason, ''), coalesce(v.flags, ''), v.speedup, coalesce(v.judged_at, ''),"
	" coalesce(v.cache_key, ''), v.json"
	" FROM candidates c LEFT JOIN tasks t ON t.id = c.task"
	" LEFT JOIN verdicts v ON v.candidate_id = c.id"
	" WHERE c.run_id = $1 ORDER BY c.id";
static const char sql_read_shape[] =
	"SELECT s.candidate_id, s.weight, s.ms, s.iqr_ms, s.speedup, s.sol_ms, s.sol_frac, s.iou,"
	" s.mfu, s.flops, s.bytes FROM verdict_shapes s JOIN candidates c ON c.id = s.candidate_id"
	" WHERE c.run_id = $1 ORDER BY s.candidate_id, s.bind";
static const char sql_read_calib[] =
	"SELECT d.name, d.uuid, cal.copy_gbs, cal.rates, cal.created FROM calibrations cal"
	" JOIN devices d ON d.id = cal.device_id"
	" WHERE d.id IN (SELECT DISTINCT device_id FROM verdicts WHERE run_id = $1)"
	" AND cal.id = (SELECT c2.id FROM calibrations c2 WHERE c2.device_id = d.id"
	"  ORDER BY c2.created DESC, c2.id DESC LIMIT 1)"
	" ORDER BY d.id";
static const char sql_read_device[] =
	"SELECT d.name, d.uuid, d.arch, count(*) FROM verdicts v JOIN devices d ON d.id = v.device_id"
	" WHERE v.run_id = $1 GROUP BY d.id ORDER BY d.id";
static const char sql_read_span[] =
	"SELECT coalesce(min(judged_at), ''), coalesce(max(judged_at), ''), count(DISTINCT cache_key)"
	" FROM verdicts WHERE run_id = $1";

/* Hands row i of r to rd's callback for query k (0 cand ... 4 span). */
static int read_row(const PGresult *r, int i, int k, const struct kj_store_reader *rd, void *ctx)
{
	switch (k) {
	case 0: {
		struct kj_store_cand_row c;
		c.id = pg_i64(r, i, 0);
		c.parent_id = pg_i64(r, i, 1);
		c.task = pg_str(r, i, 2);
		c.model = pg_str(r, i, 3);
		c.method = pg_str(r, i, 4);
		c.sha256 = pg_str(r, i, 5);
		c.path = pg_str(r, i, 6);
		c.source = pg_str(r, i, 7);
		c.source_len = (size_t)PQgetlength(r, i, 7);
		c.level = (int)pg_i64(r, i, 8);
		c.category = pg_str(r, i, 9);
		c.dtype = pg_str(r, i, 10);
		c.sample = (int)pg_i64(r, i, 11);
		c.round = (int)pg_i64(r, i, 12);
		c.judged = (int)pg_i64(r, i, 13);
		c.status = pg_str(r, i, 14);
		c.stage = pg_str(r, i, 15);
		c.reason = pg_str(r, i, 16);
		c.flags = pg_str(r, i, 17);
		c.speedup = pg_dbl(r, i, 18);
		c.judged_at = pg_str(r, i, 19);
		c.cache_key = pg_str(r, i, 20);
		c.json = PQgetisnull(r, i, 21) ? NULL : pg_str(r, i, 21);
		return rd->cand ? rd->cand(ctx, &c) : 0;
	}
	case 1: {
		struct kj_store_shape_row s;
		s.candidate_id = pg_i64(r, i, 0);
		s.weight = pg_dbl(r, i, 1);
		s.ms = pg_dbl(r, i, 2);
		s.iqr_ms = pg_dbl(r, i, 3);
		s.speedup = pg_dbl(r, i, 4);
		s.sol_ms = pg_dbl(r, i, 5);
		s.sol_frac = pg_dbl(r, i, 6);
		s.iou = pg_dbl(r, i, 7);
		s.mfu = pg_dbl(r, i, 8);
		s.flops = pg_dbl(r, i, 9);
		s.bytes = pg_dbl(r, i, 10);
		return rd->shape ? rd->shape(ctx, &s) : 0;
	}
	case 2: {
		struct kj_store_calib_row c;
		c.name = pg_str(r, i, 0);
		c.uuid = pg_str(r, i, 1);
		c.copy_gbs = pg_dbl(r, i, 2);
		c.rates = pg_str(r, i, 3);
		c.created = pg_str(r, i, 4);
		return rd->calib ? rd->calib(ctx, &c) : 0;
	}
	case 3: {
		struct kj_store_device_row dv;
		dv.name = pg_str(r, i, 0);
		dv.uuid = pg_str(r, i, 1);
		dv.arch = pg_str(r, i, 2);
		dv.verdicts = (int)pg_i64(r, i, 3);
		return rd->device ? rd->device(ctx, &dv) : 0;
	}
	default: {
		struct kj_store_span_row s;
		s.first_judged = pg_str(r, i, 0);
		s.last_judged = pg_str(r, i, 1);
		s.settings = (int)pg_i64(r, i, 2);
		return rd->span ? rd->span(ctx, &s) : 0;
	}
	}
}

static int read_run_rows(struct kj_pg *p, const char *run, const struct kj_store_reader *rd,
			 void *ctx, struct kj_err *err)
{
	static const struct {
		const char *sql, *what;
	} q[] = {
		{ sql_read_cand, "cannot read the candidates" },
		{ sql_read_shape, "cannot read the verdict shapes" },
		{ sql_read_calib, "cannot read the calibrations" },
		{ sql_read_device, "cannot read the devices" },
		{ sql_read_span, "cannot read the verdict dates" },
	};
	struct kj_store_run_row rr;
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_str(&a, run);
	if (!(r = pg_q(p, sql_read_run, &a, err, "cannot find the run", &rc)))
		return rc;
	if (PQntuples(r) != 1) {
		PQclear(r);
		return kj_err_set(err, KJ_E_NOTFOUND, "no run '%s' in '%s'", run, p->where);
	}
	rr.id = pg_i64(r, 0, 0);
	rr.name = pg_str(r, 0, 1);
	rr.backend = pg_str(r, 0, 2);
	rr.created = pg_str(r, 0, 3);
	rr.spec = pg_str(r, 0, 4);
	rr.settings = pg_str(r, 0, 5);
	rr.version = pg_str(r, 0, 6);
	rc = rd->run ? rd->run(ctx, &rr) : 0;
	PQclear(r);
	for (int k = 0; k < (int)(sizeof(q) / sizeof(q[0])) && !rc; k++) {
		if (!(r = pg_q(p, q[k].sql, pga_1(&a, rr.id), err, q[k].what, &rc)))
			break;
		for (int i = 0; i < PQntuples(r) && !rc; i++)
			rc = read_row(r, i, k, rd, ctx);
		PQclear(r);
	}
	return rc;
}

static int pgs_read_run(kj_db *d, const char *run, const struct kj_store_reader *rd, void *ctx,
			struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	int rc, own;
	LOCK(p);
	/* one snapshot of the run, even while workers write */
	own = !p->outer;
	if (own && (rc = pg_exec(p, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err))) {
		UNLOCK(p);
		return rc;
	}
	if (own)
		p->in_tx = 1; /* no reconnect inside the snapshot */
	rc = read_run_rows(p, run, rd, ctx, err);
	if (own) {
		pg_exec(p, rc ? "ROLLBACK" : "COMMIT", NULL);
		p->in_tx = 0;
	}
	UNLOCK(p);
	return rc;
}

static const char sql_attempts[] =
	"SELECT c.id, c.round, c.method, c.source, c.sha256, v.json FROM candidates c "
	"LEFT JOIN verdicts v ON v.candidate_id = c.id WHERE c.run_id = $1 AND "
	"c.model = $2 AND c.task = $3 AND c.sample = $4 ORDER BY c.round";

static int pgs_attempts(kj_db *d, int64_t run_id, const char *model, const char *task, int sample,
			int (*fn)(void *ctx, const struct kj_store_attempt *a), void *ctx,
			struct kj_err *err)
{
	struct kj_pg *p = PG(d);
	struct pga a;
	PGresult *r;
	int rc;
	pga_init(&a);
	pga_i64(&a, run_id);
	pga_str(&a, model);
	pga_str(&a, task);
	pga_i64(&a, sample);
	LOCK(p);
	if ((r = pg_q(p, sql_attempts, &a, err, "cannot read the run's attempts", &rc))) {
		for (int i = 0; i < PQntuples(r) && !rc; i++) {
			struct kj_store_attempt at;
			at.id = pg_i64(r, i, 0);
			at.round = (int)pg_i64(r, i, 1);
			at.method = pg_str(r, i, 2);
			at.source = pg_str(r, i, 3);
			at.source_len = (size_t)PQgetlength(r, i, 3);
			at.sha256 = pg_str(r, i, 4);
			at.json = PQgetisnull(r, i, 5) ? NULL : pg_str(r, i, 5);
			rc = fn(ctx, &at);
		}
		PQclear(r);
	}
	UNLOCK(p);
	return rc;
}

static const struct kj_store_ops pg_ops = {
	.name = "postgresql",
	.queue = &kj_queue_pg_ops,
	.close = pgs_close,
	.sqlite = pgs_sqlite,
	.cluster = pgs_cluster,
	.schema_version = pgs_schema_version,
	.begin = pgs_begin,
	.commit = pgs_commit,
	.rollback = pgs_rollback,
	.run_get_or_create = pgs_run_get_or_create,
	.run_find = pgs_run_find,
	.put_task = pgs_put_task,
	.add_candidate = pgs_add_candidate,
	.link_parents = pgs_link_parents,
	.pending = pgs_pending,
	.device_upsert = pgs_device_upsert,
	.calibration_add = pgs_calibration_add,
	.calibration_latest = pgs_calibration_latest,
	.judgement_begin = pgs_judgement_begin,
	.put_verdict = pgs_put_verdict,
	.find_verdict_by_sha = pgs_find_verdict_by_sha,
	.copy_verdict = pgs_copy_verdict,
	.get_verdict = pgs_get_verdict,
	.run_counts = pgs_run_counts,
	.read_run = pgs_read_run,
	.attempts = pgs_attempts,
};
