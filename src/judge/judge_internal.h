/*
 * Internals shared by the judge's two tracks: judge.c (stages, CPU track,
 * verdict bookkeeping) and judge_gpu.c (the CUDA track's correctness and
 * performance stages).  Not part of the public API.
 */
#ifndef KJ_JUDGE_INTERNAL_H
#define KJ_JUDGE_INTERNAL_H

#include <stdint.h>

#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/sandbox.h"

#define KJ_WIRE_MAX_ABI KJ_WORKER_MAX_PTR /* pointer arguments the worker protocol carries */
#define KJ_WIRE_MAX_DIMS KJ_WORKER_MAX_DIM /* int64 arguments it carries */
#define PERF_SETS 3
/* the determinism rerun pre-fills outputs with this byte (0x42424242 is
 * 48.56 as f32: an ordinary number, unlike the NaN sentinel) */
#define KJ_RERUN_BYTE 0x42
#define KJ_RERUN_NOTE " [determinism rerun: outputs pre-filled with 0x42 bytes instead of NaN]"
#define PERF_MIN_SAMPLES 10
#define PERF_MAX_SAMPLES 2000

struct errstat {
	int64_t n, nbad, first_bad;
	int exact; /* an integer or bool output: judged exactly, metric or not */
	double expected, got, max_abs, max_rel;
	double dot, gg, rr, l1num, l1den, sq;
};

struct judge {
	const kj_task *t;
	const struct kj_eval_opts *o;
	kj_verdict *v;
	struct kj_worker w;
	int worker_up;
	size_t arena_size;
	int64_t nop_ns;
	struct kj_err *err;
	/* CUDA track */
	kj_gpu *gpu;
	void *garena;
	size_t garena_size;
	const kj_calib *calib; /* NULL when the device has none */
};

double kjj_now_s(void);
int kjj_is_output(const kj_task *t, int vi);
/* Whether an output with these errors passes: every element within
 * tolerance, or the task's metrics (cosine, L1, RMSE, also set here) for a
 * metric task's float output. */
int kjj_metric_pass(const kj_task *t, const struct errstat *st, double *cosv, double *l1,
		    double *rmse);
void kjj_fail(struct judge *j, kj_status st, kj_stage sg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void kjj_progress(struct judge *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *kjj_shape_desc(struct judge *j, int bind, char *buf, size_t len);
int kjj_call_failed(struct judge *j, const struct kj_call_result *r, kj_stage sg, int bind);
int kjj_perf_binds(const kj_task *t, kj_backend b, int *out, int cap);
int kjj_largest_check(const kj_task *t, int smallest);
/* The bindings the correctness stage visits, in order: the smallest check
 * shape first (the call stage), the other check shapes, then the track's
 * bench shapes.  Returns the count. */
int kjj_correctness_order(const kj_task *t, kj_backend b, int *order, int cap);
int kjj_stage_static(struct judge *j, const char *src, size_t len);
int kjj_record_output(struct judge *j, int bind, int k, uint64_t seed, kj_seed_flavour fl,
		      kj_stage sg, double ms, int record, int vi, const kj_tinfo *ti,
		      const struct errstat *st, const struct errstat *bst);

/* Calls fn(j, ctx, it, &rc) for it = 0, 1, ... (0 is a checked warm-up)
 * until the median of the samples settles within 0.5% (>= 10 samples), the
 * perf budget is spent or the cap is reached.  fn returns a sample in ms, or
 * < 0 to stop (verdict set, or a judge error in rc): then -1 is returned. */
int kjj_timing_loop(struct judge *j, double (*fn)(struct judge *, void *, int, int *), void *ctx,
		    double *samples, int *ns, int *stable, int *rc);

/* The CUDA track's stages (judge_gpu.c). */
int kjj_gpu_correctness(struct judge *j);
int kjj_gpu_perf(struct judge *j);
void kjj_gpu_release(struct judge *j);

/* The Python track (pyjudge.c): triton and kernelbench candidates run in
 * python/kjudge_pyworker.py, then through the CUDA track's stages. */
struct kjj_py {
	char python[4096];  /* the interpreter */
	char worker[4096];  /* kjudge_pyworker.py */
	char cand[4400];    /* the candidate's source, content-addressed in the cache */
	char cache[4096];   /* the cache folder (Triton's and torch's build caches live under it) */
	char info[256];     /* "python 3.12.3, torch 2.11.0, triton 3.6.0" */
	char *abi;          /* the ABI as JSON, owned */
	char *argv[12];     /* the worker's argv, pointing into this struct */
};
void kjj_py_init(struct kjj_py *py);
void kjj_py_release(struct kjj_py *py);
/* The task's ABI for the Python worker as JSON (malloc'd; NULL when out of memory). */
char *kjj_py_abi_json(const kj_task *t);
/* Finds python and the worker, probes the environment (once per process),
 * writes the candidate into the cache and runs the static check.  Returns 0
 * to go on, 1 when a verdict was set, or a negative error (the judge cannot
 * run Python candidates here: the message says what is missing). */
int kjj_py_prepare(struct judge *j, const char *src, size_t len, struct kjj_py *py);
/* Builds the worker's argv (py->argv; the ABI JSON in py->abi).  Returns 0
 * or KJ_E_NOMEM. */
int kjj_py_argv(struct judge *j, struct kjj_py *py);
/* Maps the Python worker's "compile error: " and "rejected: " replies to
 * their verdicts; 1 when it set one. */
int kjj_py_map_error(struct judge *j, const struct kj_call_result *r);
/* Asks the worker (a NOP) whether torch operators ran inside the candidate's
 * calls: flags fallback, or rejects under the strict policy.  Returns 0 or
 * a judge error. */
int kjj_py_fallback_query(struct judge *j);

#endif
