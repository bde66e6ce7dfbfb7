/*
 * The cluster queue: the candidates of a run judged by any number of
 * `kjudge worker` processes on any number of nodes, through a PostgreSQL store
 * (kj_store_open("postgresql://...")).  docs/cluster.md describes it.
 *
 * A job is one distinct source (task, sha256) among a run's pending
 * candidates (table run_jobs).  States: queued -> running -> done | failed.
 *  - kj_cluster_enqueue() adds the jobs of a run (idempotent).
 *  - kj_cluster_claim() takes the oldest queued job of a backend, or a running
 *    one whose lease has passed, with SELECT ... FOR UPDATE SKIP LOCKED: two
 *    workers never take the same job, and an expired job is taken by exactly
 *    one of them.  The claim sets owner, attempts + 1 and lease_until =
 *    now() + lease_s on the database's clock.  (owner, attempts) is the
 *    lease's fencing token, kept in struct kj_cluster_job.
 *  - The holder renews the lease (kj_cluster_heartbeat) while it judges, and
 *    ends the job with kj_cluster_complete(): the verdict of the job's
 *    candidate, copies of it for the run's other pending candidates with the
 *    same source, their judgement row's finish and the job's state, in one
 *    transaction that first checks the token.  A worker whose lease was
 *    taken writes nothing (KJ_E_NOTFOUND).
 *  - kj_cluster_fail() hands a job back after a judge failure (requeued, or
 *    failed once it has used max_attempts claims).
 * Every function is one transaction on the store's connection (the store's
 * lock is held, so a kj_db may be shared by threads; a worker gives its
 * heartbeat thread a connection of its own so that renewals never wait
 * behind a verdict).
 *
 * On a SQLite store every function here returns KJ_E_UNSUPPORTED ("the
 * cluster queue needs a postgresql:// store").  Errors go to *err as in
 * store.h.
 */
#ifndef KJUDGE_CLUSTER_H
#define KJUDGE_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/store.h"

/* "sqlite" or "postgresql". */
const char *kj_store_backend(kj_db *s);
/* 1 when path names a PostgreSQL store (postgresql://, postgres://). */
int kj_store_is_url(const char *path);
/* path with any password of a URL replaced by "***", for messages. */
void kj_store_redact(const char *path, char *buf, size_t len);

/* Adds a queued job for every distinct (task, sha256) among the run's
 * candidates without a verdict that has no queued or running job yet (the
 * first candidate of each group holds the job); jobs of the run that failed
 * are queued again with their attempts reset.  *added and *requeued (may be
 * NULL) get the counts.  Returns 0, KJ_E_UNSUPPORTED or KJ_E_IO. */
int kj_cluster_enqueue(kj_db *s, int64_t run_id, int *added, int *requeued, struct kj_err *err);

/* A claimed job.  kj_cluster_job_release() frees what claim allocated. */
struct kj_cluster_job {
	int64_t id, run_id, candidate_id;
	int attempts;          /* this claim's number: 1 the first time */
	char owner[128];       /* who holds it (the fencing token with attempts) */
	char backend[8];
	char task[256], sha256[65];
	char run_name[256];
	char *settings;        /* the run's settings JSON; owned */
	char *source;          /* owned, NUL-terminated */
	size_t source_len;
	char label[320];       /* path, or model/task/sample_round */
};
void kj_cluster_job_release(struct kj_cluster_job *j);

/* Claims a job of backend ("cpu", "cuda"), of run run_id only when > 0, for
 * owner, leased for lease_s seconds.  Running jobs whose lease passed after
 * max_attempts claims are failed ("lease expired N times") instead of being
 * claimed again.  *got is 1 with *j filled, or 0 when nothing is claimable.
 * Returns 0, KJ_E_UNSUPPORTED or KJ_E_IO. */
int kj_cluster_claim(kj_db *s, const char *backend, int64_t run_id, const char *owner,
		     double lease_s, int max_attempts, struct kj_cluster_job *j, int *got,
		     struct kj_err *err);

/* Renews j's lease to now() + lease_s.  Returns 0, or KJ_E_NOTFOUND when j's
 * token no longer holds the job (it expired and was claimed again). */
int kj_cluster_heartbeat(kj_db *s, const struct kj_cluster_job *j, double lease_s,
			 struct kj_err *err);

/* Ends j as done in one transaction, after checking its token: with v (the
 * verdict, json its text, o as for kj_store_put_verdict), or, when v is NULL,
 * with a copy of the verdict of candidate reuse_from (the verdict cache).
 * The run's other candidates with the same task and source that have no
 * verdict get a copy, and their jobs are done too.  *copies (may be NULL)
 * gets the number of copies.  A candidate that already has a verdict (judged
 * by `kjudge run` meanwhile) just completes the job.  Returns 0,
 * KJ_E_NOTFOUND when the lease was lost (nothing written), KJ_E_USAGE or
 * KJ_E_IO. */
int kj_cluster_complete(kj_db *s, const struct kj_cluster_job *j, const kj_verdict *v,
			const kj_task *t, const char *json, const struct kj_store_verdict_opts *o,
			int64_t reuse_from, int *copies, struct kj_err *err);

/* Hands j back after a judge failure: queued again (its attempts counted),
 * or failed with error once it has used max_attempts claims.  Checks the
 * token as complete does. */
int kj_cluster_fail(kj_db *s, const struct kj_cluster_job *j, const char *error,
		    int max_attempts, struct kj_err *err);

/* Jobs by state (of run run_id when > 0, of backend when not NULL); running
 * jobs whose lease has passed are also counted in expired. */
struct kj_cluster_counts {
	int64_t queued, running, expired, done, failed;
};
int kj_cluster_counts(kj_db *s, int64_t run_id, const char *backend,
		      struct kj_cluster_counts *c, struct kj_err *err);

/* Copies run `run` of a PostgreSQL store, with the rows its reports read
 * (tasks, devices, calibrations, candidates, verdicts and their shapes and
 * checks, baselines, judgements; ids kept), into a new SQLite store at
 * sqlite_path: an archive of the run (reports read PostgreSQL directly).
 * Returns 0, KJ_E_NOTFOUND (no such run), KJ_E_UNSUPPORTED (s is SQLite) or
 * KJ_E_IO. */
int kj_store_export_sqlite(kj_db *s, const char *run, const char *sqlite_path,
			   struct kj_err *err);

#endif
