/*
 * The judge: one candidate against one task, through the stages of DESIGN.md
 * (static -> compile -> call -> correctness -> performance), the first failing
 * stage giving the verdict.  The judge is the trusted side: it generates the
 * inputs, computes the reference (fp64 oracle), owns the comparison and the
 * clock; the candidate runs only in a kjudge-worker process and sees only its
 * own copies of the inputs and its output buffers.  The verdict it fills,
 * and its names and JSON, are the verdict layer's (include/kjudge/verdict.h).
 *
 * Layer: judge.  It may use core, ops, task, verdict and sandbox, never the
 * store or anything above it (docs/architecture.md, "Layers").
 *
 * Ownership: kj_eval() fills a kj_verdict (allocating the check and perf
 * arrays and the logs); kj_verdict_release() frees them.
 */
#ifndef KJUDGE_JUDGE_H
#define KJUDGE_JUDGE_H

#include <stdint.h>

#include "kjudge/gpu_state.h"
#include "kjudge/compile.h"
#include "kjudge/err.h"
#include "kjudge/gpu.h"
#include "kjudge/rng.h"
#include "kjudge/task.h"
#include "kjudge/verdict.h"

typedef enum kj_policy { KJ_POLICY_FLAG = 0, KJ_POLICY_STRICT } kj_policy;

struct kj_eval_opts {
	kj_backend backend;
	int seeds;             /* correctness seeds per shape, default 5 */
	uint64_t base_seed;    /* default fixed: verdicts repeat exactly */
	int seed_hidden;       /* base_seed derives from a secret (kj_seed_from_secret) */
	int no_perf;           /* skip the performance stage */
	double call_timeout_s; /* watchdog per call, default 10 */
	double perf_budget_s;  /* per shape and side, default 1.0 (CPU track) */
	double max_noise;      /* 0: timing stops once the median's ~95% half-width is within
				* 0.5% of it, or the budget is spent; > 0 (--max-noise F): within
				* F, and the CPU track samples past the budget (up to 10x it and
				* the sample cap) until then */
	kj_policy policy;
	int unconfined;           /* --unsafe-no-sandbox: compile and run without the jail
				   * (include/kjudge/jail.h); verdicts are flagged unconfined */
	const char *worker_path;  /* kjudge-worker */
	const char *include_dir;  /* candidate headers */
	const char *cache_dir;    /* NULL: default cache */
	const char *scratch_dir;  /* NULL: a fresh temp dir per eval */
	int device;               /* CUDA device ordinal */
	kj_gpu *gpu;              /* an open context for `device` to reuse across
	                             evaluations (a run, the demo); NULL: kj_eval
	                             opens and closes its own */
	int no_cache;
	struct kj_pypool *pypool; /* pre-warmed Python workers to take from and refill (a
				   * run's or a server's, one per device); NULL: kj_eval
				   * warms its own one worker while the candidate builds */
	void (*progress)(void *ctx, const char *line); /* optional */
	void *progress_ctx;
};

void kj_eval_opts_init(struct kj_eval_opts *o);
/* The settings of o that change a verdict (what the store keys its verdict
 * cache by: kj_store_cache_key). */
void kj_eval_opts_settings(const struct kj_eval_opts *o, struct kj_verdict_settings *s);

/* The tolerance an output of dtype dt is judged with: the task's `tol` line,
 * else 1e-4/1e-4 for f32, 1e-2/1e-2 for f16/bf16, exact (0/0) for integers
 * and bool.  One rule for the judge, the lint and any other caller. */
void kj_tolerance(const kj_task *t, kj_dtype dt, double *atol, double *rtol);

/* The eager baseline's error on one binding of t, over the judge's seeds
 * 0 .. nseeds - 1 for base_seed (their flavours: declared distributions,
 * outliers, uniform, ...): the baseline and the fp64 GPU reference run on
 * each seed's inputs, each output compared as the judge compares a
 * candidate's (kj_tolerance, the task's metrics).  Fills out[0 .. *nout -
 * 1], one per output (at most max), with the worst over the seeds. */
typedef struct kj_base_err {
	char output[64];
	int64_t n, nbad;          /* elements per seed; the most outside atol + rtol |ref| */
	double max_abs, max_rel;  /* the largest over the seeds */
	double cos, l1, rmse;     /* the metrics of the worst seed, for metric tasks */
	int pass;                 /* 0: a candidate this far off would fail a seed even with
				   * the error budget: a NaN/Inf disagreement, or (without a
				   * budget, exact outputs) any error */
	int declared_pass;        /* 0: it misses the task's declared tolerance on a seed (the
				   * error budget governs there: the tolerance is loosened) */
	int seeds;                /* seeds judged */
	unsigned failed;          /* bit k: seed k failed (its flavour: kj_seed_flavour_for(k)) */
	unsigned over;            /* bit k: seed k missed the declared tolerance */
	char budget_metric[16];   /* the measure of tol_ratio: elementwise, cos, l1, rmse */
	double tol_ratio;         /* the largest over the seeds of the baseline's distance over
				   * the declared limit (> 1: the budget governs) */
} kj_base_err;
int kj_gpu_baseline_error(kj_gpu *g, const kj_task *t, int bind, uint64_t base_seed, int nseeds,
			  kj_base_err *out, int max, int *nout, struct kj_err *err);

/* Timing statistics of n samples (sorts xs in place): median, interquartile
 * range, and *stable = 1 once n >= 10 and the median's ~95% confidence
 * half-width (order statistics n/2 -+ 0.98 sqrt(n)) is within 0.5% of it.
 * The judge's timing stages and `kjudge baseline` stop on this rule. */
void kj_timing_summary(double *xs, int n, double *med, double *iqr, int *stable);

/* Hidden-seed mode: a base seed nothing the candidate sees can predict,
 * the first 64 bits of sha256("kjudge-seed-secret/1" + secret). */
uint64_t kj_seed_from_secret(const char *secret);

/* Pre-warmed Python workers (--backend triton|kernelbench; docs/kernelbench.md,
 * "Pre-warmed workers"): a pool keeps up to `spares` workers started ahead in
 * their jails, each past its interpreter's start, torch's import and its CUDA
 * context (SETUP), under its seccomp filter, blocked on its socket, and with
 * nothing of a task's or a candidate's.  kj_eval takes one per candidate,
 * gives it the task and the candidate, and never gives it back: one candidate
 * per process.  One thread of the pool starts every spare; spares die with
 * it (kj_pypool_free, or the judge's death).  kj_pypool_new returns NULL
 * when out of memory; spares 0: each worker starts when its candidate needs
 * it (what `KJUDGE_PY_SPARES=0` asks for). */
struct kj_pypool;
struct kj_pypool *kj_pypool_new(int spares);
/* Kills every spare, ends the pool's thread, frees.  NULL is fine.  A worker
 * taken from the pool must be stopped before. */
void kj_pypool_free(struct kj_pypool *p);
/* $KJUDGE_PY_SPARES (0 .. 4), default 1. */
int kj_pypool_spares_default(void);

/* The compile-ahead of a KernelBench candidate (`kjudge run`'s CPU pool):
 * when the source uses torch's load_inline, the build step runs without the
 * GPU (its own jail, no device files), so that the import's nvcc build fills
 * the candidate's build folder (<cache>/pybuild/<sha>) before the judge's own
 * step, which then finds the extension built and only warms up on the GPU.
 * arch: the device's ("sm_90a"), so that nvcc's flags are the device's.  A
 * failure is not a verdict (kj_eval builds again and decides).  Returns 0
 * (*built 1 when the step ran), or an error.  Other backends and sources:
 * 0, nothing done. */
int kj_py_prebuild(const kj_task *t, const char *source, size_t len, const struct kj_eval_opts *o, const char *arch,
		   int *built, struct kj_err *err);

/* Judges source (len bytes) against t.  Returns 0 when a verdict was reached
 * (whatever it is), or an error when the judge itself failed (worker missing,
 * out of memory...). */
int kj_eval(const kj_task *t, const char *source, size_t len, const struct kj_eval_opts *o,
	    kj_verdict *v, struct kj_err *err);

/* Device calibrations, stored per GPU (uuid) under the cache folder as
 * calib/<uuid>.json.  Return 0, or -1 when there is none / it cannot be
 * written. */
int kj_calib_load(const char *cache_dir, const char *uuid, kj_calib *c);
/* The dense rate (TFLOP/s) node n of plan p can reach on calibration c: the
 * GEMM rate of its input dtype for ops that run on matrix units (matmul, bmm,
 * linear, convolutions, attention), 0 for the others (memory-bound: their
 * roof is the bandwidth).  kj_plan_peak_tflops: the rate of the plan's first
 * such node (the fp8 rate when the task has an f8e4m3 input), else the fp32
 * rate (the roofline's compute roof). */
double kj_node_peak_tflops(const kj_plan *p, int n, const kj_calib *c);
double kj_plan_peak_tflops(const kj_plan *p, const kj_calib *c);
/* kj_plan_peak_tflops, and in *what the rate's name ("bf16 tensor-core",
 * "fp32", ...: a static string), as the prompt states it. */
double kj_plan_peak_named(const kj_plan *p, const kj_calib *c, const char **what);
int kj_calib_store(const char *cache_dir, const kj_calib *c);
struct json_t *kj_calib_json(const kj_calib *c);


#endif
