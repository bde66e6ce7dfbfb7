/*
 * Degeneracy lint for tasks.  A task whose outputs hardly depend on its
 * inputs lets a constant candidate pass the judge (a mean of a softmax, a
 * loss near zero, a tensor constant along an axis).  kj_lint_task() runs the
 * fp64 oracle on every check binding and every `bench cpu` binding (never
 * the GPU bench shapes) with inputs drawn as the judge draws them, and checks
 * each output for: variance across seeds, no constant axis and an RMS well
 * above the absolute tolerance; and that every input and param changes some
 * output when it alone is redrawn.  Each
 * check is judged over all linted bindings together, so a tiny check shape
 * (D=1, where a softmax is 1) does not fail a task on its own.
 *
 * Ownership: kj_lint_result holds fixed arrays; nothing to free.
 */
#ifndef KJUDGE_LINT_H
#define KJUDGE_LINT_H

#include <stdint.h>

#include "kjudge/err.h"
#include "kjudge/gpu.h"
#include "kjudge/task.h"

#define KJ_LINT_MAX_REASONS 16
#define KJ_LINT_REASON_LEN 192

typedef struct kj_lint_opts {
	uint64_t base_seed; /* seed k of the variance check is kj_seed_for(base_seed, k) */
	int seeds;          /* seeds for the variance check (>= 2; default 3) */
} kj_lint_opts;

typedef struct kj_lint_result {
	int nbind;    /* bindings linted */
	int nreasons; /* 0: the task passes */
	int truncated; /* more reasons than KJ_LINT_MAX_REASONS */
	char reason[KJ_LINT_MAX_REASONS][KJ_LINT_REASON_LEN];
} kj_lint_result;

void kj_lint_opts_init(kj_lint_opts *o);

/* Bench sizing of one GPU bench shape, estimated from the task's cost rules
 * and a calibration (no GPU needed): est_ms = sum over the eager baseline's
 * ops of max(FLOPs / matrix rate, op bytes / copy bandwidth), a lower bound
 * of the eager time; mem_bytes = what the judge holds on the device: every
 * value in the task's dtype (the baseline) and in fp64 (the reference), plus
 * the candidate's copies of its inputs and outputs.  Tasks of the serving/ and
 * trace/ suites keep their deployment shapes: only the memory limit applies
 * to them. */
typedef struct kj_sizing {
	int bind;         /* index into task->binds */
	double est_ms;
	double meas_ms;   /* the measured time from a kj_sizing_table, or -1 */
	double mem_bytes;
} kj_sizing;

/* Measured eager-baseline times per (task, bench shape), read from a
 * tab-separated file of `task<TAB>shape<TAB>ms` lines (`#` starts a comment
 * line), as bench/baseline_vs_torch.py --sizing-out writes it on the H200
 * (tasks/sizing_h200.tsv).  A shape is `NAME=VALUE` pairs separated by
 * spaces, in any order.  Where a task's bench shape has a measured time,
 * the sizing rule uses it instead of the estimate: the estimate is a lower
 * bound that some ops miss by far (a grouped, dilated transposed
 * convolution ran 28x its estimate in cuDNN and in PyTorch alike).  A shape
 * that changed has no entry and falls back to the estimate. */
typedef struct kj_sizing_table kj_sizing_table;

/* Loads the table at path into *out (owned by the caller: release with
 * kj_sizing_table_free).  A missing file gives an empty table.  Returns 0,
 * KJ_E_IO (unreadable), KJ_E_PARSE (a malformed line, named by path:line)
 * or KJ_E_NOMEM. */
int kj_sizing_table_load(const char *path, kj_sizing_table **out, struct kj_err *err);

/* The measured ms of (task, shape), or -1 when the table (which may be NULL)
 * has none. */
double kj_sizing_table_find(const kj_sizing_table *tb, const char *task, const char *shape);

/* Number of entries (0 for NULL). */
int kj_sizing_table_count(const kj_sizing_table *tb);

void kj_sizing_table_free(kj_sizing_table *tb);

#define KJ_SIZING_MIN_MS 1.0      /* shorter: launch overhead and timer noise dominate */
#define KJ_SIZING_MAX_MS 15.0     /* longer: a suite run takes hours */
#define KJ_SIZING_MAX_BYTES 40e9  /* leaves room for two evaluations on one 80 GB GPU */

/* Sizes every GPU bench shape of t (at most cap, filled into s); returns the
 * number sized (>= 0), or a negative KJ_E* code with err set when a shape
 * cannot be planned.  Reasons for shapes outside the limits above are
 * appended to r (which kj_lint_task may already hold).  meas (may be NULL)
 * supplies measured times that the time limits use in place of estimates. */
int kj_lint_sizing(const kj_task *t, const kj_calib *c, const kj_sizing_table *meas, kj_sizing *s,
		   int cap, kj_lint_result *r, struct kj_err *err);

/* H200 figures (kjudge calibrate on the H200 machine, 2026-11) for sizing
 * without a calibration of one's own. */
void kj_calib_h200(kj_calib *c);

/* Lints task t.  Returns 0 with *r filled (r->nreasons == 0 when the task
 * passes; reasons read "output y is constant along dim 1 (D)", "input b does
 * not change output y", ...), or a negative KJ_E* code with err set when the
 * oracle itself could not run (plan or executor failure, out of memory). */
int kj_lint_task(const kj_task *t, const kj_lint_opts *o, kj_lint_result *r, struct kj_err *err);

#endif
