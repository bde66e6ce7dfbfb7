/*
 * The roofline's rates (include/kjudge/judge.h): which calibrated peak a
 * task's plan can reach, from its matrix-unit ops and their dtypes.
 */
#include <string.h>

#include "kjudge/judge.h"

static int matrix_unit_op(const char *name)
{
	static const char *const ops[] = { "matmul", "bmm", "linear", "conv1d", "conv2d", "conv3d",
					   "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
					   "sdpa", "scaled_dot_product_attention",
					   "linalg_solve_triangular", "linalg_cholesky", NULL };
	for (int i = 0; ops[i]; i++)
		if (!strcmp(name, ops[i]))
			return 1;
	return 0;
}

/* The rate of node n (0 for a memory-bound op) and, in *what, its name. */
static double node_peak(const kj_plan *p, int n, const kj_calib *c, const char **what)
{
	if (!matrix_unit_op(p->task->nodes[n].op->name))
		return 0;
	switch (p->nodes[n].in[0].dtype) {
	case KJ_F16:
		*what = "fp16 tensor-core";
		return c->fp16_tflops;
	case KJ_BF16:
		*what = "bf16 tensor-core";
		return c->bf16_tflops;
	case KJ_I8:
		*what = "int8 tensor-core";
		return c->int8_tops;
	default:
		*what = "fp32";
		return c->fp32_tflops;
	}
}

double kj_node_peak_tflops(const kj_plan *p, int n, const kj_calib *c)
{
	const char *what;
	return node_peak(p, n, c, &what);
}

double kj_plan_peak_named(const kj_plan *p, const kj_calib *c, const char **what)
{
	int f8 = 0;
	for (int v = 0; v < p->task->nvals; v++)
		f8 |= p->task->vals[v].kind == KJ_V_INPUT && p->vals[v].dtype == KJ_F8E4M3;
	for (int n = 0; n < p->task->nnodes; n++) {
		double r = node_peak(p, n, c, what);
		/* f8 inputs cast up for the product: the fp8 tensor cores are the
		 * roof a kernel can reach (the eager baseline multiplies the cast
		 * values, so its sizing keeps the node's own rate) */
		if (r > 0 && f8 && c->fp8_tflops > 0) {
			*what = "fp8 tensor-core";
			return c->fp8_tflops;
		}
		if (r > 0)
			return r;
	}
	*what = "fp32";
	return c->fp32_tflops;
}

double kj_plan_peak_tflops(const kj_plan *p, const kj_calib *c)
{
	const char *what;
	return kj_plan_peak_named(p, c, &what);
}
