/*
 * Judging into the store: what every command that keeps verdicts does
 * around kj_eval, written once.  `kjudge run` (through kj_record_run, its
 * engine), `kjudge worker`, `kjudge serve` and `kjudge refine` all judge a
 * candidate the same way: the verdict cache first (a source already judged
 * on this device under these settings gets a copy of that verdict), else a
 * judgements row, kj_eval, the verdict's JSON, the verdict stored.  Around
 * that: the tasks they judge against (loaded once, each with the hash of its
 * .kt file for the tasks row) and the devices rows that verdicts point to,
 * with the calibration in use.
 *
 * Layer: record.  It may use core, ops, task, verdict, sandbox, judge and
 * store; cli, serve and llm (refine) use it (docs/architecture.md,
 * "Layers").
 *
 * Ownership: the caller owns every kj_db, task, option and string it passes
 * for the duration of the call.  kj_record_tasks owns the tasks it loads
 * until kj_record_tasks_release().  Every function returns 0 or a negative
 * KJ_E_* code with its message in *err (err may be NULL).  The library
 * prints nothing: lines meant for a person go to a log function.
 */
#ifndef KJUDGE_RECORD_H
#define KJUDGE_RECORD_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "kjudge/err.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/store.h"
#include "kjudge/task.h"

/* A line for a person (no newline), or NULL: silent. */
typedef void (*kj_record_log_fn)(void *ctx, const char *line);

/* ---- tasks ----------------------------------------------------------------- */

/* Loads the task named key into *out (caller of the loader frees it with
 * kj_task_free); 0 or an error with err set. */
typedef int (*kj_record_load_fn)(void *ctx, const char *key, kj_task **out, struct kj_err *err);

struct kj_record_task_ent {
	char *key;
	kj_task *t;          /* NULL: its load failed (kept only with keep_failures) */
	char sha256[65];     /* of the .kt file; "" when it cannot be read */
	struct kj_err error; /* that failure */
};

/* A cache of loaded tasks, shared by threads (its lock is held while a task
 * loads).  A task is found by the key it was loaded by or by its id.  A
 * loaded kj_task is never changed again, so its users need no lock. */
struct kj_record_tasks {
	pthread_mutex_t mu;
	kj_record_load_fn load; /* NULL: kj_task_load(key), key a path */
	void *load_ctx;
	kj_db *db;              /* not NULL: a task's tasks row is written at its first load */
	int keep_failures;      /* a load that failed is not tried again: its error is returned */
	struct kj_record_task_ent *v;
	int n;
};
/* An empty cache that loads with load (NULL: kj_task_load, the key a path);
 * db and keep_failures are set by the caller after it, when wanted. */
void kj_record_tasks_init(struct kj_record_tasks *tc, kj_record_load_fn load, void *load_ctx);
/* Frees every task of tc (and the lock). */
void kj_record_tasks_release(struct kj_record_tasks *tc);
/* The task named key, loaded on first use; sha256 (may be NULL) gets the
 * hash of its .kt file.  Returns 0 with *t (owned by tc), or the loader's
 * (or the tasks row's) error. */
int kj_record_task_get(struct kj_record_tasks *tc, const char *key, const kj_task **t,
		       char sha256[65], struct kj_err *err);
/* The sha256 of t's .kt file into sha256 ("" when it cannot be read). */
void kj_record_task_sha(const kj_task *t, char sha256[65]);
/* Writes t's tasks row with the hash of its .kt file. */
int kj_record_put_task(kj_db *db, const kj_task *t, struct kj_err *err);

/* ---- devices --------------------------------------------------------------- */

/* Records this host's CPU in the devices table (uuid cpu:HOST, its model
 * name, the machine, the number of cores); its model name into name when
 * name is not NULL.  Returns 0 with *id, or the store's error. */
int kj_record_cpu_device(kj_db *db, int64_t *id, char *name, size_t nl, struct kj_err *err);
/* Records GPU g in the devices table, and its calibration from cache_dir
 * when that differs from the newest recorded one.  With calibrate set, a GPU
 * without a calibration is calibrated first (announced to log) and the
 * calibration kept in cache_dir.  cal and have_cal, when not NULL, get the
 * calibration and whether there is one.  Returns 0 with *id, or an error. */
int kj_record_gpu_device(kj_db *db, kj_gpu *g, const char *cache_dir, int calibrate,
			 kj_record_log_fn log, void *log_ctx, int64_t *id, kj_calib *cal,
			 int *have_cal, struct kj_err *err);
/* kj_record_gpu_device for CUDA device ordinal, on a context of its own
 * (closed again: a context's current device is per thread, so each
 * evaluation thread opens its own).  arch and name (may be NULL) get the
 * device's.  Returns 0 with *id, or an error. */
int kj_record_gpu_ordinal(kj_db *db, int ordinal, const char *cache_dir, int64_t *id, char *arch,
			  size_t al, char *name, size_t nl, struct kj_err *err);

/* ---- judge and record ------------------------------------------------------ */

/* Where verdicts go, for one evaluation thread. */
struct kj_recorder {
	kj_db *db;
	int64_t run_id;                  /* the candidates' run */
	int64_t device_id;               /* the devices row of the device judging */
	const char *cache_key;           /* kj_store_cache_key of eval's settings */
	const struct kj_eval_opts *eval; /* device, gpu and cache_dir set */
	/* The store's side, NULL: kj_store_put_verdict and kj_store_copy_verdict
	 * on db.  The cluster worker ends its job with them instead. */
	int (*put)(void *ctx, int64_t cid, const kj_verdict *v, const kj_task *t, const char *json,
		   const struct kj_store_verdict_opts *vo, struct kj_err *err);
	int (*copy)(void *ctx, int64_t from, int64_t cid, struct kj_err *err);
	void *ctx;
};

/* One candidate, with a candidates row of r's run. */
struct kj_record_cand {
	int64_t id;
	const kj_task *t;
	const char *source;
	size_t len;
	const char *sha256;  /* of source */
	int no_lookup;       /* judge even when the verdict cache has it (looked up already) */
	int want_json;       /* kj_record_out.json: the stored verdict's text */
	int compiled_ahead;  /* compiled, not from the cache, in compile_s before (kjudge run's
			      * pool): the verdict reports that compile, not kj_eval's cache hit */
	double compile_s;
};

enum kj_record_how { KJ_RECORD_JUDGED = 1, KJ_RECORD_COPIED };
/* The step that failed, for a caller's message. */
enum kj_record_step {
	KJ_RECORD_STEP_NONE = 0,
	KJ_RECORD_STEP_LOOKUP,
	KJ_RECORD_STEP_COPY,
	KJ_RECORD_STEP_BEGIN,
	KJ_RECORD_STEP_EVAL,
	KJ_RECORD_STEP_PUT
};

struct kj_record_out {
	enum kj_record_how how;
	enum kj_record_step failed; /* on an error: where */
	int64_t from;               /* KJ_RECORD_COPIED: the candidate copied */
	kj_status status;           /* the verdict's (KJ_RECORD_JUDGED, or want_json) */
	char *json;                 /* want_json: malloc'd, caller frees; else NULL */
	double eval_s;              /* seconds in kj_eval */
	double prof_s[KJ_PROF_COUNT]; /* the verdict's profile (KJ_RECORD_JUDGED) */
	int ref_cache_hits, ref_cache_stored; /* the verdict's (KJ_RECORD_JUDGED) */
};

/* Judges candidate c and records its verdict: a copy of the verdict of a
 * candidate of the same source, task, backend, device and settings when
 * the cache has one (unless c->no_lookup), else a judgements row, kj_eval,
 * its JSON, and r's put.  Returns 0 with *out filled, or the error of the
 * step out->failed (the judge's own failure included; a verdict, whatever
 * it is, is 0); nothing is left allocated then. */
int kj_record_judge(const struct kj_recorder *r, const struct kj_record_cand *c,
		    struct kj_record_out *out, struct kj_err *err);

/* ---- a run's engine -------------------------------------------------------- */

#define KJ_RECORD_MAX_DEVS 16

/* Where one evaluation thread's time went, seconds from the run's start
 * (`kjudge run --json`). */
struct kj_record_dev_stats {
	int ordinal;
	int64_t id;
	char arch[16], name[128];
	int jobs;
	double first_start, last_end, busy, wait;
	/* the judged verdicts' profiles summed, and the part of busy spent
	 * around kj_eval (the store's begin and put, reused copies) */
	double prof[KJ_PROF_COUNT], record;
	int64_t ref_cache_hits, ref_cache_stored; /* the judged verdicts' summed */
};

struct kj_record_run_stats {
	int total, done, judged, reused, failed;
	int ndevs;
	struct kj_record_dev_stats devs[KJ_RECORD_MAX_DEVS];
};

struct kj_record_run_opts {
	kj_db *db;
	int64_t run_id;
	struct kj_eval_opts eval;   /* worker, headers, cache_dir set */
	struct kj_record_tasks *tasks;
	const int *gpus;            /* the GPU backends' devices; the CPU track has one lane */
	int ngpus;
	int jobs;                   /* compile threads */
	int order_cost;             /* longest-judging tasks first; else the SPEC's order */
	volatile sig_atomic_t *stop; /* set (by a signal handler): finish the jobs in hand, stop */
	/* progress, NULL: none.  Called from the calling thread about ten times
	 * a run and at least every 100 candidates (tty: every 0.2 s), and with
	 * final set once at the end. */
	void (*progress)(void *ctx, const struct kj_record_run_stats *st, int final);
	kj_record_log_fn log;       /* judge failures, copies that failed; a line that
				     * starts with a newline ends a progress bar's line first */
	void *ctx;
	double t0;                  /* the run's start (kj_record_now_s); 0: now */
	int tty;                    /* progress as a bar: called every 0.2 s */
};


/* Seconds on the monotonic clock. */
double kj_record_now_s(void);

/* Judges every candidate of o->run_id without a verdict: its devices
 * recorded, the verdict cache first, one judgement per distinct (task,
 * source) with copies for the others, a pool of o->jobs threads compiling
 * ahead, one evaluation thread per device taking the compiled candidates
 * (longest first with order_cost).  Three judge failures in a row on a
 * device stop the run.  Returns 0 (st filled, also when interrupted or when
 * some candidates failed: see st), or an error (devices, the store). */
int kj_record_run(const struct kj_record_run_opts *o, struct kj_record_run_stats *st,
		  struct kj_err *err);

#endif
