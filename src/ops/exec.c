/* CPU executors of a bound task: see include/kjudge/exec.h. */
#include "kjudge/exec.h"

#include <stdlib.h>
#include <string.h>

double kj_round_to(kj_dtype t, double v)
{
	unsigned char tmp[8];
	kj_store(t, tmp, 0, v);
	return kj_load(t, tmp, 0);
}

static int alloc_bufs(const kj_plan *p, void ***bufs, size_t elsize, struct kj_err *err)
{
	const kj_task *t = p->task;
	void **b = calloc((size_t)t->nvals + 1, sizeof(*b));
	if (!b)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	for (int i = 0; i < t->nvals; i++) {
		size_t n = (size_t)kj_shape_numel(&p->vals[i].shape);
		b[i] = calloc(n ? n : 1, elsize);
		if (!b[i]) {
			for (int k = 0; k < i; k++)
				free(b[k]);
			free(b);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory for %zu elements of %s",
					  n, t->vals[i].name ? t->vals[i].name : "a temporary");
		}
	}
	*bufs = b;
	return 0;
}

static void free_bufs(const kj_plan *p, void **b)
{
	if (!b)
		return;
	for (int i = 0; i < p->task->nvals; i++)
		free(b[i]);
	free(b);
}

static int node_error(const kj_plan *p, int n, const char *msg, struct kj_err *err)
{
	const kj_node *node = &p->task->nodes[n];
	return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: %s", p->task->path, node->loc.line,
			  node->loc.col, msg);
}

int kj_exec64_init(kj_exec64 *x, const kj_plan *p, struct kj_err *err)
{
	int rc;
	x->plan = p;
	rc = alloc_bufs(p, (void ***)&x->buf, sizeof(double), err);
	if (rc)
		return rc;
	for (int i = 0; i < p->task->nvals; i++)
		if (p->task->vals[i].kind == KJ_V_CONST)
			x->buf[i][0] = p->task->vals[i].cval;
	return 0;
}

int kj_exec64_run(kj_exec64 *x, struct kj_err *err)
{
	const kj_plan *p = x->plan;
	const kj_task *t = p->task;
	for (int n = 0; n < t->nnodes; n++) {
		const kj_node *node = &t->nodes[n];
		const kj_bnode *bn = &p->nodes[n];
		const double *in[KJ_MAX_OPERANDS] = { 0 };
		char msg[512] = "";
		double *out = x->buf[node->out];
		for (int k = 0; k < bn->nin; k++)
			in[k] = node->in[k] >= 0 ? x->buf[node->in[k]] : NULL;
		if (bn->op->cpu64(bn, in, out, msg, sizeof(msg)))
			return node_error(p, n, msg[0] ? msg : "op failed", err);
		if (!kj_dtype_is_float(bn->out.dtype)) {
			int64_t m = kj_shape_numel(&bn->out.shape);
			for (int64_t i = 0; i < m; i++)
				out[i] = kj_round_to(bn->out.dtype, out[i]);
		}
	}
	return 0;
}

void kj_exec64_release(kj_exec64 *x)
{
	if (x->plan)
		free_bufs(x->plan, (void **)x->buf);
	memset(x, 0, sizeof(*x));
}

int kj_exec32_init(kj_exec32 *x, const kj_plan *p, struct kj_err *err)
{
	int rc;
	x->plan = p;
	rc = alloc_bufs(p, (void ***)&x->buf, sizeof(float), err);
	if (rc)
		return rc;
	for (int i = 0; i < p->task->nvals; i++)
		if (p->task->vals[i].kind == KJ_V_CONST)
			x->buf[i][0] = (float)p->task->vals[i].cval;
	return 0;
}

int kj_exec32_run(kj_exec32 *x, struct kj_err *err)
{
	const kj_plan *p = x->plan;
	const kj_task *t = p->task;
	for (int n = 0; n < t->nnodes; n++) {
		const kj_node *node = &t->nodes[n];
		const kj_bnode *bn = &p->nodes[n];
		const float *in[KJ_MAX_OPERANDS] = { 0 };
		char msg[512] = "";
		float *out = x->buf[node->out];
		kj_dtype dt = bn->out.dtype;
		for (int k = 0; k < bn->nin; k++)
			in[k] = node->in[k] >= 0 ? x->buf[node->in[k]] : NULL;
		if (bn->op->cpu32(bn, in, out, msg, sizeof(msg)))
			return node_error(p, n, msg[0] ? msg : "op failed", err);
		if (dt != KJ_F32) {
			int64_t m = kj_shape_numel(&bn->out.shape);
			if (dt == KJ_F16)
				for (int64_t i = 0; i < m; i++)
					out[i] = kj_f16_to_f32(kj_f32_to_f16(out[i]));
			else if (dt == KJ_BF16)
				for (int64_t i = 0; i < m; i++)
					out[i] = kj_bf16_to_f32(kj_f32_to_bf16(out[i]));
			else
				for (int64_t i = 0; i < m; i++)
					out[i] = (float)kj_round_to(dt, out[i]);
		}
	}
	return 0;
}

void kj_exec32_release(kj_exec32 *x)
{
	if (x->plan)
		free_bufs(x->plan, (void **)x->buf);
	memset(x, 0, sizeof(*x));
}
