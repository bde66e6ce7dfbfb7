/*
 * Internal to the store: the job queue of kjudge serve on PostgreSQL
 * (src/store/queue_pg.c).  queue.c hands every kj_queue_* and kj_token_* call
 * on a postgresql:// store to its twin here, which has the same contract as
 * the "job queue" block of include/kjudge/store.h (return codes, messages,
 * ownership of what a struct kj_job holds).  Not a public API.
 */
#ifndef KJ_STORE_QUEUE_PG_H
#define KJ_STORE_QUEUE_PG_H

#include <stdint.h>

#include "kjudge/store.h"

struct kj_pg;

int kj_pgq_submit(struct kj_pg *p, const struct kj_job_new *n, int64_t *id,
		  enum kj_submit_result *result, struct kj_err *err);
int kj_pgq_get(struct kj_pg *p, int64_t id, struct kj_job *j, struct kj_err *err);
int kj_pgq_claim(struct kj_pg *p, const char *backend, const char *owner, double now,
		 double lease_s, struct kj_job *j, int *got, struct kj_err *err);
int kj_pgq_heartbeat(struct kj_pg *p, int64_t id, const char *owner, double now, double lease_s,
		     struct kj_err *err);
int kj_pgq_complete(struct kj_pg *p, int64_t id, const char *owner, kj_job_state state,
		    int64_t candidate_id, const char *status, const char *verdict,
		    const char *error, double now, struct kj_err *err);
int kj_pgq_release(struct kj_pg *p, int64_t id, const char *owner, struct kj_err *err);
int kj_pgq_requeue_stale(struct kj_pg *p, double now, int max_attempts, int *requeued,
			 int *failed, struct kj_err *err);
int kj_pgq_cancel(struct kj_pg *p, int64_t id, int64_t token_id, double now,
		  kj_job_state *state, struct kj_err *err);
int kj_pgq_list(struct kj_pg *p, int state, int64_t token_id, int64_t after_id, int limit,
		int (*fn)(void *ctx, const struct kj_job *j), void *ctx, struct kj_err *err);
int kj_pgq_counts(struct kj_pg *p, int64_t token_id, int64_t n[KJ_JOB_STATE_COUNT],
		  struct kj_err *err);
int kj_pgq_token_add(struct kj_pg *p, const char *name, const char *sha256_hex, int quota,
		     int64_t *id, struct kj_err *err);
int kj_pgq_token_find(struct kj_pg *p, const char *sha256_hex, struct kj_token *t,
		      struct kj_err *err);
int kj_pgq_token_remove(struct kj_pg *p, const char *name, struct kj_err *err);
int kj_pgq_token_list(struct kj_pg *p, struct kj_token **v, int *n, struct kj_err *err);

#endif
