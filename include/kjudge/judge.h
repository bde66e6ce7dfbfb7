/*
 * The judge: one candidate against one task, through the stages of DESIGN.md
 * (static -> compile -> call -> correctness -> performance), the first failing
 * stage giving the verdict.  The judge is the trusted side: it generates the
 * inputs, computes the reference (fp64 oracle), owns the comparison and the
 * clock; the candidate runs only in a kjudge-worker process and sees only its
 * own copies of the inputs and its output buffers.
 *
 * Ownership: kj_verdict_init() zeroes; kj_eval() fills (allocating the check
 * and perf arrays and the logs); kj_verdict_release() frees them.
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

typedef enum kj_status {
	KJ_ST_PASS = 0,
	KJ_ST_COMPILE_ERROR,
	KJ_ST_CALL_ERROR,
	KJ_ST_MISMATCH,
	KJ_ST_RUNTIME_ERROR,
	KJ_ST_TIMEOUT,
	KJ_ST_CRASH,
	KJ_ST_REJECTED,
	KJ_ST_COUNT
} kj_status;

typedef enum kj_stage {
	KJ_STAGE_STATIC = 0,
	KJ_STAGE_COMPILE,
	KJ_STAGE_CALL,
	KJ_STAGE_CORRECTNESS,
	KJ_STAGE_PERFORMANCE,
	KJ_STAGE_DONE,
	KJ_STAGE_COUNT
} kj_stage;

enum kj_flag {
	KJ_FLAG_FALLBACK = 1 << 0,             /* calls a vendor library instead of a kernel */
	KJ_FLAG_FASTER_THAN_ROOFLINE = 1 << 1, /* time below T_sol: not scored */
	KJ_FLAG_UNSTABLE_TIMING = 1 << 2,      /* timing hit its caps before settling */
	KJ_FLAG_OUTPUT_TRUNCATED = 1 << 3,     /* candidate's stdout/stderr passed the cap */
	KJ_FLAG_BASELINE_TOLERANCE = 1 << 4,   /* the eager baseline itself misses the tolerance */
	KJ_FLAG_TIMING_GAP = 1 << 5,           /* the worker's device time was below the judge's own
						* bound (work off the stream, or a forged time) */
	KJ_FLAG_UNCONFINED = 1 << 6,           /* judged outside the sandbox (--unsafe-no-sandbox,
						* KJUDGE_PROFILE=1) or with the seccomp survey */
	KJ_FLAG_BUDGET = 1 << 7,               /* a check passed only within the error budget */
	KJ_FLAG_GPU_DRIFT = 1 << 8,            /* the GPU's settings changed, or its clocks were cut for
						* heat or a hardware slowdown, between the start and the end
						* of the judgement (kj_gpu_state_drift) */
};

/* The error budget (docs/verdict.md): an output passes when its distance
 * from the fp64 reference, per metric, is within the task's declared limit
 * or within KJ_BUDGET_MULT times the eager baseline's own distance on the
 * same output, shape and seed, whichever is larger.  One constant, to be
 * set from H200 measurements of the eager arithmetic's spread. */
#define KJ_BUDGET_MULT 4.0

const char *kj_status_name(kj_status s);
int kj_status_from_name(const char *s, kj_status *out);
const char *kj_stage_name(kj_stage s);
/* Appends flag names ("fallback,unstable_timing") to buf. */
void kj_flags_str(unsigned flags, char *buf, size_t len);

/* One correctness comparison: one output, one shape, one seed. */
typedef struct kj_check {
	int bind;            /* task->binds index */
	int seed_index;      /* k in the seed schedule */
	uint64_t seed;
	kj_seed_flavour flavour;
	char output[64];
	int pass;
	int64_t n;           /* elements compared */
	int64_t nbad;        /* elements outside tolerance */
	int64_t first_bad;   /* flat index, -1 if none */
	double expected, got;/* at first_bad */
	double max_abs, max_rel;           /* candidate vs reference */
	double base_max_abs, base_max_rel; /* eager baseline vs reference */
	/* the error budget (docs/verdict.md): the governing measure
	 * ("elementwise", "cos", "l1", "rmse"), the candidate's and the
	 * baseline's distance on it over the declared limit (tol_ratio <= 1 is
	 * within the declared tolerance; base_tol_ratio NAN without a
	 * baseline), the limit applied (max(1, KJ_BUDGET_MULT x
	 * base_tol_ratio); 1 when the declared tolerance governs), and whether
	 * the check passed only because of the budget */
	char budget_metric[16];
	double tol_ratio, base_tol_ratio, budget;
	int budget_used;
	double cos, l1, rmse;              /* metric tasks (and always computed) */
	double ms;           /* this call's time (not a benchmark) */
} kj_check;

typedef struct kj_perf {
	int bind;
	double weight;
	double flops, bytes;
	double ms, iqr_ms;   /* candidate median and interquartile range */
	int n;
	double baseline_ms, baseline_iqr_ms;
	int baseline_n;
	double speedup;      /* baseline_ms / ms */
	double sol_ms;       /* roofline T_sol; < 0 when the device has no calibration */
	double sol_frac, iou, mfu; /* < 0 when unknown */
	int checked;         /* timed outputs compared (every timed call's) */
	int verified;        /* of those, compared with the fp64 reference (the others with the
			      * eager baseline's outputs on the same inputs) */
	double wall_ms;      /* median of the judge's own bound on the timed calls (its clock,
			      * the trusted floor taken off) */
	int train_reps;      /* CUDA: calls in the train that bounds short calls (0: none) */
	double train_ms;     /* its bound on one call, the judge's clock (train_reps > 0) */
	double call_ms;      /* train_reps > 0: the median of the single timed calls' event
			      * times (ms is then the train's time per call); else ms */
	int baseline_train_reps; /* CUDA, baselines under 8 ms: the calls of the baseline's own
				  * train (baseline_ms is then its time per call), else 0 */
	double baseline_call_ms; /* the baseline's single timed calls' median */
	/* the speedup's 95% interval (kjudge/interval.h, docs/verdict.md), 0 when
	 * unknown; the baseline's spread against itself, relative, -1 unknown */
	double speedup_lo, speedup_hi;
	double noise_floor;
} kj_perf;

typedef struct kj_verdict {
	char task[256];
	kj_backend backend;
	char sha256[65];
	kj_status status;
	kj_stage stage;
	char reason[1024];
	unsigned flags;
	char fallback_libs[256];
	int compile_cached;
	double compile_s;
	char *compile_log;   /* capped, owned */
	char *worker_log;    /* candidate stdout/stderr, capped, owned */
	size_t worker_log_total;
	int nchecks, capchecks;
	kj_check *checks;
	int nperf;
	kj_perf *perf;
	double speedup;      /* weighted geometric mean over perf shapes; 0 when not timed */
	double speedup_lo, speedup_hi; /* its 95% interval, the shapes resampled together; 0
					* when unknown */
	double noise_floor;  /* the largest of the perf shapes' noise floors; -1 unknown */
	int pinned_cpu;      /* CPU track: 1 + the CPU the judge and the worker were pinned to
			      * while timing; 0 when not pinned */
	double stage_s[KJ_STAGE_COUNT];
	double total_s;
	char device[128];
	int seeds;
	uint64_t base_seed;
	int seed_hidden;     /* base_seed came from a secret: not printed */
	char sandbox[160];   /* how the worker was confined ("bubblewrap (...) as uid 65534", or
			      * "none (--unsafe-no-sandbox)") */
	double rtt_floor_us; /* the round trip of an empty call, measured before the candidate
			      * was loaded, taken off every call's time */
	char limits[512];    /* the compiler's and the worker's limits that the caller's hard
			      * limits lowered ("compile: RLIMIT_AS 4096 MiB (kjudge asks 8192
			      * MiB)"), "" when none */
	char version[64];     /* kj_version() of the judge */
	char baseline_id[96]; /* GPU backends: the harness and the hash of the baseline's sources
			       * (what the baseline-timing cache is keyed by), else "" */
	int gpu_states;       /* GPU backends: the readings of the GPU's state held: 1 at the
			       * start, 2 at the start and the end; 0 when NVML could not say */
	kj_gpu_state gpu_start, gpu_end;
	char gpu_drift[256];  /* why KJ_FLAG_GPU_DRIFT was set, else "" */
	char gpu_state_err[256]; /* why there is no reading (NVML missing), else "" */
} kj_verdict;

void kj_verdict_init(kj_verdict *v);
void kj_verdict_release(kj_verdict *v);

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
	void (*progress)(void *ctx, const char *line); /* optional */
	void *progress_ctx;
};

void kj_eval_opts_init(struct kj_eval_opts *o);

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

/* The verdict as a kjudge.verdict/1 JSON object (jansson json_t*, caller
 * decrefs); as text, malloc'd, caller frees. */
struct json_t;
struct json_t *kj_verdict_json(const kj_verdict *v, const kj_task *t);
char *kj_verdict_json_text(const kj_verdict *v, const kj_task *t);

#endif
