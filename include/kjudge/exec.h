/*
 * Running a bound task on the CPU, node by node, with the registry's CPU
 * implementations.  Two executors share one shape: kj_exec64 is the oracle
 * (every value in double, no rounding except where the task's semantics
 * demand it: integer results truncate, casts round through their type) and
 * kj_exec32 is the CPU track's eager baseline (float buffers, and every node's
 * result rounded to its dtype, as an eager framework stores each op's output).
 *
 * Ownership: *_init allocates one buffer per value of the plan (buf[i] holds
 * numel elements; constants are pre-filled); the caller fills the buffers of
 * inputs and params, calls *_run any number of times, reads outputs from buf,
 * and calls *_release.  The plan must outlive the executor.
 */
#ifndef KJUDGE_EXEC_H
#define KJUDGE_EXEC_H

#include "kjudge/err.h"
#include "kjudge/task.h"

typedef struct kj_exec64 {
	const kj_plan *plan;
	double **buf;
} kj_exec64;

typedef struct kj_exec32 {
	const kj_plan *plan;
	float **buf;
} kj_exec32;

int kj_exec64_init(kj_exec64 *x, const kj_plan *p, struct kj_err *err);
int kj_exec64_run(kj_exec64 *x, struct kj_err *err);
void kj_exec64_release(kj_exec64 *x);

int kj_exec32_init(kj_exec32 *x, const kj_plan *p, struct kj_err *err);
int kj_exec32_run(kj_exec32 *x, struct kj_err *err);
void kj_exec32_release(kj_exec32 *x);

/* The value v rounded to what dtype t can hold (kj_store then kj_load). */
double kj_round_to(kj_dtype t, double v);

#endif
