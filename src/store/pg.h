/*
 * Internal to the store: the PostgreSQL backend (src/store/pg.c).
 *
 * kj_store_open() hands a postgresql:// (or postgres://) URL to kj_pg_open();
 * every kj_store_* function of include/kjudge/store.h then calls its kj_pg_*
 * twin below, which has the same contract (return codes, messages, one
 * transaction per write, savepoints inside kj_store_begin()).  The schema is
 * src/store/schema_pg.sql, embedded by schema_pg.c, with the same migration
 * steps as schema.sql.  A kj_pg holds one connection and a lock: calls from
 * several threads are serialised, as on SQLite.
 */
#ifndef KJ_STORE_PG_H
#define KJ_STORE_PG_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/store.h"

struct kj_pg;

extern const char kj_store_schema_pg_sql[];

/* 1 when path names a PostgreSQL database (postgresql:// or postgres://). */
int kj_pg_is_url(const char *path);
/* The URL with any password replaced by "***", for messages. */
void kj_pg_redact(const char *url, char *buf, size_t len);

/* The kj_pg of a store opened on a URL, NULL for SQLite (store.c). */
struct kj_pg *kj_store_pg(kj_db *s);

int kj_pg_open(const char *url, struct kj_pg **out, struct kj_err *err);
/* The same for a reader: no migration, every transaction read-only; a
 * database without kjudge's schema table is KJ_E_IO, one above this binary's
 * steps KJ_E_UNSUPPORTED, an older one is read as it is. */
int kj_pg_open_readonly(const char *url, struct kj_pg **out, struct kj_err *err);
void kj_pg_close(struct kj_pg *p);
int kj_pg_schema_version(struct kj_pg *p, struct kj_err *err);
int kj_pg_begin(struct kj_pg *p, struct kj_err *err);
int kj_pg_commit(struct kj_pg *p, struct kj_err *err);
int kj_pg_rollback(struct kj_pg *p, struct kj_err *err);
int kj_pg_run_get_or_create(struct kj_pg *p, const char *name, const char *backend,
			    const char *spec, const char *settings, int64_t *run_id,
			    struct kj_err *err);
int kj_pg_run_find(struct kj_pg *p, const char *name, int64_t *run_id, struct kj_err *err);
int kj_pg_put_task(struct kj_pg *p, const kj_task *t, const char *kt_sha256, struct kj_err *err);
int kj_pg_add_candidate(struct kj_pg *p, const struct kj_store_candidate *c, const char *sha,
			int64_t *id, int *created, struct kj_err *err);
int kj_pg_link_parents(struct kj_pg *p, int64_t run_id, int *linked, struct kj_err *err);
int kj_pg_pending(struct kj_pg *p, int64_t run_id,
		  int (*fn)(void *ctx, const struct kj_store_cand *c), void *ctx,
		  struct kj_err *err);
int kj_pg_device_upsert(struct kj_pg *p, const char *uuid, const char *name, const char *arch,
			const char *info, int64_t *id, struct kj_err *err);
int kj_pg_calibration_add(struct kj_pg *p, int64_t device_id, const char *rates_json,
			  double copy_gbs, struct kj_err *err);
/* copy_gbs, the rates JSON text (malloc'd, caller frees), uuid and name. */
int kj_pg_calibration_latest(struct kj_pg *p, int64_t device_id, double *copy_gbs,
			     char **rates, char *uuid, size_t ul, char *name, size_t nl,
			     struct kj_err *err);
int kj_pg_judgement_begin(struct kj_pg *p, int64_t candidate_id, int64_t device_id,
			  int64_t *id, struct kj_err *err);
int kj_pg_put_verdict(struct kj_pg *p, int64_t candidate_id, const kj_verdict *v,
		      const kj_task *t, const char *json, const struct kj_store_verdict_opts *o,
		      struct kj_err *err);
int kj_pg_find_verdict_by_sha(struct kj_pg *p, const char *sha256, const char *task,
			      const char *backend, int64_t device_id, const char *cache_key,
			      int64_t *candidate_id, struct kj_err *err);
int kj_pg_copy_verdict(struct kj_pg *p, int64_t from, int64_t to, struct kj_err *err);
int kj_pg_get_verdict(struct kj_pg *p, int64_t candidate_id, char **json, char *status,
		      size_t sl, struct kj_err *err);
int kj_pg_run_counts(struct kj_pg *p, int64_t run_id, struct kj_store_counts *c,
		     struct kj_err *err);

#endif
