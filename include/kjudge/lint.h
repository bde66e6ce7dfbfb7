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

/* Lints task t.  Returns 0 with *r filled (r->nreasons == 0 when the task
 * passes; reasons read "output y is constant along dim 1 (D)", "input b does
 * not change output y", ...), or a negative KJ_E* code with err set when the
 * oracle itself could not run (plan or executor failure, out of memory). */
int kj_lint_task(const kj_task *t, const kj_lint_opts *o, kj_lint_result *r, struct kj_err *err);

#endif
