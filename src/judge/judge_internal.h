/*
 * Internals of the judge, not part of the public API.  kj_eval (judge.c) is
 * one stage sequence: options, sandbox, the candidate's preparation, the
 * device, the worker with its trusted floors, LOAD, correctness,
 * performance, teardown at a single exit.  What varies is behind two
 * interfaces, kept apart because they vary apart (a Python candidate runs
 * on the CUDA track, a C source on either):
 *  - the candidate kind (struct kjj_cand): how a source becomes what the
 *    worker loads and what its worker needs around the stages; cand_c.c
 *    for C and CUDA sources compiled to a shared object, cand_py.c for
 *    Triton and KernelBench Python;
 *  - the track (struct kjj_track): the per-shape inputs, calls and
 *    comparisons the stages (stages.c, written once) call; track_cpu.c for
 *    the CPU track, judge_gpu.c for the CUDA track.
 * Shared by both: the comparisons' judgement and the verdict's bookkeeping
 * (outcome.c), the profile (profile.c), the intervals (perf_interval.c).
 */
#ifndef KJ_JUDGE_INTERNAL_H
#define KJ_JUDGE_INTERNAL_H

#include <sched.h>
#include <stdint.h>

#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/sandbox.h"

#define KJ_WIRE_MAX_ABI KJ_WORKER_MAX_PTR /* pointer arguments the worker protocol carries */
#define KJ_WIRE_MAX_DIMS KJ_WORKER_MAX_DIM /* int64 arguments it carries */
/* the determinism rerun pre-fills outputs with this byte (0x42424242 is
 * 48.56 as f32: an ordinary number, unlike the NaN sentinel) */
#define KJ_RERUN_BYTE 0x42
#define KJ_RERUN_NOTE " [determinism rerun: outputs pre-filled with 0x42 bytes instead of NaN]"
#define PERF_MIN_SAMPLES 10
#define PERF_MAX_SAMPLES 2000
#define PERF_MAX_SHAPES 64
#define KJJ_MAX_OUTPUTS 16
#define KJJ_FLAVOURS 3 /* kj_seed_flavour values */
/* the probes of the trusted round-trip floor, before the candidate loads */
#define FLOOR_PROBES 21

struct errstat {
	int64_t n, nbad, first_bad;
	int64_t nfbad; /* of nbad, the float elements where one side is NaN or Inf and the
			* other is not (or a different Inf): no budget excuses these */
	int exact; /* an integer or bool output: judged exactly, metric or not */
	double expected, got, max_abs, max_rel;
	/* float outputs: the worst |got - ref| / (atol + rtol |ref|) over the finite
	 * pairs (0 where that tolerance is 0 and they agree, inf where it is 0 and
	 * they differ); the error budget compares it with the baseline's */
	double ratio;
	double dot, gg, rr, l1num, l1den, sq;
};

/* The eager baseline's distance from the reference on one output, as the
 * error budget reads it (docs/verdict.md): its worst normalised elementwise
 * error, and its metrics' distances (1 - cosine, relative L1, RMSE). */
struct kjj_base_dist {
	int have;
	double ratio, omc, l1, rmse;
};

/* How one output of a candidate fared against the task's tolerance and the
 * error budget the eager baseline's own error gives it. */
struct kjj_judged {
	int pass;
	int declared_pass;  /* within the task's declared tolerance alone */
	int budget_used;    /* passed only because of the budget */
	int nonfinite;      /* failed on a NaN/Inf disagreement (no budget applies) */
	const char *metric; /* the governing measure: "elementwise", "cos", "l1", "rmse" */
	double ratio;       /* the candidate's distance on it over the declared limit */
	double base_ratio;  /* the baseline's, NAN when there is none */
	double limit;       /* the limit on ratio: max(1, KJ_BUDGET_MULT x base_ratio), 1
			     * without a baseline, for exact outputs, and where the
			     * baseline's ratio is infinite */
	double cos, l1, rmse;
};

struct judge;
struct kjj_shape; /* a track's state for one binding */

/* One call as the judge saw it. */
struct kjj_call {
	struct kj_call_result res;
	double ms;      /* the time that goes into the verdict */
	double wall_ms; /* the judge's own bound on it (its clock, the trusted floor taken off) */
	int gap;        /* the worker's own time was below the judge's bound (work outside the
			 * timed stream, or a forged time): ms is the bound */
};

/* A train: calls back to back on fresh inputs each, timed as one by the
 * judge, so that its clock's noise is spread over reps calls. */
struct kjj_train {
	int reps;
	double bound_ms; /* the judge's bound on one call: the train's round trip less its trusted
			  * floor, over reps (the least over the timed passes) */
	double ms;       /* the time credited to one call: the least of the timed passes' event
			  * times that agree with their bound (less TRAIN_SLACK_FRAC and
			  * TRAIN_SLACK_MS/reps); bound_ms when none does */
	int gap;         /* none did: timing_gap */
	double loose_ms; /* the least the single timed calls' median may be (their regime is not
			  * the train's): bound_ms less TRAIN_REGIME_FRAC and the same slack */
	double spread;   /* (max - min) / min of the timed passes' times: what the speedup's
			  * interval is widened by (docs/verdict.md) */
};

/* One buffer of the judge's own that the reference cache copies (refcache.c). */
struct kjj_rcbuf {
	void *p;
	size_t bytes;
	int dev; /* 1: device memory of j->gpu; 0: host memory */
};
#define KJJ_RC_MAX_BUFS (3 * KJ_WIRE_MAX_ABI)

/* A track: how shapes, inputs, calls and comparisons are done on it. */
struct kjj_track {
	const char *name;
	/* 1: the worker is frozen between calls and the baseline is timed in
	 * the performance stage, after the candidate's samples, while it stays
	 * frozen (CPU); 0: the baseline is timed before the worker exists
	 * (CUDA: kjj_baseline_prepass) */
	int baseline_after_candidate;
	int (*shape_init)(struct judge *j, int bind, struct kjj_shape **out);
	void (*shape_free)(struct judge *j, struct kjj_shape *s);
	/* fresh inputs for (seed, flavour) into the judge's pristine copies */
	int (*gen)(struct judge *j, struct kjj_shape *s, uint64_t seed, kj_seed_flavour fl);
	/* NULL, or fresh inputs for a timed call (the declared distributions,
	 * drawn by a faster generator than gen's: not the CPU track's bits) */
	int (*gen_timed)(struct judge *j, struct kjj_shape *s, uint64_t seed);
	/* NULL, or the task's own example inputs (a KernelBench problem's
	 * get_inputs() values) into the judge's pristine copies: judged as one
	 * more seed after the drawn ones */
	int (*gen_problem)(struct judge *j, struct kjj_shape *s);
	/* the fp64 reference, and the eager baseline, on the current inputs */
	int (*run_ref)(struct judge *j, struct kjj_shape *s);
	int (*run_base)(struct judge *j, struct kjj_shape *s);
	/* inputs into the arena, outputs pre-filled (the NaN sentinel, or the
	 * rerun's bytes when garbage), the call, its time (timed: a call of the
	 * performance stage) */
	int (*call)(struct judge *j, struct kjj_shape *s, int garbage, int timed, struct kjj_call *c);
	/* *changed = 1 (verdict set) when an input differs from the pristine copy */
	int (*inputs_changed)(struct judge *j, struct kjj_shape *s, kj_stage sg, int bind, int *changed);
	/* the last call's outputs against the fp64 reference (record: as a check,
	 * with the baseline's own error beside); *bad = 1 when the verdict was set */
	int (*outputs)(struct judge *j, struct kjj_shape *s, int bind, int k, uint64_t seed,
		       kj_seed_flavour fl, kj_stage sg, double ms, int record, int *bad);
	/* the last call's outputs against the eager baseline's on the same inputs
	 * (run_base done), within a bound that any output passing the task's
	 * tolerance meets (stages.c: kjj_base_bound); *bad = 1 when set */
	int (*outputs_vs_base)(struct judge *j, struct kjj_shape *s, int bind, int it, int *bad);
	/* one timed run of the eager baseline on the current inputs */
	int (*time_base)(struct judge *j, struct kjj_shape *s, double *ms);
	/* NULL, or the baseline timed as a train of calls back to back on
	 * fresh inputs each, as the candidate's short calls are (call_ms: its
	 * single calls' median); *reps 0 when the calls are long enough alone;
	 * *spread the relative spread of its timed passes */
	int (*time_base_train)(struct judge *j, struct kjj_shape *s, double call_ms, double *ms, int *reps,
			       double *spread);
	/* the fp64 reference's cost on this shape, ms: decides how many timed
	 * calls are verified against it (all of them when cheap) */
	double (*ref_cost_ms)(struct judge *j, struct kjj_shape *s);
	/* before LOAD: what a timed call on this perf shape costs with nothing
	 * called, measured the way call() measures (NULL: the round trip of an
	 * empty call is the whole floor, as on the CPU track) */
	int (*probe_floor)(struct judge *j, int bind, double *ms);
	/* after a perf shape's samples (NULL: the samples are the judge's own
	 * clock, as on the CPU track): a trusted lower limit on one call's time
	 * where the per-call bound is too coarse for it (wall_ms: the median of
	 * the judge's per-call bounds).  tr->reps 0: no train was needed; *bad:
	 * the train's calls failed or its outputs were wrong (verdict set). */
	int (*train)(struct judge *j, struct kjj_shape *s, int bind, double wall_ms, struct kjj_train *tr,
		     int *bad);
	/* NULL (no reference cache on this track), or the buffers that hold
	 * what gen, run_ref and run_base leave for the correctness stage's
	 * call and comparisons: the pristine inputs in the task's dtypes, the
	 * reference's outputs and the baseline's; returns their count (at most
	 * cap), 0 where this shape's state is not all in buffers (nothing is
	 * cached), or a negative error */
	int (*ref_bufs)(struct judge *j, struct kjj_shape *s, struct kjj_rcbuf *b, int cap);
	/* after the cache wrote those buffers back: the rest of that state made
	 * from them, as gen and run_ref make it (the inputs widened into the
	 * executors' own) */
	int (*ref_restored)(struct judge *j, struct kjj_shape *s);
};

extern const struct kjj_track kjj_track_cpu;
extern const struct kjj_track kjj_track_cuda;
/* the CUDA baseline's identity: its harness and the hash of its sources */
void kjj_gpu_baseline_id(char *out, size_t len);

/* A candidate kind: kj_eval calls these at its steps, in this order.  Each
 * returns 0 to go on, 1 when it set the verdict (the sequence ends there,
 * at the single exit), or a negative error with j->err set; a NULL hook is
 * skipped.  Whatever a hook acquires lives in j->cand_state (or j->py) and
 * is freed by release, which the exit calls whether or not init ran to its
 * end. */
struct kjj_cand {
	const char *name;
	/* 1: the worker's memory map after a call says which libraries the
	 * candidate brought in (stages.c: kjj_check_mapped_libs); 0: the
	 * interpreter maps torch's own, and after_stage asks instead */
	int maps_check;
	/* the harness's own time per call of a train, beyond what the trusted
	 * train floor measured (the CUDA track's train slack) */
	double train_call_ms;
	/* the kind's state into j->cand_state; may point j->o at j->opts, a
	 * copy with its own watchdog; sets j->load_timeout_s */
	int (*init)(struct judge *j);
	/* before the device is opened: checks that need none, so that a verdict
	 * or a missing tool is said without a GPU (Python: the probe, the
	 * static check) */
	int (*precheck)(struct judge *j, const char *src, size_t len);
	/* after the device and the task's ABI: static checks, compile or build,
	 * checks of the binary; sets j->load_path */
	int (*prepare)(struct judge *j, const char *src, size_t len);
	/* the worker's path, argv, jail and file-size limit, over the common
	 * options judge.c filled */
	int (*worker_opts)(struct judge *j, struct kj_worker_opts *wo);
	/* instead of judge.c's start and SETUP: the worker (j->w, worker_up,
	 * j->scratch) and SETUP's reply in res (Python: a pre-warmed worker) */
	int (*start_worker)(struct judge *j, struct kj_call_result *res);
	/* before each timing phase (the baseline's prepass, the performance
	 * stage): waits for what the kind starts beside the judge (Python:
	 * the next pre-warmed worker) */
	void (*quiesce)(struct judge *j);
	/* after the trusted floor, before LOAD (Python: the next candidate's
	 * worker starts) */
	void (*after_floor)(struct judge *j);
	/* a SETUP or LOAD reply that says the environment lacks something: the
	 * judge's error (< 0), not a verdict; 0 otherwise */
	int (*env_error)(struct judge *j, const struct kj_call_result *res);
	/* after a successful SETUP, before LOAD: the kind's own checks of the
	 * worker (Python: its seccomp filter on every thread) */
	int (*post_setup)(struct judge *j);
	/* a LOAD or CALL reply that names its own verdict (Python: compile
	 * errors and rejections found at import): 1 when set, else 0 */
	int (*map_error)(struct judge *j, const struct kj_call_result *res);
	/* after the correctness and the performance stage (Python: whether
	 * torch operators ran inside the calls) */
	int (*after_stage)(struct judge *j);
	/* frees j->cand_state (and whatever the hooks left in it) */
	void (*release)(struct judge *j);
};

extern const struct kjj_cand kjj_cand_c;  /* cand_c.c: C (CPU track) and CUDA C++ sources */
extern const struct kjj_cand kjj_cand_py; /* cand_py.c: --backend triton | kernelbench */

struct kjj_base_time {
	int have;
	double ms, iqr_ms; /* single calls */
	int n;
	double train_ms;   /* per call of its train (train_reps > 0) */
	int train_reps;
	double train_spread; /* (max - min) / min of the train's timed passes, 0 unknown */
	double *xs;        /* the single calls' times in the order taken, for the speedup's
			    * interval (owned, freed by kjj_gpu_release); NULL: a cache entry
			    * written before they were kept */
	int nxs;
};

struct kjj_cand;

struct judge {
	const kj_task *t;
	const struct kj_eval_opts *o; /* the caller's, or the kind's copy (opts) */
	struct kj_eval_opts opts;     /* a kind's own options (cand_py.c: a longer watchdog) */
	kj_verdict *v;
	const struct kjj_track *track;
	const struct kjj_cand *cand;  /* the candidate's kind; NULL outside kj_eval */
	void *cand_state;             /* the kind's own state, owned by cand->release */
	int unconfined;               /* no jail, no seccomp (--unsafe-no-sandbox, KJUDGE_PROFILE=1) */
	char scratch[4096];           /* the worker's /scratch, "" none yet */
	int scratch_own;              /* scratch came with a pre-warmed worker: removed at the
				       * end even when the caller named its own (o->scratch_dir) */
	/* the profile (profile.c): track is prof_track, which times each of
	 * inner's functions into v->prof_s; the stack gives self times */
	const struct kjj_track *inner;
	struct kjj_track prof_track;
	int prof_depth;
	kj_prof prof_stack[8];
	double prof_self[8];   /* each open part's self time so far (KJ_PROF_LOG) */
	double prof_mark;
	const char *prof_log;  /* $KJ_PROF_LOG, read by kjj_prof_track, or NULL */
	struct kj_worker w;
	int worker_up;
	const char *load_path; /* what LOAD loads (the object, or the Python candidate) */
	int load_nptr;
	double load_timeout_s;
	struct kjj_py *py;     /* the Python kind's state (in j->cand_state), else NULL */
	int64_t floor_ns;      /* trusted round trip of an empty call, measured before LOAD */
	struct kj_err *err;
	/* baseline times measured before the worker started (CUDA), per perf shape */
	struct kjj_base_time base[PERF_MAX_SHAPES];
	/* the eager baseline's distance from the reference on each perf shape
	 * and output (by output ordinal), the largest over the correctness
	 * stage's declared-distribution seeds: its L2 norm over finite elements
	 * and its count of non-finite disagreements; for the cheap check's
	 * bound (kjj_base_bound) */
	double base_l2[PERF_MAX_SHAPES][KJJ_MAX_OUTPUTS];
	int64_t base_nf[PERF_MAX_SHAPES][KJJ_MAX_OUTPUTS];
	/* the eager baseline's distances per binding, output ordinal and seed
	 * flavour, the largest over the correctness stage's seeds: the budget
	 * of a comparison made without the baseline on the same inputs (the
	 * determinism rerun, the timed calls).  nbind x KJJ_MAX_OUTPUTS x
	 * KJJ_FLAVOURS, owned; NULL outside kj_eval */
	struct kjj_base_dist *bdist;
	/* CPU track */
	size_t arena_size;
	/* CUDA track */
	kj_gpu *gpu;
	void *garena;
	size_t garena_size;
	void *snap;            /* the judge's copy of the outputs at the reply */
	size_t snap_size;
	double floor_ms[PERF_MAX_SHAPES]; /* a timed call with nothing called, per perf shape,
					   * measured before LOAD (probe_floor) */
	/* a train's trusted floor on that shape, also measured before LOAD:
	 * train_a_ms for the exchange, train_b_ms more for each call after
	 * the first (the harness's own work per call) */
	double train_a_ms[PERF_MAX_SHAPES], train_b_ms[PERF_MAX_SHAPES];
	int cur_perf;          /* the perf shape being timed, -1 outside the performance stage */
	uint64_t rc_eval;      /* this evaluation's number for the reference cache, 0 before its
				* first use: entries it used are not evicted for it */
	struct kjj_kbref *kbref; /* a KernelBench problem file's reference worker (ref_kb.c), or NULL */
	const kj_calib *calib; /* NULL when the device has none */
};

double kjj_now_s(void);
/* The profile: kjj_prof_track wraps j->track so that every track function
 * is timed; begin/end bracket the judge's own parts (nesting: the inner
 * part's time is taken off the outer's); kjj_prof_finish puts the rest of
 * v->total_s in "other". */
void kjj_prof_track(struct judge *j);
void kjj_prof_begin(struct judge *j, kj_prof p);
void kjj_prof_end(struct judge *j);
void kjj_prof_finish(struct judge *j);
/* A random draw the candidate cannot reproduce (getrandom). */
uint32_t kjj_fresh_random(void);
int kjj_is_output(const kj_task *t, int vi);
/* Whether an output with these errors passes the declared tolerance alone:
 * every element within tolerance, or the task's metrics (cosine, L1, RMSE,
 * also set here) for a metric task's float output. */
int kjj_metric_pass(const kj_task *t, const struct errstat *st, double *cosv, double *l1,
		    double *rmse);
/* The baseline's distances from its errstat (bst). */
void kjj_base_dist_of(const struct errstat *bst, struct kjj_base_dist *bd);
/* Judges an output (st) with the error budget of the baseline's distances
 * (bd; NULL or !bd->have: the declared tolerance alone), docs/verdict.md.
 * Fills *out; returns out->pass. */
int kjj_judge_output(const kj_task *t, const struct errstat *st, const struct kjj_base_dist *bd,
		     struct kjj_judged *out);
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
/* The arena's layout for a binding, the same on every track: the ABI's
 * values (abi, nabi of them) in order, each at a 256-byte aligned offset
 * (an empty tensor still takes a slot), their sizes in bytes, the arena's
 * size, and the binding's dims.  Returns nabi, or an error (a task with
 * more tensors or dims than a call carries). */
int kjj_layout(struct judge *j, int bind, const kj_plan *plan, int *abi, uint64_t *off, size_t *bytes,
	       size_t *arena, int64_t *dims);
/* The index of bind among the track's perf shapes, or -1. */
int kjj_perf_index(struct judge *j, int bind);
/* The baseline's distances kept for (bind, output value vi, flavour) in
 * j->bdist, or NULL (none kept: outside kj_eval, or past KJJ_MAX_OUTPUTS). */
struct kjj_base_dist *kjj_bdist(struct judge *j, int bind, int vi, kj_seed_flavour fl);
int kjj_record_output(struct judge *j, int bind, int k, uint64_t seed, kj_seed_flavour fl,
		      kj_stage sg, double ms, int record, int vi, const kj_tinfo *ti,
		      const struct errstat *st, const struct errstat *bst);

/* The largest distance ||candidate - baseline||_2 that a candidate within
 * the task's tolerance of the reference can be from the eager baseline's
 * output, given the baseline's own distance from the reference measured in
 * the correctness stage (base_l2): the triangle inequality on the per-element
 * tolerance, with that measured distance counted four times over for the
 * seed-to-seed spread.  bn2 is ||baseline||_2, babs1 its L1 norm, n the
 * element count; bd the baseline's distances for the error budget, which
 * widens each limit as kjj_judge_output does (NULL: the declared tolerance
 * alone). */
double kjj_base_bound(const kj_task *t, kj_dtype dt, double n, double bn2, double babs1,
		      double base_l2, const struct kjj_base_dist *bd);

/* The stages (stages.c). */
int kjj_stage_correctness(struct judge *j);
int kjj_stage_perf(struct judge *j);
/* Times the eager baseline of every perf shape the cache does not hold,
 * before any worker of this candidate exists (the CUDA track). */
int kjj_baseline_prepass(struct judge *j);

/* Reads the worker's memory map after a call: a BLAS, LAPACK or vendor
 * library mapped however it was loaded flags fallback (or rejects under the
 * strict policy).  Returns 1 when the verdict was set. */
int kjj_check_mapped_libs(struct judge *j);

/* Calls fn(j, ctx, it, &rc) for it = 0, 1, ... (0 is a checked warm-up)
 * until the median of the samples settles within 0.5% (and within noise
 * when noise > 0; >= 10 samples, and >= min_n), the perf budget is spent or
 * the cap is reached.  fn returns a sample in ms, or < 0 to stop (verdict
 * set, or a judge error in rc): then -1 is returned. */
int kjj_timing_loop(struct judge *j, double (*fn)(struct judge *, void *, int, int *), void *ctx, int min_n,
		    double noise, double *samples, int *ns, int *stable, int *rc);

/* The speedups' intervals (perf_interval.c): each perf shape's timed
 * samples in the order taken, kept through the performance stage. */
struct kjj_perf_keep {
	double *cand, *base; /* owned; base NULL where j->base[pi] holds them (CUDA) */
	int ncand, nbase;
	double widen;        /* the trains' spreads, candidate's and baseline's in quadrature */
};
/* Copies n samples (the caller sorts its own afterwards): 0, or -1 out of memory. */
int kjj_keep_samples(double **into, int *nin, const double *xs, int n);
/* Sets speedup_lo, speedup_hi and noise_floor of every timed perf entry
 * (keep[i] for j->v->perf[i], i < j->v->nperf) and of the verdict
 * (scored[i]: the shape counts in the verdict's speedup).  Frees keep's
 * samples. */
void kjj_perf_intervals(struct judge *j, struct kjj_perf_keep *keep, const int *scored);
/* The stop rule of the timing loops: the median's relative ~95% half-width
 * (order statistics n/2 -+ 0.98 sqrt(n)) of n sorted samples. */
double kjj_median_halfwidth(const double *sorted, int n);
/* A baseline train's spread for the speedup's interval: the relative 95%
 * half-width of the median of its n sorted passes (0 when undefined). */
double kjj_passes_spread(const double *sorted, int n);

/* The CPU track's timing on one CPU (pin.c): the calling thread's affinity
 * narrowed to one of its CPUs (processes it starts inherit it), where the
 * system allows; returns the CPU, or -1 (nothing changed).  kjj_unpin
 * restores the saved mask. */
struct kjj_pin {
	int cpu;
	int saved; /* mask holds the affinity to restore */
	cpu_set_t mask;
};
int kjj_pin(struct kjj_pin *p);
void kjj_unpin(struct kjj_pin *p);

/* A KernelBench problem file's task (kj_task.kb, ref_kb.c): its reference
 * and eager baseline come from the problem's own Model in a trusted Python
 * reference worker, started at the first use.  kjj_kb_run: the inputs in
 * base's buffers, the float64 reference into ref's buffers (reference 1) or
 * the baseline's outputs into base's (0); kjj_kb_time_base: one baseline
 * forward timed by its CUDA events after the judge's L2 flush.  Each
 * returns 0 or the judge's error (the problem's code failing is one);
 * kjj_kb_release stops the worker and frees its arena (kjj_gpu_release). */
int kjj_kb_run(struct judge *j, const kj_plan *p, kj_gpu_exec *base, kj_gpu_exec *ref, int reference);
int kjj_kb_time_base(struct judge *j, const kj_plan *p, kj_gpu_exec *base, double *ms);
void kjj_kb_release(struct judge *j);
/* The problem's own get_inputs() values (drawn under its seed in the
 * reference worker) into base's input buffers.  Returns 0 or an error. */
int kjj_kb_problem_inputs(struct judge *j, const kj_plan *p, kj_gpu_exec *base);
/* The baseline as a train of *reps calls back to back on fresh inputs each
 * (gen(j, ctx, r): call r's inputs into base's buffers, enqueued), as the
 * candidate's short calls are timed: *ms per call (the median of its timed
 * passes), *spread their relative spread, *reps the calls it held (0: no
 * room, the single calls stand).  Returns 0 or the judge's error. */
int kjj_kb_time_train(struct judge *j, const kj_plan *p, kj_gpu_exec *base, int *reps,
		      int (*gen)(struct judge *, void *, int), void *ctx, double *ms, double *spread);
/* The Python interpreter ($KJ_PYTHON, else python3 on PATH) and the worker
 * script (cand_py.c), for the kinds and for ref_kb.c and kbprob.c; and a
 * program run with its stdout captured (capped), stderr discarded, killed
 * after timeout_s.  Each returns 0 or an error with err set. */
int kjj_py_find_python(char *out, size_t len, struct kj_err *err);
int kjj_py_find_worker(const struct kj_eval_opts *o, char *out, size_t len, struct kj_err *err);
int kjj_run_capture(char *const argv[], double timeout_s, char *out, size_t cap, int *status, struct kj_err *err);

/* CUDA track helpers (judge_gpu.c). */
void kjj_gpu_release(struct judge *j);
/* What the baseline's bytes on a binding depend on, as text: the harness
 * and baseline sources' versions, the task file's sha256, the binding, the
 * device's uuid ("?" without one) and the knobs.  The baseline-timing
 * cache's key and the reference cache's.  Returns 0, or -1 (the task file
 * cannot be read, or a knob is invalid). */
int kjj_baseline_key_text(struct judge *j, int bind, char *out, size_t len);

/* The reference cache (refcache.c): the state after the correctness
 * stage's gen, run_ref and run_base on (task, binding, seed, flavour), kept
 * across the candidates of a process in device memory (the CUDA track, per
 * context, freed when it closes), then host memory, each within a budget
 * (docs/verdict.md, "The reference cache"); what does not fit is computed
 * again.  Filled only from the judge's own computation before the
 * candidate's call; timed calls' inputs are never cached.
 * kjj_inputs_ref_base does gen, run_ref and run_base, or copies their
 * result back from the cache; returns 0 or a negative error (j->err). */
int kjj_inputs_ref_base(struct judge *j, struct kjj_shape *s, int bind, uint64_t seed, kj_seed_flavour fl);
/* A baseline train's buffer: *reps copies of stride bytes on the device,
 * halving *reps while the device is out of memory; *reps < 2 (nothing
 * allocated) when not even two fit.  Returns 0 (then *mem is the buffer
 * when *reps >= 2), or an error other than the device's (judge_gpu.c). */
int kjj_alloc_train(struct judge *j, size_t stride, int *reps, void **mem);
/* Baseline-timing cache (judge_gpu.c). */
int kjj_baseline_load(struct judge *j, int bind, struct kjj_base_time *b);
void kjj_baseline_store(struct judge *j, int bind, const struct kjj_base_time *b);

/* The Python kind (cand_py.c): triton and kernelbench candidates run in
 * python/kjudge_pyworker.py, then through the CUDA track's stages; its
 * functions below are kjj_cand_py's hooks' parts (test_pybuild calls
 * kjj_py_build alone). */
struct kjj_py {
	char python[4096];  /* the interpreter */
	char worker[4096];  /* kjudge_pyworker.py */
	char cand[4400];    /* the candidate's source, content-addressed in the cache */
	char cache[4096];   /* the cache folder */
	char build[4400];   /* this candidate's own build cache (Triton, torch extensions) */
	char info[256];     /* "python 3.12.3, torch 2.11.0, triton 3.6.0" */
	char *abi;          /* the ABI as JSON, owned */
	char filter[4400];  /* the seccomp filter's BPF (content-addressed in the cache), "" unconfined */
	char uses[32];      /* what the source names, for the build step's warm-up: "triton,inline" */
	struct kj_pypool *own_pool; /* kj_eval's own pre-warmed worker when the caller gave no
				     * pool (o->pypool), owned */
	char arch_list[32]; /* TORCH_CUDA_ARCH_LIST for the build step ("9.0+PTX"), "" none */
	int cpu_only;       /* the build step without the GPU: the compile-ahead's import
			     * (load_inline's nvcc), no warm-up (kj_py_prebuild) */
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
/* The build step (cand_py.c), before the timed worker starts: the candidate
 * is imported in its own jail with exec allowed (load_inline builds there)
 * and called once on each shape the judge will call (Triton compiles every
 * specialisation), writing only to its build folder (<cache>/pybuild/, keyed
 * by the source's sha256, so a second judgement reuses it).  cuda_uuid: the
 * GPU it may use.  A build error is the verdict compile_error (the
 * compiler's message, the candidate's line); anything else is left to the
 * timed process.  Its time is the compile stage's.  Returns 0 to go on, 1
 * when a verdict was set, or a negative error (the judge's). */
int kjj_py_build(struct judge *j, struct kjj_py *py, const char *cuda_uuid, int unconfined);
/* After SETUP, before LOAD: the judge's own check that the worker's every
 * thread runs under the seccomp filter (/proc/PID/task/<tid>/status).
 * Returns 0, or KJ_E_WORKER with err set (the candidate is not loaded). */
int kjj_py_filter_check(struct judge *j);
/* Maps the Python worker's "compile error: " and "rejected: " replies to
 * their verdicts; 1 when it set one. */
int kjj_py_map_error(struct judge *j, const struct kj_call_result *r);
/* Asks the worker (a NOP) whether torch operators ran inside the candidate's
 * calls: flags fallback, or rejects under the strict policy.  Returns 0 or
 * a judge error. */
int kjj_py_fallback_query(struct judge *j);

/* ---- pre-warmed Python workers (pypool.c; struct kj_pypool, judge.h) ---- */

/* What a spare is started as: nothing of a task's or a candidate's. */
struct kjj_spare_recipe {
	char python[4096];  /* the interpreter as found (kjj_py_find_python) */
	char worker[4096];  /* kjudge_pyworker.py, host path */
	char filter[4400];  /* the seccomp filter's BPF in the cache, "" when unconfined */
	char uuid[96];      /* the device's "GPU-..." (the worker sees it alone), "" none */
	kj_backend backend;
	int device, unconfined, trace;
};

struct kjj_spare {
	struct kj_worker w;          /* started, SETUP sent (setup: its reply), unless rc */
	struct kj_call_result setup;
	int rc;                      /* 0, or the start's error (err) */
	struct kj_err err;
	char scratch[4096];          /* its own scratch folder (host path), made for it */
	char abi_host[4200];         /* where the judge writes the task's ABI (in scratch) */
	char cache_host[4200];       /* its Triton and torch extension caches (in scratch) */
	double start_s;              /* its start-up: process, imports, context (seconds) */
	struct kjj_spare_recipe r;
	struct kjj_spare *next;
};
/* Stops the spare's worker (unless moved out: sock and pid cleared),
 * removes its scratch folder (unless moved out: "") and frees it. */
void kjj_spare_free(struct kjj_spare *s);
/* Hands a taken spare (its SETUP answered) its task and its candidate's
 * build caches: abi (the ABI's JSON) into s->abi_host, which the worker reads
 * at its next request, and a copy of the folder build (may be NULL) into
 * s->cache_host, its cache folder: folders and regular files, never
 * following a link, without objects (*.o: the worker loads the built
 * extension, it never links), at most 2 GiB and 50000 entries (the build
 * step's candidate chose the folder's size), handed to the sandbox's uid
 * when the jail drops to one (torch takes a lock file in an extension's
 * folder).
 * Returns 0 or an error. */
int kjj_spare_hand_over(struct kjj_spare *s, const char *abi, const char *build, struct kj_err *err);
/* Asks the pool's thread to keep its spares warm as r (spares of another
 * recipe are dropped).  Returns at once: 0, or -1 when the thread cannot
 * start. */
int kjj_pypool_fill(struct kj_pypool *p, const struct kjj_spare_recipe *r);
/* Takes a spare started as r, waiting for one (started now when none is
 * ready or warming); one that died while it waited is dropped and another
 * started.  The pool does not refill itself (kjj_pypool_fill does).  Returns
 * 0 with *out (check its rc), or an error. */
int kjj_pypool_take(struct kj_pypool *p, const struct kjj_spare_recipe *r, struct kjj_spare **out,
		    struct kj_err *err);
/* Waits until no spare is starting (nor asked for and not begun): the
 * timing phases run beside idle spares only.  Returns the seconds waited. */
double kjj_pypool_quiesce(struct kj_pypool *p);
/* For tests: spares ready and starting, spares started since the pool was
 * made; the host pid of the oldest ready spare's worker (0 none). */
void kjj_pypool_count(struct kj_pypool *p, int *ready, int *warming, long *started);
pid_t kjj_pypool_peek(struct kj_pypool *p);

#endif
