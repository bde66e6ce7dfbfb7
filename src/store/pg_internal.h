/*
 * Internal to the PostgreSQL backend (pg.c, queue_pg.c, cluster.c): the
 * connection, text parameters and the helpers that run a statement and turn
 * a failure into a kj_err.  Not a public API.
 */
#ifndef KJ_STORE_PG_INTERNAL_H
#define KJ_STORE_PG_INTERNAL_H

#include <postgresql/libpq-fe.h>
#include <pthread.h>
#include <stdint.h>

#include "kjudge/store.h"
#include "store/store_int.h"

#define PG_MAX_PREP 96
#define PGA_MAX 20

/* The store of a postgresql:// URL: a kj_db (its ops are pg.c's table)
 * with one connection. */
struct kj_pg {
	struct kj_db base;
	PGconn *c;
	pthread_mutex_t mu;   /* one call at a time on the connection */
	int outer;            /* inside kj_store_begin() */
	int in_tx;            /* inside one call's own transaction */
	char where[256];      /* the URL without its password, for messages */
	struct {
		const char *sql; /* the statement's text, by address */
		char name[16];
	} prep[PG_MAX_PREP];
	int nprep;
};

/* The kj_pg of a store the PostgreSQL backend opened. */
#define PG(d) ((struct kj_pg *)(d))

/* Text parameters of one statement; NULL is SQL NULL. */
struct pga {
	const char *v[PGA_MAX];
	char buf[PGA_MAX][40];
	int n;
};
void pga_init(struct pga *a);
void pga_str(struct pga *a, const char *s); /* NULL: '' */
void pga_null(struct pga *a);
void pga_i64(struct pga *a, int64_t x);
void pga_dbl(struct pga *a, double x);
void pga_id(struct pga *a, int64_t id);     /* <= 0: NULL */

/* Runs sql (prepared once per connection) with a; the result (caller
 * PQclears) or NULL with *rc and err set ("store (URL): what: message"). */
PGresult *pg_q(struct kj_pg *p, const char *sql, const struct pga *a, struct kj_err *err,
	       const char *what, int *rc);
/* pg_q for statements whose rows are not read. */
int pg_do(struct kj_pg *p, const char *sql, const struct pga *a, struct kj_err *err,
	  const char *what);
int pg_exec(struct kj_pg *p, const char *sql, struct kj_err *err);
int pg_fail(struct kj_pg *p, PGresult *r, struct kj_err *err, const char *what);
int64_t pg_i64(const PGresult *r, int row, int col);
double pg_dbl(const PGresult *r, int row, int col);
const char *pg_str(const PGresult *r, int row, int col);

/* One call's transaction (a savepoint inside kj_store_begin()). */
int pg_tx_begin(struct kj_pg *p, struct kj_err *err);
int pg_tx_commit(struct kj_pg *p, struct kj_err *err);
void pg_tx_rollback(struct kj_pg *p);
/* Ends it by the result rc of its body: a rollback (returning rc) when rc is
 * set, else a commit (returning the commit's result). */
int pg_tx_end(struct kj_pg *p, int rc, struct kj_err *err);

/* The bodies of put_verdict and copy_verdict, inside the caller's
 * transaction and lock. */
int pg_put_verdict_tx(struct kj_pg *p, int64_t cid, const kj_verdict *v, const kj_task *t,
		      const char *json, const struct kj_store_verdict_opts *o, struct kj_err *err);
int pg_copy_verdict_tx(struct kj_pg *p, int64_t from, int64_t to, struct kj_err *err);

#endif
