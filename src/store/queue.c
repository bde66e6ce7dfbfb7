/*
 * The job queue of kjudge serve and its bearer tokens: the public functions
 * of the "job queue" block of include/kjudge/store.h.  They check what every
 * backend checks and hand the call to the store's queue table
 * (s->ops->queue, store_int.h), chosen when the store was opened: SQLite
 * (queue_sqlite.c) or PostgreSQL (queue_pg.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/store.h"
#include "store/store_int.h"

static const char *const state_names[KJ_JOB_STATE_COUNT] = {
	"queued", "running", "done", "failed", "cancelled"
};

const char *kj_job_state_name(kj_job_state s)
{
	return (unsigned)s < KJ_JOB_STATE_COUNT ? state_names[s] : "unknown";
}

int kj_job_state_from_name(const char *s, kj_job_state *out)
{
	for (int i = 0; i < KJ_JOB_STATE_COUNT; i++)
		if (s && !strcmp(s, state_names[i])) {
			*out = (kj_job_state)i;
			return 0;
		}
	return -1;
}

void kj_job_init(struct kj_job *j)
{
	memset(j, 0, sizeof(*j));
	j->sample = -1;
}

void kj_job_release(struct kj_job *j)
{
	free(j->source);
	free(j->verdict);
	kj_job_init(j);
}

#define Q(s) ((s)->ops->queue)

int kj_queue_submit(kj_db *s, const struct kj_job_new *n, int64_t *id,
		    enum kj_submit_result *result, struct kj_err *err)
{
	*id = 0;
	*result = KJ_SUBMIT_CREATED;
	if (!n->task || !*n->task || !n->backend || !*n->backend || !n->source)
		return kj_err_set(err, KJ_E_USAGE, "queue: a job needs a task, a backend and a source");
	if (n->source_len > (size_t)0x7fffffff)
		return kj_err_set(err, KJ_E_USAGE, "queue: a source of %zu bytes is too large", n->source_len);
	return Q(s)->submit(s, n, id, result, err);
}

int kj_queue_get(kj_db *s, int64_t id, struct kj_job *j, struct kj_err *err)
{
	return Q(s)->get(s, id, j, err);
}

int kj_queue_claim(kj_db *s, const char *backend, const char *owner, double now,
		   double lease_s, struct kj_job *j, int *got, struct kj_err *err)
{
	*got = 0;
	return Q(s)->claim(s, backend, owner, now, lease_s, j, got, err);
}

int kj_queue_heartbeat(kj_db *s, int64_t id, const char *owner, double now, double lease_s,
		       struct kj_err *err)
{
	return Q(s)->heartbeat(s, id, owner, now, lease_s, err);
}

int kj_queue_complete(kj_db *s, int64_t id, const char *owner, kj_job_state state,
		      int64_t candidate_id, const char *status, const char *verdict,
		      const char *error, double now, struct kj_err *err)
{
	if (state != KJ_JOB_DONE && state != KJ_JOB_FAILED)
		return kj_err_set(err, KJ_E_USAGE, "queue: a job is completed as done or failed, not %s",
				  kj_job_state_name(state));
	return Q(s)->complete(s, id, owner, state, candidate_id, status, verdict, error, now, err);
}

int kj_queue_release(kj_db *s, int64_t id, const char *owner, struct kj_err *err)
{
	return Q(s)->release(s, id, owner, err);
}

int kj_queue_requeue_stale(kj_db *s, double now, int max_attempts, int *requeued,
			   int *failed, struct kj_err *err)
{
	return Q(s)->requeue_stale(s, now, max_attempts, requeued, failed, err);
}

int kj_queue_cancel(kj_db *s, int64_t id, int64_t token_id, double now, kj_job_state *state,
		    struct kj_err *err)
{
	return Q(s)->cancel(s, id, token_id, now, state, err);
}

int kj_queue_list(kj_db *s, int state, int64_t token_id, int64_t after_id, int limit,
		  int (*fn)(void *ctx, const struct kj_job *j), void *ctx, struct kj_err *err)
{
	if (state >= KJ_JOB_STATE_COUNT)
		return kj_err_set(err, KJ_E_USAGE, "queue: unknown state %d", state);
	return Q(s)->list(s, state, token_id, after_id, limit, fn, ctx, err);
}

int kj_queue_counts(kj_db *s, int64_t token_id, int64_t n[KJ_JOB_STATE_COUNT], struct kj_err *err)
{
	memset(n, 0, KJ_JOB_STATE_COUNT * sizeof(*n));
	return Q(s)->counts(s, token_id, n, err);
}

int kj_token_add(kj_db *s, const char *name, const char *sha256_hex, int quota, int64_t *id,
		 struct kj_err *err)
{
	if (!name || !*name)
		return kj_err_set(err, KJ_E_USAGE, "a token needs a name");
	if (!sha256_hex || strlen(sha256_hex) != 64)
		return kj_err_set(err, KJ_E_USAGE, "queue: a token hash is 64 hex digits");
	if (quota < 0)
		return kj_err_set(err, KJ_E_USAGE, "a token's quota is >= 0 (0: no limit), not %d", quota);
	return Q(s)->token_add(s, name, sha256_hex, quota, id, err);
}

int kj_token_find(kj_db *s, const char *sha256_hex, struct kj_token *t, struct kj_err *err)
{
	return Q(s)->token_find(s, sha256_hex, t, err);
}

int kj_token_remove(kj_db *s, const char *name, struct kj_err *err)
{
	return Q(s)->token_remove(s, name, err);
}

int kj_token_list(kj_db *s, struct kj_token **v, int *n, struct kj_err *err)
{
	return Q(s)->token_list(s, v, n, err);
}
