/*
 * libFuzzer target for the task language: parses the bytes, and for a task
 * that parses, builds the plan of every binding, renders the prototypes and,
 * where every tensor of a binding is small, runs both CPU executors on
 * deterministic inputs.  Built and run by `make fuzz`.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/exec.h"
#include "kjudge/task.h"

/* Larger bindings are only planned: running them would measure the ops'
 * speed, not find bugs. */
#define SMALL_NUMEL 4096

static int plan_is_small(const kj_plan *p)
{
	for (int i = 0; i < p->task->nvals; i++)
		if (kj_shape_numel(&p->vals[i].shape) > SMALL_NUMEL)
			return 0;
	return 1;
}

/* A few distinct values per input, inside the bounds of its distribution so
 * that index-taking ops see valid indices as well as invalid ones. */
static double fill_value(const kj_plan *p, int v, int64_t i)
{
	const kj_dist *d = &p->dists[v];
	if (d->kind == KJ_DIST_RANDINT) {
		double span = d->b - d->a;
		return d->a + (double)(i % (span < 5 ? (int64_t)span : 5));
	}
	return (double)((i * 7 + 3) % 11 - 5) * 0.25;
}

static void run_plan(const kj_plan *p)
{
	const kj_task *t = p->task;
	kj_exec64 x64;
	kj_exec32 x32;
	struct kj_err err;
	if (kj_exec64_init(&x64, p, &err) == 0) {
		for (int v = 0; v < t->nvals; v++) {
			if (t->vals[v].kind != KJ_V_INPUT && t->vals[v].kind != KJ_V_PARAM)
				continue;
			for (int64_t i = 0; i < kj_shape_numel(&p->vals[v].shape); i++)
				x64.buf[v][i] = fill_value(p, v, i);
		}
		kj_exec64_run(&x64, &err);
		kj_exec64_release(&x64);
	}
	if (kj_exec32_init(&x32, p, &err) == 0) {
		for (int v = 0; v < t->nvals; v++) {
			if (t->vals[v].kind != KJ_V_INPUT && t->vals[v].kind != KJ_V_PARAM)
				continue;
			for (int64_t i = 0; i < kj_shape_numel(&p->vals[v].shape); i++)
				x32.buf[v][i] = (float)fill_value(p, v, i);
		}
		kj_exec32_run(&x32, &err);
		kj_exec32_release(&x32);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	kj_task *t = NULL;
	struct kj_err err;
	char buf[4096];
	int idx[64];
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (kj_task_parse(text, size, "fuzz.kt", &t, &err) == 0) {
		kj_task_prototype(t, 0, buf, sizeof(buf));
		kj_task_prototype(t, 1, buf, sizeof(buf));
		kj_task_abi_values(t, idx, 64);
		for (int b = 0; b < t->nbind; b++) {
			kj_plan p;
			kj_binding_str(t, &t->binds[b], buf, sizeof(buf));
			if (kj_plan_build(t, b, &p, &err))
				abort(); /* kj_task_parse built every plan once already */
			if (plan_is_small(&p))
				run_plan(&p);
			kj_plan_release(&p);
		}
		kj_task_free(t);
	}
	free(text);
	return 0;
}
