/*
 * The verdict: what the judge decided about one candidate on one task (its
 * status, the stage that decided it, flags, every correctness check, the
 * timings per bench shape), the names of statuses, stages, flags and
 * backends, and its kjudge.verdict/1 JSON form (docs/verdict.md).  The judge
 * fills verdicts; the store keeps them; reports, serve and refine read them.
 *
 * Layer: verdict.  It may use core and task (a verdict names its task's shapes)
 * and the knobs table of ops (include/kjudge/knobs.h), never the judge, the
 * sandbox or the store (docs/architecture.md, "Layers"; make check-layers).
 *
 * Ownership: kj_verdict_init() zeroes; kj_eval() fills (allocating the check
 * and perf arrays and the logs); kj_verdict_release() frees them.
 */
#ifndef KJUDGE_VERDICT_H
#define KJUDGE_VERDICT_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/gpu_state.h"
#include "kjudge/rng.h"
#include "kjudge/task.h"

/* cpu and cuda are compiled candidates; triton and kernelbench are Python
 * candidates run by python/kjudge_pyworker.py on the CUDA track (no compile
 * step: kj_compile answers KJ_E_UNSUPPORTED for them). */
typedef enum kj_backend {
	KJ_BACKEND_CPU = 0,
	KJ_BACKEND_CUDA,
	KJ_BACKEND_TRITON,
	KJ_BACKEND_KERNELBENCH
} kj_backend;
const char *kj_backend_name(kj_backend b);
int kj_backend_from_name(const char *s, kj_backend *out);
/* 1 for triton and kernelbench (a Python worker), else 0. */
int kj_backend_is_python(kj_backend b);
/* 1 for every backend judged on a CUDA device (cuda, triton, kernelbench). */
int kj_backend_is_gpu(kj_backend b);

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

/* Where one evaluation's wall time went, finer than its stages (self time:
 * a part nested in another counts only in the inner one); "other" is the
 * rest of total_s.  Printed as the verdict's "profile_seconds" and summed
 * over a batch by `kjudge run --json` (src/judge/profile.c measures it). */
typedef enum kj_prof {
	KJ_PROF_SETUP = 0,   /* device open, GPU state readings, calibration load */
	KJ_PROF_STATIC,      /* source and binary checks */
	KJ_PROF_COMPILE,
	KJ_PROF_BASELINE,    /* the baseline prepass's own work (cache lookups, timing) */
	KJ_PROF_SPAWN,       /* the worker's process and sandbox */
	KJ_PROF_CONTEXT,     /* the worker's CUDA context (SETUP) */
	KJ_PROF_FLOOR,       /* empty calls measuring the round-trip floor */
	KJ_PROF_LOAD,        /* loading the candidate */
	KJ_PROF_SHAPE,       /* a shape's plan and buffers */
	KJ_PROF_GEN,         /* input generation */
	KJ_PROF_REF,         /* the fp64 reference */
	KJ_PROF_BASE_RUN,    /* the eager baseline's untimed runs */
	KJ_PROF_REF_CACHE,   /* the reference cache: inputs, reference and baseline outputs
			      * copied back on a hit, or into the cache after a miss */
	KJ_PROF_CALL,        /* untimed candidate calls (prepare, IPC, snapshot) */
	KJ_PROF_TIMED_CALL,  /* timed candidate calls */
	KJ_PROF_INPUT_CHECK, /* inputs compared with their pristine copies */
	KJ_PROF_COMPARE,     /* outputs against the reference */
	KJ_PROF_VS_BASE,     /* timed calls' outputs against the baseline's */
	KJ_PROF_TIME_BASE,   /* timed baseline runs and trains */
	KJ_PROF_TRAIN,       /* the candidate's trains and their checks */
	KJ_PROF_TEARDOWN,    /* worker stop, buffers, the end's GPU state, scratch */
	KJ_PROF_PY_WAIT,     /* waiting for a pre-warmed Python worker: at its take, and before
			      * the timing phase while the next one starts (pypool.c) */
	KJ_PROF_PY_START,    /* the taken Python worker's own start-up (process, imports, CUDA
			      * context), on the pool's thread: mostly hidden behind other parts,
			      * so not counted in the sum that makes up total_s */
	KJ_PROF_OTHER,
	KJ_PROF_COUNT
} kj_prof;

const char *kj_prof_name(kj_prof p);
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
	double prof_s[KJ_PROF_COUNT]; /* kj_prof: self seconds per part, summing to total_s */
	/* the reference cache (src/judge/refcache.c): correctness inputs with
	 * their reference and baseline outputs copied back instead of computed
	 * (hits), and computed then kept (stored) */
	int ref_cache_hits, ref_cache_stored;
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

/* The judge's settings that change a verdict, as the store keys its verdict
 * cache by them (kj_store_cache_key); the judge fills it from its options
 * (kj_eval_opts_settings). */
struct kj_verdict_settings {
	kj_backend backend;
	int seeds;             /* correctness seeds per shape */
	uint64_t base_seed;    /* keyed only as a hash: a hidden seed stays hidden */
	int no_perf;           /* the performance stage skipped */
	double call_timeout_s; /* watchdog per call */
	double perf_budget_s;  /* timing budget per shape and side */
	int strict;            /* library fallbacks rejected rather than flagged */
	int unconfined;        /* judged without the sandbox */
	double max_noise;      /* --max-noise, 0 when not given */
};

/* The verdict as a kjudge.verdict/1 JSON object (jansson json_t*, caller
 * decrefs); as text, malloc'd, caller frees. */
struct json_t;
struct json_t *kj_verdict_json(const kj_verdict *v, const kj_task *t);
char *kj_verdict_json_text(const kj_verdict *v, const kj_task *t);

#endif
