/*
 * Scores of a run: the metrics of KernelBench (fast_p, fast_p@k, fast_p@N),
 * KernelBench-X (compile/call/correct rates, Correct/Compile, IOU, MFU, error
 * classes, code metrics, attribution by logistic deviance, cross-GPU ratios,
 * (error, correction) and (slow, fast) pairs) and Atrex-Bench (S_agg over
 * weighted shapes, fallback rate), computed from the results store.
 * docs/scores.md defines every figure.
 *
 * Three layers: plain formulas on numbers (kj_score_pass_at_k, ...), a
 * loader that reads one run from a store database opened read-only
 * (kj_score_load), and the summary of a loaded run (kj_score_summarise).
 * Unknown figures are NAN (no denominator, nothing timed, no calibration).
 *
 * Ownership: kj_score_load allocates a kj_score_run that kj_score_run_free
 * releases with every string in it.  kj_score_summarise fills a caller's
 * kj_score_summary; kj_score_summary_release frees what it holds.  Pairs and
 * compare results point into the runs they were computed from and must not
 * outlive them.  Functions that can fail return 0 or a negative KJ_E_* code
 * with a message in *err.
 *
 * Layer: score.  It may use core, verdict and store (runs are read through
 * kj_store_read_run), never the judge.
 */
#ifndef KJUDGE_SCORE_H
#define KJUDGE_SCORE_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/err.h"

/* The thresholds p of fast_p, and their JSON keys ("0", "0.5", ...). */
#define KJ_SCORE_NP 6
extern const double kj_score_p[KJ_SCORE_NP];
extern const char *const kj_score_p_key[KJ_SCORE_NP];

/* ---- formulas ---------------------------------------------------------- */

/* The unbiased pass@k estimator over n samples with c successes:
 * 1 - C(n-c, k) / C(n, k).  With k > n the best of all n samples counts:
 * 1 when c > 0, else 0.  NAN when n <= 0 or k <= 0. */
double kj_score_pass_at_k(int n, int c, int k);
/* exp(mean(log x)) over the positive finite x; NAN when there is none. */
double kj_score_geomean(const double *x, size_t n);
/* The median of the finite x (mean of the middle two); NAN when none. */
double kj_score_median(const double *x, size_t n);
/* KernelBench's fast_p over n items: the share with correct[i] and
 * speedup[i] > p (a NAN speedup is not fast).  NAN when n == 0. */
double kj_score_fast_p(const int *correct, const double *speedup, size_t n, double p);
/* One candidate's roofline score on one task: sum_i w_i S_i / sum_i w_i with
 * S_i = sol_ms[i] / ms[i], 0 when !correct, when a value is unknown or when
 * the shape ran below T_sol (not scored).  Weights NAN or all zero: equal.
 * NAN when n == 0 and correct (nothing to score). */
double kj_score_task_sol(const double *w, const double *sol_ms, const double *ms, size_t n,
			 int correct);
/* True when a correct kernel became faster beyond timing noise: after /
 * before - 1 > max(0.05, 3 * rel_iqr).  False when a value is unknown. */
int kj_score_is_optimisation(double before, double after, double rel_iqr);

/* Logistic regression of y (0/1) on one categorical factor (group[i] in
 * [0, ngroups)), fitted by IRLS with an intercept and ngroups - 1 dummies.
 * *dev gets the fitted deviance, *null_dev the intercept-only deviance.
 * Returns 0, KJ_E_USAGE (bad group index) or KJ_E_NOMEM. */
int kj_score_logit_deviance(const int *y, const int *group, size_t n, int ngroups, double *dev,
			    double *null_dev, struct kj_err *err);
/* 1 - dev / null_dev; NAN when null_dev is 0 (y constant) or n == 0. */
double kj_score_deviance_explained(const int *y, const int *group, size_t n, int ngroups);

/* Code metrics of one source, as KernelBench-X reports them. */
struct kj_code_metrics {
	int lines;          /* non-blank lines holding code */
	int comment_lines;  /* lines holding (part of) a comment */
	int blank_lines;
	int cyclomatic;     /* 1 + if/for/while/case tokens + && + || + ?, outside
			       comments, strings and preprocessor lines */
	double comment_ratio; /* comment_lines / non-blank lines (0 when none) */
};
void kj_score_code_metrics(const char *src, size_t len, struct kj_code_metrics *m);

/* ---- a run loaded from the store ----------------------------------------- */

struct kj_score_shape {
	double weight, ms, iqr_ms, speedup, sol_ms, sol_frac, iou, mfu, flops, bytes; /* NAN: unknown */
};

/* The KernelBench problem a task mirrors, as its `about` names it:
 * "... (KernelBench L1 #19_ReLU)" is level 1, problem 19, name "19_ReLU"
 * (the stem of KernelBench's file).  level 0: the task names none.
 * kj_kernelbench_origin (include/kjudge/report.h) reads it. */
struct kj_kb_origin {
	int level, problem;
	char name[128];
};

struct kj_score_cand {
	int64_t id, parent_id;                /* parent_id 0: none */
	char *task, *model, *method, *sha256, *path, *source;
	char *category, *dtype;               /* from the tasks table ('' unknown) */
	int level, sample, round;
	int judged;                           /* has a verdict */
	int compiled, call_ok, correct, fallback;
	char *status, *stage, *reason, *flags; /* '' when not judged */
	char *judged_at;                      /* '' when not judged */
	int no_perf;                          /* judged without timing (--no-perf) */
	double speedup;                       /* NAN when not timed */
	double speedup_lo, speedup_hi;        /* its 95% interval; NAN when the verdict has none
					       * (judged before intervals, or not timed) */
	double noise_floor;                   /* the verdict's noise floor; NAN unknown */
	int strict;                           /* set by kj_score_strict_intervals: fast_p compares
					       * speedup_lo with p, not speedup */
	double rel_iqr;                       /* max over shapes of iqr_ms / ms, 0 unknown */
	double base_rel_iqr;                  /* the same of the baseline's times; NAN unknown */
	double sol;                           /* sum w sol_frac / sum w over shapes; NAN unknown */
	struct kj_code_metrics code;
	struct kj_score_shape *shapes;
	int nshapes;
	struct kj_kb_origin kb;               /* level 0 unless the caller names it (kjudge
						 report reads each task's about) */
};

/* The current calibration of a device the run's verdicts used. */
#define KJ_SCORE_MAX_RATES 8
struct kj_score_roof {
	char device[128];
	char created[40]; /* when the calibration was measured */
	double copy_gbs; /* NAN unknown */
	int nrates;
	char rate_name[KJ_SCORE_MAX_RATES][16];
	double rate_tflops[KJ_SCORE_MAX_RATES];
};

/* A device the run's verdicts were measured on. */
struct kj_score_device {
	char name[128], uuid[96], arch[32];
	int verdicts;
};

/* What the run's verdicts say of the judge and the GPU (from each verdict's
 * kjudge_version, baseline_id and gpu_state): distinct values are counted,
 * the first kept; -1 where no verdict said. */
struct kj_score_judge_state {
	char version[64];
	int versions;          /* distinct kjudge versions among the verdicts */
	char baseline_id[96];
	int baseline_ids;      /* distinct baseline ids (GPU backends) */
	int math_strict, math_tf32; /* verdicts whose speedups are against a strict f32 or a TF32
	                               baseline (baseline_math; a task's `tf32 allowed`) */
	int readings;          /* verdicts with a GPU state at their start and end */
	int drift;             /* verdicts flagged gpu_drift */
	char drift_why[256];   /* the first one's reason */
	char driver[48];
	int drivers;
	int temp_min, temp_max;               /* over every reading, C */
	int power_limit_min, power_limit_max; /* W */
	int app_sm_min, app_sm_max;           /* SM application clock, MHz */
};

typedef struct kj_score_run {
	int64_t id;
	char *name, *backend, *created, *db_path;
	/* the run's manifest as the store recorded it at its first `kjudge run`:
	   the SPEC, the settings (a JSON object text) and the kjudge version */
	char *spec, *settings, *version;
	char *first_judged, *last_judged;   /* '' when nothing is judged */
	int schema_version;                 /* the store's PRAGMA user_version */
	int verdict_settings;               /* distinct verdict settings (cache keys) */
	struct kj_score_cand *c; /* in candidate id order */
	size_t n;
	struct kj_score_roof *roofs;
	int nroofs;
	struct kj_score_device *devices;
	int ndevices;
	struct kj_score_judge_state js;
	int strict_intervals;   /* kj_score_strict_intervals was applied */
	int no_interval;        /* then: correct, timed candidates whose verdict has no interval
				 * (none of them counts as fast) */
} kj_score_run;

/* Reads run `run` from the store at db_path (a SQLite file or a
 * postgresql:// URL) through the store's API, opened read-only
 * (kj_store_open_readonly), with no migration and no write of any kind: a
 * SQLite store on read-only media or in a folder the caller cannot write is
 * read as an immutable file.  r->db_path is db_path without a URL's password.
 * Returns 0 with *out set, KJ_E_IO (cannot open, not a kjudge store),
 * KJ_E_NOTFOUND ("no run 'x' in FILE") or KJ_E_NOMEM. */
int kj_score_load(const char *db_path, const char *run, kj_score_run **out, struct kj_err *err);
void kj_score_run_free(kj_score_run *r);

/* --strict-intervals (docs/scores.md): fast_p, fast_p@k, fast_p@N and their
 * weighted forms count a candidate as faster than p only when its speedup's
 * whole interval is (speedup_lo > p); one without an interval does not
 * count.  Call before kj_score_summarise and kj_score_weigh. */
void kj_score_strict_intervals(kj_score_run *r);
/* What fast_p compares with p: speedup, or speedup_lo when c->strict. */
double kj_score_fast_speedup(const struct kj_score_cand *c);

/* Whether two timings of the same candidate differ beyond their noise: the
 * speedups' intervals separate (kj_interval_separate).  0 when either has
 * no interval. */
int kj_score_significant(const struct kj_score_cand *a, const struct kj_score_cand *b);

/* ---- the summary of a run ---------------------------------------------- */

/* The figures of one slice of a run (all of it, a level, a category...). */
struct kj_score_group {
	char *key;
	int tasks;        /* (model, task) items: fast_p's denominator */
	int candidates, judged, compiled, call_ok, correct;
	int timed;        /* correct candidates with a speedup */
	int untimed;      /* judged candidates judged without timing (--no-perf) */
	double compile_rate, call_rate, correct_rate; /* over candidates */
	double correct_per_compile;
	double fast_p[KJ_SCORE_NP]; /* NAN when the slice was not timed (not_timed) */
	int not_timed;          /* correct candidates, or judged ones, and none timed */
	double speedup_geomean; /* over correct candidates with a speedup */
	int speedups;
	double sol_frac_median, iou_median, mfu_median; /* over shapes of correct candidates */
	double s_agg;
	double fallback_rate;   /* correct and flagged fallback / correct */
	/* per-model groups only (by_model); NULL elsewhere, owned by the group */
	int max_k, n_rounds;
	double (*fast_p_at_k)[KJ_SCORE_NP]; /* [k - 1][p] */
	double (*fast_p_at_n)[KJ_SCORE_NP]; /* [round][p] */
};

struct kj_score_count {
	char *name;
	int count;
};

/* Consecutive rounds (n, n+1) of one (model, task, sample), both judged. */
struct kj_score_fvo {
	int pairs, fixes, optimisations, regressions, unchanged_pass, unchanged_fail;
};

struct kj_score_code_side {
	int n;
	double lines, cyclomatic, comment_ratio; /* means; NAN when n == 0 */
};

typedef struct kj_score_summary {
	struct kj_score_group all;
	struct kj_score_group *by_level, *by_category, *by_dtype, *by_model;
	int n_level, n_category, n_dtype, n_model;
	int max_k;                            /* samples per item at its first round */
	double (*fast_p_at_k)[KJ_SCORE_NP];   /* [k - 1][p] */
	int n_rounds;                         /* rounds 0 .. n_rounds - 1 */
	double (*fast_p_at_n)[KJ_SCORE_NP];   /* [round][p] */
	struct kj_score_count *status, *stage;
	int n_status, n_stage, pending;
	struct kj_score_fvo fvo;
	struct kj_score_code_side code_correct, code_incorrect;
	int attribution_n;
	double attribution_category, attribution_model; /* deviance explained */
	double *speedups;                     /* of correct candidates, for histograms */
	size_t n_speedups;
	/* set by the caller (kjudge report --weights), NULL otherwise; owned by
	   the summary: kj_score_summary_release frees it and its source */
	struct kj_score_weighted *weighted;
} kj_score_summary;

/* ---- importance weights of a trace-driven suite (docs/suites.md) ---------- */

struct kj_score_weights {
	char **task;   /* task names (the last component of a task id) */
	double *w;     /* their weights, >= 0 */
	size_t n;
	char *source;  /* where they came from (a manifest path) */
};
void kj_score_weights_release(struct kj_score_weights *w);

/* The run's figures with each (model, task) item weighted by its task's
 * importance weight instead of equally. */
struct kj_score_weighted {
	char *source;
	int items, tasks_weighted, tasks_unweighted; /* tasks of the run with / without a weight */
	double coverage;    /* suite weight of the tasks the run judged / the suite's total */
	double s_agg;       /* sum_i W_i S_i / sum_i W_i over items; NAN without T_sol */
	double fast_p[KJ_SCORE_NP];
	double correct_rate;   /* item weight of first-round correct samples */
	double speedup_geomean; /* exp(sum W log s / sum W) over correct candidates */
};

/* Computes the weighted figures of r (candidates whose task has no weight are
 * left out and counted in tasks_unweighted).  Returns 0 or KJ_E_NOMEM. */
int kj_score_weigh(const kj_score_run *r, const struct kj_score_weights *w,
		   struct kj_score_weighted *out, struct kj_err *err);

/* Computes every figure of r.  Returns 0 or KJ_E_NOMEM. */
int kj_score_summarise(const kj_score_run *r, kj_score_summary *s, struct kj_err *err);
void kj_score_summary_release(kj_score_summary *s);

/* ---- pairs across rounds ---------------------------------------------------- */

enum kj_pair_kind { KJ_PAIR_FIX, KJ_PAIR_SPEEDUP };
struct kj_score_pair {
	enum kj_pair_kind kind;
	const struct kj_score_cand *before, *after;
};
/* The (error, correction) pairs (a fix: round n fails, n+1 passes) and the
 * (slow, fast) pairs (an optimisation) of r, ordered by model, task, sample,
 * round.  *pairs (caller frees; may be NULL when *n == 0) point into r; fvo
 * (may be NULL) gets the whole classification.  Returns 0 or KJ_E_NOMEM. */
int kj_score_pairs(const kj_score_run *r, struct kj_score_pair **pairs, size_t *n,
		   struct kj_score_fvo *fvo, struct kj_err *err);

/* ---- two runs of the same candidates ----------------------------------------- */

struct kj_score_cmp_task {
	const char *task;   /* points into run a */
	int matched;        /* candidate pairs of this task */
	int both_correct;   /* pairs correct in both runs, timed or not */
	int both_timed;     /* of those, pairs with a speedup on both sides */
	int status_changed; /* pairs whose status differs */
	double speedup_a, speedup_b; /* geometric means over both_timed pairs */
	double ratio;       /* max / min of the two; NAN when both_timed == 0 */
	int with_intervals; /* both_timed pairs whose verdicts both carry an interval */
	int significant;    /* of those, pairs whose intervals separate (kj_score_significant):
			     * the only changes beyond the timing's noise */
	double lo_a, hi_a, lo_b, hi_b; /* the intervals of a task with one timed pair, else NAN */
};

struct kj_score_compare {
	struct kj_score_cmp_task *t; /* tasks of a with a match, sorted by name */
	size_t n;
	int matched, matched_by_sha, unmatched_a, unmatched_b, status_changed;
	int both_correct, both_timed; /* sums over tasks */
	int with_intervals, significant; /* sums over tasks */
	double median_ratio, worst_ratio; /* over tasks with a ratio */
	const char *worst_task;
};
/* Matches the candidates of a and b by (task, model, sample, round), then the
 * rest by (task, sha256), and compares their speedups per task.  Returns 0 or
 * KJ_E_NOMEM; kj_score_compare_release frees out's contents. */
int kj_score_compare_runs(const kj_score_run *a, const kj_score_run *b,
			  struct kj_score_compare *out, struct kj_err *err);
void kj_score_compare_release(struct kj_score_compare *c);

#endif
