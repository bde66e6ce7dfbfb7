/*
 * The results store: one database, SQLite (a file, WAL mode) or PostgreSQL
 * (a postgresql:// URL), holding runs, candidates, verdicts (with per-shape
 * timings and per-seed checks), devices, calibrations, baselines and a log of
 * judgements.  The schema is src/store/schema.sql (schema_pg.sql), applied as
 * numbered migration steps on open; the tables are described in
 * docs/store.md.  `kjudge run` writes it, reports read it through this API
 * (kj_store_read_run); no module outside src/store runs SQL on it.  Every
 * function has the same contract on both backends (src/store/store_int.h
 * says how they are organised).
 *
 * Every write is one transaction (a SAVEPOINT, so it nests inside
 * kj_store_begin()), so a crash at any point leaves whole candidates and whole
 * verdicts or nothing.
 *
 * Threads: a kj_db may be shared by threads; each call holds the store's
 * lock for its whole duration, so calls never interleave inside a
 * transaction.  kj_store_begin()/kj_store_commit() span calls and must only be
 * used while no other thread uses the store.
 *
 * Ownership: kj_store_open() allocates the store, kj_store_close() frees it
 * (rolling back an open kj_store_begin()).  Strings passed in are copied into
 * the database; strings handed out are documented per function.  Every
 * function returns 0 on success or a negative KJ_E_* code with a message in
 * *err (err may be NULL); SQLite's own message is part of it.
 *
 * Layer: store.  It may use core, task, ops (the calibration's kj_calib, the
 * knobs table) and verdict, never the judge or the sandbox: it keeps verdicts,
 * it does not make them (docs/architecture.md, "Layers").
 */
#ifndef KJUDGE_STORE_H
#define KJUDGE_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/err.h"
#include "kjudge/gpu.h"
#include "kjudge/task.h"
#include "kjudge/verdict.h"

typedef struct kj_db kj_db; /* the open store (kj_store is dtype.h's value writer) */
struct sqlite3;

/* The number of migration steps in this binary's schema. */
int kj_store_schema_latest(void);

/* Opens the store at path: a postgresql:// (or postgres://) URL is a
 * PostgreSQL database, anything else a SQLite file, opened (created when
 * missing) with WAL mode, a busy timeout of 10 s and foreign keys.  Every
 * migration step above the database's version is applied, each in one
 * transaction.  Returns 0 with *out set, or KJ_E_IO (cannot open, not a
 * database, read-only), KJ_E_UNSUPPORTED (written by a newer kjudge: a
 * version above kj_store_schema_latest()) or KJ_E_NOMEM. */
int kj_store_open(const char *path, kj_db **out, struct kj_err *err);
/* Opens the store at path (a file or a URL, as kj_store_open) for reading
 * only (reports): never created, migrated or written.  A SQLite file is
 * opened with mode=ro, or as an immutable file when its folder cannot be
 * written and no write-ahead log holds commits; on PostgreSQL every
 * transaction is read-only.  An older schema is read as it is.  Returns 0,
 * KJ_E_IO (missing, cannot open or connect, not a kjudge store),
 * KJ_E_UNSUPPORTED (a newer schema, PostgreSQL) or KJ_E_NOMEM. */
int kj_store_open_readonly(const char *path, kj_db **out, struct kj_err *err);
/* Closes the database; an open kj_store_begin() is rolled back.  NULL is fine. */
void kj_store_close(kj_db *s);
/* The SQLite handle, for tests and tools (NULL on PostgreSQL).  Owned by the
 * store; use it only from one thread at a time and never for writes that span
 * calls. */
struct sqlite3 *kj_store_sqlite(kj_db *s);
/* The database's PRAGMA user_version, or a negative KJ_E_* code. */
int kj_store_schema_version(kj_db *s, struct kj_err *err);

/* An outer transaction over many calls (loading a SPEC of thousands of
 * candidates in one commit).  Calls inside it nest as savepoints.  Return 0
 * or KJ_E_IO. */
int kj_store_begin(kj_db *s, struct kj_err *err);
int kj_store_commit(kj_db *s, struct kj_err *err);
int kj_store_rollback(kj_db *s, struct kj_err *err);

/* The run called name: its id in *run_id.  Created with backend ("cpu",
 * "cuda"), spec (the SPEC path, may be NULL) and settings (a JSON object as
 * text, may be NULL: "{}") when missing; an existing run keeps its values
 * and must have the same backend (else KJ_E_USAGE: "run 'x' is a cuda run").
 * Returns 0, KJ_E_USAGE or KJ_E_IO. */
int kj_store_run_get_or_create(kj_db *s, const char *name, const char *backend,
			       const char *spec, const char *settings, int64_t *run_id,
			       struct kj_err *err);
/* The id of run `name`; KJ_E_NOTFOUND ("no run 'x' in this database") when
 * there is none. */
int kj_store_run_find(kj_db *s, const char *name, int64_t *run_id, struct kj_err *err);

/* Inserts or updates the tasks row of t (level, category, about, dtype class
 * of its outputs); kt_sha256 is the .kt file's sha256 (may be NULL: '').
 * Returns 0 or KJ_E_IO. */
int kj_store_put_task(kj_db *s, const kj_task *t, const char *kt_sha256, struct kj_err *err);
/* "f32", "bf16"... the dtype shared by t's outputs, or "mixed". Static string. */
const char *kj_store_task_dtype(const kj_task *t);

/* A candidate as given to kj_store_add_candidate (strings may be NULL: '';
 * sha256 NULL: computed from source). */
struct kj_store_candidate {
	int64_t run_id;
	const char *task;     /* must have a tasks row (kj_store_put_task) */
	const char *source;
	size_t source_len;
	const char *sha256;
	const char *model, *method, *path;
	int sample, round;
	int64_t parent_id;    /* 0: none */
};
/* Adds a candidate; idempotent: when (run, model, task, sample, round) exists
 * with the same source its id is returned and *created is 0 (created may be
 * NULL).  Returns 0, KJ_E_USAGE (that key holds another source; an unknown
 * task) or KJ_E_IO. */
int kj_store_add_candidate(kj_db *s, const struct kj_store_candidate *c, int64_t *id,
			   int *created, struct kj_err *err);
/* Sets parent_id of every candidate of the run at round n > 0 that has none
 * to the candidate with the same model, task and sample at round n - 1, when
 * there is one.  *linked (may be NULL) gets the number of rows set. */
int kj_store_link_parents(kj_db *s, int64_t run_id, int *linked, struct kj_err *err);

/* A candidate handed out by kj_store_pending: every pointer is valid only
 * during the callback. */
struct kj_store_cand {
	int64_t id;
	const char *task, *sha256, *source, *model, *method, *path;
	size_t source_len;
	int sample, round;
};
/* Calls fn for every candidate of the run that has no verdict, in id order.
 * fn returns 0 to go on, anything else stops the iteration and is returned.
 * The store's lock is held during the callbacks: fn must not call the store.
 * Returns 0, fn's value or KJ_E_IO. */
int kj_store_pending(kj_db *s, int64_t run_id,
		     int (*fn)(void *ctx, const struct kj_store_cand *c), void *ctx,
		     struct kj_err *err);

/* Devices: inserts or updates the row with this uuid (GPU-..., cpu:<host>);
 * info is a JSON object as text (NULL: "{}").  Returns 0 with *id, or KJ_E_IO. */
int kj_store_device_upsert(kj_db *s, const char *uuid, const char *name, const char *arch,
			   const char *info, int64_t *id, struct kj_err *err);
/* Adds a calibration of device_id from c (copy bandwidth and rates). */
int kj_store_calibration_add(kj_db *s, int64_t device_id, const kj_calib *c,
			     struct kj_err *err);
/* The newest calibration of device_id into *c (uuid and name from the device
 * row); KJ_E_NOTFOUND when there is none. */
int kj_store_calibration_latest(kj_db *s, int64_t device_id, kj_calib *c,
				struct kj_err *err);

/* Judgements log: a row written (and committed) before the judge runs on a
 * candidate; *id for kj_store_put_verdict, which finishes it. */
int kj_store_judgement_begin(kj_db *s, int64_t candidate_id, int64_t device_id, int64_t *id,
			     struct kj_err *err);

/* Where a verdict came from, for kj_store_put_verdict. */
struct kj_store_verdict_opts {
	int64_t run_id;        /* the candidate's run; 0: looked up */
	int64_t device_id;     /* 0: none (NULL) */
	const char *cache_key; /* settings that change a verdict (kj_store_cache_key); NULL: '' */
	int64_t judgement_id;  /* 0: none; else finished in the same transaction */
};
/* Stores v, the verdict of candidate_id, judged against t, in one
 * transaction: the verdicts row, a verdict_shapes row per timed bench shape,
 * a verdict_checks row per comparison, baselines, the judgement's finish.
 * json is the kjudge.verdict/1 text (NULL: made with kj_verdict_json_text).
 * Returns 0; KJ_E_USAGE when the candidate already has a verdict or does
 * not exist (nothing written); KJ_E_IO. */
int kj_store_put_verdict(kj_db *s, int64_t candidate_id, const kj_verdict *v,
			 const kj_task *t, const char *json,
			 const struct kj_store_verdict_opts *o, struct kj_err *err);
/* The verdict cache: a candidate judged itself (not reused) whose verdict has
 * this source sha256, task, backend, device (0: any device) and cache_key
 * (NULL: any).  Returns 0 with *candidate_id set to it, or to 0 when there is
 * none; KJ_E_IO. */
int kj_store_find_verdict_by_sha(kj_db *s, const char *sha256, const char *task,
				 const char *backend, int64_t device_id, const char *cache_key,
				 int64_t *candidate_id, struct kj_err *err);
/* Copies the verdict of `from` (its row, shapes and checks) to candidate `to`
 * in one transaction, with reused_from = from (or from's own reused_from,
 * so chains point at the judged candidate).  Returns 0; KJ_E_USAGE when
 * `to` has a verdict already or `from` has none; KJ_E_IO. */
int kj_store_copy_verdict(kj_db *s, int64_t from, int64_t to, struct kj_err *err);
/* The verdict JSON text of a candidate (malloc'd, caller frees) and its
 * status; KJ_E_NOTFOUND when it has no verdict.  json or status may be NULL. */
int kj_store_get_verdict(kj_db *s, int64_t candidate_id, char **json, kj_status *status,
			 struct kj_err *err);

/* "seeds=5;perf=1;timeout=10;policy=flag": the settings that change a
 * verdict (the judge's, from kj_eval_opts_settings), for
 * kj_store_verdict_opts.cache_key and the cache lookup.  On a GPU backend with
 * baseline knobs set (include/kjudge/knobs.h) it ends with ";knobs=" and 16
 * hex digits of kj_knobs_key's hash. */
void kj_store_cache_key(const struct kj_verdict_settings *o, char *buf, size_t len);

/* Counts of a run: candidates, those with a verdict, those reused, and per
 * status. */
struct kj_store_counts {
	int64_t candidates, judged, reused;
	int64_t by_status[KJ_ST_COUNT];
};
int kj_store_run_counts(kj_db *s, int64_t run_id, struct kj_store_counts *c,
			struct kj_err *err);

/* ---- reading a run (reports: src/score/load.c) ---------------------------
 *
 * kj_store_read_run() reads run `run` in one read transaction (one snapshot,
 * even while writers commit) and hands its rows to the reader's callbacks in
 * this order: run (once), cand (every candidate, by id), shape (every
 * verdict_shapes row of the run's candidates, by candidate and bind), calib
 * (the newest calibration of each device that judged a verdict of the run,
 * by device id), device (each such device with its verdict count, by id),
 * span (once).  A callback may be NULL; one returning non-zero stops the read
 * and its value is returned.  Every pointer in a row is valid only during
 * the callback; NULL text columns are "", NULL numbers NAN.  The store's lock
 * is held during the callbacks: they must not call the store.  Returns 0,
 * a callback's value, KJ_E_NOTFOUND ("no run 'x' in 'where'") or KJ_E_IO. */
struct kj_store_run_row {
	int64_t id;
	const char *name, *backend, *created, *spec, *settings, *version;
};
struct kj_store_cand_row {
	int64_t id, parent_id;     /* parent_id 0: none */
	const char *task, *model, *method, *sha256, *path;
	const char *source;
	size_t source_len;
	int level;                 /* the tasks row's (0, "" when the task has none) */
	const char *category, *dtype;
	int sample, round;
	int judged;                /* 1: it has a verdict; the fields below are its */
	const char *status, *stage, *reason, *flags, *judged_at, *cache_key;
	double speedup;            /* NAN: not timed */
	const char *json;          /* the kjudge.verdict/1 text; NULL without a verdict */
};
struct kj_store_shape_row {
	int64_t candidate_id;
	double weight, ms, iqr_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes;
};
struct kj_store_calib_row {
	const char *name, *uuid;   /* the device's */
	double copy_gbs;
	const char *rates;         /* JSON object text */
	const char *created;
};
struct kj_store_device_row {
	const char *name, *uuid, *arch;
	int verdicts;              /* the run's verdicts judged on it */
};
struct kj_store_span_row {
	const char *first_judged, *last_judged; /* "" when no verdict */
	int settings;              /* distinct cache_keys among the run's verdicts */
};
struct kj_store_reader {
	int (*run)(void *ctx, const struct kj_store_run_row *r);
	int (*cand)(void *ctx, const struct kj_store_cand_row *c);
	int (*shape)(void *ctx, const struct kj_store_shape_row *s);
	int (*calib)(void *ctx, const struct kj_store_calib_row *c);
	int (*device)(void *ctx, const struct kj_store_device_row *d);
	int (*span)(void *ctx, const struct kj_store_span_row *s);
};
int kj_store_read_run(kj_db *s, const char *run, const struct kj_store_reader *rd, void *ctx,
		      struct kj_err *err);

/* One stored attempt of a refinement chain (kj_store_attempts). */
struct kj_store_attempt {
	int64_t id;
	int round;
	const char *method, *sha256;
	const char *source;
	size_t source_len;
	const char *json;          /* the verdict's text; NULL: stored but not judged */
};
/* Calls fn for every candidate of the run with this model, task and sample,
 * by round, with its verdict when it has one (refine's resume).  fn returns
 * 0 to go on, anything else stops and is returned; the pointers are valid
 * during the call, with the store's lock held (fn must not call the store).
 * Returns 0, fn's value or KJ_E_IO. */
int kj_store_attempts(kj_db *s, int64_t run_id, const char *model, const char *task, int sample,
		      int (*fn)(void *ctx, const struct kj_store_attempt *a), void *ctx,
		      struct kj_err *err);

/* ==== job queue (kjudge serve; src/store/queue.c, queue_pg.c) =============
 *
 * A persistent queue of judging jobs, and the bearer tokens that submit them,
 * on either store: SQLite (queue.c) or PostgreSQL (queue_pg.c, where several
 * servers on several nodes may share one queue); docs/api.md gives the same
 * semantics.
 *
 * States: queued -> running -> done | failed; queued -> cancelled.
 *  - kj_queue_submit() adds a queued job (or finds the one its idempotency
 *    key names).
 *  - kj_queue_claim() takes the oldest queued job (lowest id) of a backend:
 *    running, attempts + 1, owner set, lease_until = now + lease_s.
 *  - The owner renews the lease (kj_queue_heartbeat) while it judges and ends
 *    the job with kj_queue_complete() (done, with the verdict; or failed, with
 *    an error).  Both check that the job is still running under that owner.
 *  - A running job whose lease has passed belongs to a server that died:
 *    kj_queue_requeue_stale() puts it back to queued, owner cleared (its
 *    attempts stay counted, so the next claim makes attempts 2), or fails
 *    it once it has used max_attempts claims.  kj_queue_release() hands a
 *    job back at once (a server stopping before it could finish), owner
 *    cleared too.
 *  - Only a queued job can be cancelled.
 * Every function is one transaction.  Unlike the functions above, the queue
 * functions take no lock of the kj_db: a kj_db used for them must not be
 * used by two threads at once (kjudge serve opens one per thread; SQLite
 * serialises the writers of separate connections; on PostgreSQL claims of
 * separate connections skip each other's locked rows and recheck the state).
 * Times are unix seconds (double) given by the caller.
 */
typedef enum kj_job_state {
	KJ_JOB_QUEUED = 0,
	KJ_JOB_RUNNING,
	KJ_JOB_DONE,
	KJ_JOB_FAILED,
	KJ_JOB_CANCELLED,
	KJ_JOB_STATE_COUNT
} kj_job_state;

/* "queued", "running"...; kj_job_state_from_name returns 0 or -1. */
const char *kj_job_state_name(kj_job_state s);
int kj_job_state_from_name(const char *s, kj_job_state *out);

/* A job as read back.  kj_job_init() zeroes; the get/claim/list functions
 * fill it, allocating source and verdict; kj_job_release() frees them. */
struct kj_job {
	int64_t id;
	kj_job_state state;
	char task[256];
	char backend[8];
	char sha256[65];
	char model[256];
	int sample;            /* -1: not given (the candidate's sample is the id) */
	int round;
	int64_t token_id;      /* 0: submitted without a token */
	char idem_key[256];    /* '' when none */
	char request_sha256[65];
	int attempts;          /* claims so far */
	char owner[128];       /* the server that holds it while running (or last held a
				* done or failed one); '' while queued */
	double lease_until;    /* 0 when not running */
	int64_t candidate_id;  /* 0 until judged */
	char status[32];       /* the verdict's status when done, else '' */
	char error[512];       /* why it failed, else '' */
	double created, started, finished; /* 0: not yet */
	char *source;          /* owned */
	size_t source_len;
	char *verdict;         /* kjudge.verdict/1 text when done, else NULL; owned */
};
void kj_job_init(struct kj_job *j);
void kj_job_release(struct kj_job *j);

/* A new job for kj_queue_submit (strings may be NULL where noted). */
struct kj_job_new {
	const char *task, *backend;   /* required */
	const char *source;           /* required; source_len bytes */
	size_t source_len;
	const char *model;            /* NULL: '' */
	int sample;                   /* -1: not given */
	int round;
	int64_t token_id;             /* 0: none */
	const char *idem_key;         /* NULL or '': no idempotency */
	const char *request_sha256;   /* identity of the request body, for the key */
	int quota;                    /* the token's limit on queued + running jobs; 0: none */
	double now;
};

enum kj_submit_result {
	KJ_SUBMIT_CREATED = 0,  /* a new queued job */
	KJ_SUBMIT_REPLAYED,     /* the key names a job with the same request_sha256 */
	KJ_SUBMIT_CONFLICT,     /* the key names a job with another request */
	KJ_SUBMIT_OVER_QUOTA,   /* the token has quota jobs queued or running */
};
/* Adds a job, or finds the one (token_id, idem_key) names.  *id is the job
 * (created or replayed; for CONFLICT the existing one; 0 for OVER_QUOTA);
 * *result says which.  Returns 0, KJ_E_USAGE (a required field missing) or
 * KJ_E_IO. */
int kj_queue_submit(kj_db *s, const struct kj_job_new *n, int64_t *id,
		    enum kj_submit_result *result, struct kj_err *err);

/* The job with this id into *j (kj_job_release first if it holds one);
 * KJ_E_NOTFOUND ("no job N") when there is none. */
int kj_queue_get(kj_db *s, int64_t id, struct kj_job *j, struct kj_err *err);

/* Claims the oldest queued job of backend for owner (see above).  *got is 1
 * with *j filled, or 0 when nothing is queued.  Returns 0 or KJ_E_IO. */
int kj_queue_claim(kj_db *s, const char *backend, const char *owner, double now,
		   double lease_s, struct kj_job *j, int *got, struct kj_err *err);

/* Extends the lease of running job id held by owner to now + lease_s.
 * Returns 0, or KJ_E_NOTFOUND when the job is not running under owner (it
 * was requeued: the caller no longer holds it). */
int kj_queue_heartbeat(kj_db *s, int64_t id, const char *owner, double now, double lease_s,
		       struct kj_err *err);

/* Ends running job id held by owner: state KJ_JOB_DONE with candidate_id,
 * status and the verdict JSON text, or KJ_JOB_FAILED with error (status and
 * verdict may be NULL).  Returns 0, KJ_E_NOTFOUND when the job is not
 * running under owner (nothing written), KJ_E_USAGE for another state. */
int kj_queue_complete(kj_db *s, int64_t id, const char *owner, kj_job_state state,
		      int64_t candidate_id, const char *status, const char *verdict,
		      const char *error, double now, struct kj_err *err);

/* Puts running job id held by owner back to queued (owner and lease
 * cleared: a queued job belongs to no server; attempts kept).  Returns 0
 * or KJ_E_NOTFOUND as kj_queue_heartbeat. */
int kj_queue_release(kj_db *s, int64_t id, const char *owner, struct kj_err *err);

/* Requeues every running job whose lease_until is before now; one that has
 * already used max_attempts claims (> 0) is failed instead ("abandoned after
 * N attempts").  *requeued and *failed (may be NULL) get the counts. */
int kj_queue_requeue_stale(kj_db *s, double now, int max_attempts, int *requeued,
			   int *failed, struct kj_err *err);

/* Cancels job id: a queued job becomes cancelled (finished = now).  token_id
 * > 0 restricts it to that token's jobs (another token's job is "not found").
 * *state gets the job's state afterwards (cancelled, or the state that
 * prevented it).  Returns 0 (look at *state), KJ_E_NOTFOUND or KJ_E_IO. */
int kj_queue_cancel(kj_db *s, int64_t id, int64_t token_id, double now, kj_job_state *state,
		    struct kj_err *err);

/* Jobs by id, for listings: state < 0 any state; token_id 0 any token; ids
 * above after_id; at most limit (<= 0: 100).  fn gets each job (source and
 * verdict not loaded: NULL), valid during the call; returning non-zero stops
 * and is returned.  Returns 0, fn's value or KJ_E_IO. */
int kj_queue_list(kj_db *s, int state, int64_t token_id, int64_t after_id, int limit,
		  int (*fn)(void *ctx, const struct kj_job *j), void *ctx, struct kj_err *err);

/* Jobs per state; token_id > 0 counts only that token's.  n[KJ_JOB_STATE_COUNT]. */
int kj_queue_counts(kj_db *s, int64_t token_id, int64_t n[KJ_JOB_STATE_COUNT],
		    struct kj_err *err);

/* Bearer tokens.  A token is stored as the sha256 (hex) of its text; the
 * text itself is never stored. */
struct kj_token {
	int64_t id;
	char name[128];
	char sha256[65];
	int quota; /* 0: no limit */
	char created[40];
};
/* Adds token name (unique) with hash sha256_hex.  Returns 0 with *id (may be
 * NULL), KJ_E_USAGE (the name or the hash exists, an empty name) or KJ_E_IO. */
int kj_token_add(kj_db *s, const char *name, const char *sha256_hex, int quota, int64_t *id,
		 struct kj_err *err);
/* The token with this hash into *t; KJ_E_NOTFOUND when none. */
int kj_token_find(kj_db *s, const char *sha256_hex, struct kj_token *t, struct kj_err *err);
/* Removes token name; KJ_E_NOTFOUND when none.  Its jobs stay. */
int kj_token_remove(kj_db *s, const char *name, struct kj_err *err);
/* Every token, by id, into *v (malloc'd, caller frees) and *n. */
int kj_token_list(kj_db *s, struct kj_token **v, int *n, struct kj_err *err);

/* ==== end of job queue ==================================================== */

#endif
