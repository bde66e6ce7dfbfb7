/*
 * Internal to the store: the table of functions each backend fills, and the
 * kj_db they all start with.  store.c and queue.c (the public API of
 * include/kjudge/store.h) check the arguments every backend shares;
 * kj_store_open() and kj_store_open_readonly() pick a backend once from the
 * path (a file: SQLite, store_sqlite.c and queue_sqlite.c; postgresql://:
 * PostgreSQL, pg.c and queue_pg.c, with cluster.c), and from then on every
 * call goes to s->ops (s->ops->queue for the job queue).  No other file asks
 * which backend a store is.
 *
 * A backend's handle starts with a struct kj_db (struct kj_sqlite,
 * struct kj_pg), so that a backend turns the kj_db it is given back into
 * its own handle with a cast.  Every entry has the contract of its public
 * function (return codes, messages in *err, one transaction per write,
 * savepoints inside kj_store_begin(), the store's lock held for the whole
 * call where store.h says so); where an entry differs from the public
 * function its comment says how.
 */
#ifndef KJ_STORE_INT_H
#define KJ_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/store.h"

struct kj_pg;
struct kj_store_ops;

struct kj_db {
	const struct kj_store_ops *ops; /* the backend, set once by its open */
};

/* The job queue of kjudge serve (the "job queue" block of store.h): the
 * public functions of queue.c check their arguments and hand the call here. */
struct kj_queue_ops {
	int (*submit)(kj_db *s, const struct kj_job_new *n, int64_t *id,
		      enum kj_submit_result *result, struct kj_err *err);
	int (*get)(kj_db *s, int64_t id, struct kj_job *j, struct kj_err *err);
	int (*claim)(kj_db *s, const char *backend, const char *owner, double now, double lease_s,
		     struct kj_job *j, int *got, struct kj_err *err);
	int (*heartbeat)(kj_db *s, int64_t id, const char *owner, double now, double lease_s,
			 struct kj_err *err);
	int (*complete)(kj_db *s, int64_t id, const char *owner, kj_job_state state,
			int64_t candidate_id, const char *status, const char *verdict,
			const char *error, double now, struct kj_err *err);
	int (*release)(kj_db *s, int64_t id, const char *owner, struct kj_err *err);
	int (*requeue_stale)(kj_db *s, double now, int max_attempts, int *requeued, int *failed,
			     struct kj_err *err);
	int (*cancel)(kj_db *s, int64_t id, int64_t token_id, double now, kj_job_state *state,
		      struct kj_err *err);
	int (*list)(kj_db *s, int state, int64_t token_id, int64_t after_id, int limit,
		    int (*fn)(void *ctx, const struct kj_job *j), void *ctx, struct kj_err *err);
	int (*counts)(kj_db *s, int64_t token_id, int64_t n[KJ_JOB_STATE_COUNT], struct kj_err *err);
	int (*token_add)(kj_db *s, const char *name, const char *sha256_hex, int quota, int64_t *id,
			 struct kj_err *err);
	int (*token_find)(kj_db *s, const char *sha256_hex, struct kj_token *t, struct kj_err *err);
	int (*token_remove)(kj_db *s, const char *name, struct kj_err *err);
	int (*token_list)(kj_db *s, struct kj_token **v, int *n, struct kj_err *err);
};

struct kj_store_ops {
	const char *name;                    /* kj_store_backend(): "sqlite", "postgresql" */
	const struct kj_queue_ops *queue;
	void (*close)(kj_db *s);             /* rolls back an open transaction, frees s */
	/* The SQLite handle (kj_store_sqlite()); NULL on other backends. */
	struct sqlite3 *(*sqlite)(kj_db *s);
	/* The PostgreSQL connection the cluster queue (cluster.c) runs on; NULL
	 * on backends without the cluster queue. */
	struct kj_pg *(*cluster)(kj_db *s);
	int (*schema_version)(kj_db *s, struct kj_err *err);
	int (*begin)(kj_db *s, struct kj_err *err);
	int (*commit)(kj_db *s, struct kj_err *err);
	int (*rollback)(kj_db *s, struct kj_err *err);
	/* name and backend checked by store.c */
	int (*run_get_or_create)(kj_db *s, const char *name, const char *backend, const char *spec,
				 const char *settings, int64_t *run_id, struct kj_err *err);
	int (*run_find)(kj_db *s, const char *name, int64_t *run_id, struct kj_err *err);
	int (*put_task)(kj_db *s, const kj_task *t, const char *kt_sha256, struct kj_err *err);
	/* sha: the source's sha256, computed by store.c when c->sha256 is NULL;
	 * *created set only when a row is added */
	int (*add_candidate)(kj_db *s, const struct kj_store_candidate *c, const char *sha,
			     int64_t *id, int *created, struct kj_err *err);
	int (*link_parents)(kj_db *s, int64_t run_id, int *linked, struct kj_err *err);
	int (*pending)(kj_db *s, int64_t run_id, int (*fn)(void *ctx, const struct kj_store_cand *c),
		       void *ctx, struct kj_err *err);
	int (*device_upsert)(kj_db *s, const char *uuid, const char *name, const char *arch,
			     const char *info, int64_t *id, struct kj_err *err);
	/* rates_json: the calibration's rates as a JSON object (store.c makes it) */
	int (*calibration_add)(kj_db *s, int64_t device_id, const char *rates_json, double copy_gbs,
			       struct kj_err *err);
	/* *rates: the rates JSON text (malloc'd, the caller frees), read into a
	 * kj_calib by store.c */
	int (*calibration_latest)(kj_db *s, int64_t device_id, double *copy_gbs, char **rates,
				  char *uuid, size_t ul, char *name, size_t nl, struct kj_err *err);
	int (*judgement_begin)(kj_db *s, int64_t candidate_id, int64_t device_id, int64_t *id,
			       struct kj_err *err);
	/* json never NULL (store.c renders it) */
	int (*put_verdict)(kj_db *s, int64_t candidate_id, const kj_verdict *v, const kj_task *t,
			   const char *json, const struct kj_store_verdict_opts *o, struct kj_err *err);
	int (*find_verdict_by_sha)(kj_db *s, const char *sha256, const char *task,
				   const char *backend, int64_t device_id, const char *cache_key,
				   int64_t *candidate_id, struct kj_err *err);
	int (*copy_verdict)(kj_db *s, int64_t from, int64_t to, struct kj_err *err);
	/* the status as its name into status[sl] (store.c parses it) */
	int (*get_verdict)(kj_db *s, int64_t candidate_id, char **json, char *status, size_t sl,
			   struct kj_err *err);
	int (*run_counts)(kj_db *s, int64_t run_id, struct kj_store_counts *c, struct kj_err *err);
	int (*read_run)(kj_db *s, const char *run, const struct kj_store_reader *rd, void *ctx,
			struct kj_err *err);
	int (*attempts)(kj_db *s, int64_t run_id, const char *model, const char *task, int sample,
			int (*fn)(void *ctx, const struct kj_store_attempt *a), void *ctx,
			struct kj_err *err);
};

/* The backends' opens: *out is the new store with its ops set.  readonly:
 * no migration, no write (kj_store_open_readonly). */
int kj_sqlite_open(const char *path, int readonly, kj_db **out, struct kj_err *err);
int kj_pg_open(const char *url, int readonly, kj_db **out, struct kj_err *err);

/* 1 when path names a PostgreSQL database (postgresql:// or postgres://). */
int kj_pg_is_url(const char *path);
/* The URL with any password replaced by "***", for messages. */
void kj_pg_redact(const char *url, char *buf, size_t len);

extern const struct kj_queue_ops kj_queue_sqlite_ops;
extern const struct kj_queue_ops kj_queue_pg_ops;

#endif
