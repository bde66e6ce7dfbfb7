/*
 * The third op table: signatures, shape/dtype rules and cost rules of the
 * convolution and pooling ops (table_c.h says how they share one geometry).
 * The kernels are in src/ops/cpu/conv_impl.h (cpu64_c.c, cpu32_c.c).  Cost
 * conventions are in docs/ops.md.
 */
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_c.h"

static int need_float(const char *op, const char *what, const kj_tinfo *t, char *msg,
		      size_t len)
{
	if (kj_dtype_is_float(t->dtype))
		return 0;
	return kjo_fail(msg, len, "%s: %s dtype %s is not a floating-point type", op, what,
			kj_dtype_name(t->dtype));
}

/* The result: [N, C, spatial...] with N's label from the input and C's from
 * `clabel`; computed spatial extents carry no label (an unchanged adaptive
 * pool extent keeps its own). */
static void set_out(kj_bnode *n, const kjc_geom *g, const char *clabel)
{
	const kj_tinfo *x = &n->in[0];
	memset(&n->out, 0, sizeof n->out);
	n->out.dtype = x->dtype;
	n->out.shape.rank = g->nd + 2;
	n->out.shape.d[0] = g->N;
	n->out.label[0] = x->label[0];
	n->out.shape.d[1] = g->cout;
	n->out.label[1] = clabel;
	for (int i = 0; i < g->nd; i++) {
		int j = 3 - g->nd + i;
		n->out.shape.d[2 + i] = g->out[j];
		n->out.label[2 + i] = g->out[j] == g->in[j] ? x->label[2 + i] : NULL;
	}
}

/* The dtypes of a conv: input and weight one floating dtype, or (forward
 * convs only) both i8, whose products are summed exactly into an i32
 * result; a bias has the result's dtype (i32 for i8 operands). */
static int check_conv_dtypes(const char *op, int kind, const kj_tinfo *x, const kj_tinfo *w,
			     char *msg, size_t len)
{
	if (!(kind == KJC_CONV && x->dtype == KJ_I8) && !kj_dtype_is_float(x->dtype)) {
		if (kind == KJC_CONV)
			return kjo_fail(msg, len,
					"%s: input dtype %s is not supported (floating, or i8 with an i8 "
					"weight giving i32)",
					op, kj_dtype_name(x->dtype));
		return need_float(op, "input", x, msg, len);
	}
	if (w->dtype != x->dtype)
		return kjo_fail(msg, len, "%s: weight dtype %s differs from input dtype %s", op,
				kj_dtype_name(w->dtype), kj_dtype_name(x->dtype));
	return 0;
}

/* The result dtype of a conv of input dtype t (i8 -> i32). */
static kj_dtype conv_out_dtype(kj_dtype t)
{
	return t == KJ_I8 ? KJ_I32 : t;
}

static int infer_convs(kj_bnode *n, int kind, char *msg, size_t len)
{
	const char *op = n->op->name;
	const kj_tinfo *x = &n->in[0], *w = &n->in[1];
	kj_dtype ot = conv_out_dtype(x->dtype);
	kjc_geom g;
	if (check_conv_dtypes(op, kind, x, w, msg, len))
		return -1;
	if (kjc_geom_of(n, kind, 1, &g, msg, len))
		return -1;
	if (n->present[2]) {
		const kj_tinfo *b = &n->in[2];
		char s1[160];
		if (ot != x->dtype && b->dtype != ot)
			return kjo_fail(msg, len, "%s: bias dtype %s is not %s (the result dtype of %s "
					"operands)", op, kj_dtype_name(b->dtype), kj_dtype_name(ot),
					kj_dtype_name(x->dtype));
		if (b->dtype != ot)
			return kjo_fail(msg, len, "%s: bias dtype %s differs from input dtype %s", op,
					kj_dtype_name(b->dtype), kj_dtype_name(x->dtype));
		if (b->shape.rank != 1 || b->shape.d[0] != g.cout)
			return kjo_fail(msg, len, "%s: bias has shape %s, expected [%lld] (out_channels)",
					op, kjo_dims_str(b, s1, sizeof s1), (long long)g.cout);
	}
	set_out(n, &g, kind == KJC_CONV ? w->label[0] : g.groups == 1 ? w->label[1] : NULL);
	n->out.dtype = ot;
	return 0;
}

static int infer_conv(kj_bnode *n, char *msg, size_t len)
{
	return infer_convs(n, KJC_CONV, msg, len);
}

static int infer_conv_transpose(kj_bnode *n, char *msg, size_t len)
{
	return infer_convs(n, KJC_CONVT, msg, len);
}

static int infer_pools(kj_bnode *n, int kind, char *msg, size_t len)
{
	kjc_geom g;
	if (need_float(n->op->name, "input", &n->in[0], msg, len))
		return -1;
	if (kjc_geom_of(n, kind, 1, &g, msg, len))
		return -1;
	set_out(n, &g, n->in[0].label[1]);
	return 0;
}

static int infer_max_pool(kj_bnode *n, char *msg, size_t len)
{
	return infer_pools(n, KJC_MAXPOOL, msg, len);
}

static int infer_avg_pool(kj_bnode *n, char *msg, size_t len)
{
	return infer_pools(n, KJC_AVGPOOL, msg, len);
}

static int infer_adaptive(kj_bnode *n, char *msg, size_t len)
{
	return infer_pools(n, KJC_ADAPTIVE, msg, len);
}

/* 2 flops per multiply-add over every (output, tap) pair of the conv (for a
 * transposed conv the pairs of the conv it is the adjoint of), plus one per
 * output element for a bias. */
static void cost_conv(const kj_bnode *n, kj_cost *c)
{
	kjc_geom g;
	double pairs;
	kjc_geom_of(n, kjc_kind_of(n->op->name), 0, &g, NULL, 0);
	if (g.kind == KJC_CONV)
		pairs = (double)g.N * (double)g.cout * (double)kjc_vol(g.out) *
			(double)(g.cin / g.groups) * (double)kjc_vol(g.k);
	else
		pairs = (double)g.N * (double)g.cin * (double)kjc_vol(g.in) *
			(double)(g.cout / g.groups) * (double)kjc_vol(g.k);
	c->flops = 2.0 * pairs + (g.bias ? (double)g.N * (double)g.cout * (double)kjc_vol(g.out) : 0);
	c->min_bytes = kjo_io_bytes(n);
}

/* One operation per window element (a compare or an add) for max and avg
 * pooling; an adaptive pool adds each input element about once and divides
 * once per output. */
static void cost_pool(const kj_bnode *n, kj_cost *c)
{
	kjc_geom g;
	kjc_geom_of(n, kjc_kind_of(n->op->name), 0, &g, NULL, 0);
	if (g.kind == KJC_ADAPTIVE)
		c->flops = (double)kjo_numel(&n->in[0].shape) + (double)kjo_numel(&n->out.shape);
	else
		c->flops = (double)kjo_numel(&n->out.shape) * (double)kjc_vol(g.k);
	c->min_bytes = kjo_io_bytes(n);
}

/* ---- the table ---- */

#define T_REQ(nm) { .name = nm, .kind = KJ_ATTR_TENSOR, .required = 1 }
#define T_OPT(nm) { .name = nm, .kind = KJ_ATTR_TENSOR, .required = 0 }
#define INTS_DEF(nm, v) \
	{ .name = nm, .kind = KJ_ATTR_INTS, .required = 0, \
	  .def = { .kind = KJ_ATTR_INTS, .n = 1, .ints = { v } } }
#define INTS_REQ(nm) { .name = nm, .kind = KJ_ATTR_INTS, .required = 1 }
#define INTS_NONE(nm) { .name = nm, .kind = KJ_ATTR_INTS, .required = 0 }
#define INT_DEF(nm, v) \
	{ .name = nm, .kind = KJ_ATTR_INT, .required = 0, .def = { .kind = KJ_ATTR_INT, .i = v } }
#define BOOL_DEF(nm, v) \
	{ .name = nm, .kind = KJ_ATTR_BOOL, .required = 0, .def = { .kind = KJ_ATTR_BOOL, .i = v } }

static const kj_param p_conv[] = {
	T_REQ("input"), T_REQ("weight"), T_OPT("bias"), INTS_DEF("stride", 1),
	INTS_DEF("padding", 0), INTS_DEF("dilation", 1), INT_DEF("groups", 1),
};
static const kj_param p_conv_transpose[] = {
	T_REQ("input"), T_REQ("weight"), T_OPT("bias"), INTS_DEF("stride", 1),
	INTS_DEF("padding", 0), INTS_DEF("output_padding", 0), INT_DEF("groups", 1),
	INTS_DEF("dilation", 1),
};
static const kj_param p_max_pool[] = {
	T_REQ("input"), INTS_REQ("kernel_size"), INTS_NONE("stride"), INTS_DEF("padding", 0),
	INTS_DEF("dilation", 1), BOOL_DEF("ceil_mode", 0),
};
static const kj_param p_avg_pool[] = {
	T_REQ("input"), INTS_REQ("kernel_size"), INTS_NONE("stride"), INTS_DEF("padding", 0),
	BOOL_DEF("ceil_mode", 0), BOOL_DEF("count_include_pad", 1),
};
static const kj_param p_adaptive[] = { T_REQ("input"), INTS_REQ("output_size") };

#define NP(p) (int)(sizeof(p) / sizeof((p)[0])), p
#define KERNELS(k) kj_cpu64_##k, kj_cpu32_##k

#define CONV_DOC(nd, dims) \
	"conv" #nd "d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1): " \
	"cross-correlation as torch.nn.functional.conv" #nd "d: input [N, C_in, " dims "], weight " \
	"[C_out, C_in/groups, k...], bias [C_out]; out[n, co, o] = bias[co] + sum over the " \
	"C_in/groups channels of co's group and the kernel taps t of " \
	"input[n, ci, o*stride - padding + t*dilation] * weight[co, ci', t] (zero outside the input); " \
	"out size floor((L + 2*padding - dilation*(k-1) - 1) / stride) + 1 per dim; stride, padding, " \
	"dilation one int or one per spatial dim; i8 input and weight give i32 (exact int32 sums, " \
	"bias i32)"
#define CONVT_DOC(nd, dims) \
	"conv_transpose" #nd "d(input, weight, bias=None, stride=1, padding=0, output_padding=0, " \
	"groups=1, dilation=1): transposed convolution as torch.nn.functional.conv_transpose" #nd \
	"d (the adjoint of conv" #nd "d with the same weight, stride, padding, dilation, groups): " \
	"input [N, C_in, " dims "], weight [C_in, C_out/groups, k...], bias [C_out]; each input " \
	"element adds input[n, ci, i] * weight[ci, co', t] into out[n, co, i*stride - padding + " \
	"t*dilation]; out size (L - 1)*stride - 2*padding + dilation*(k-1) + output_padding + 1 per dim"
#define MAXPOOL_DOC(nd, dims) \
	"max_pool" #nd "d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False): " \
	"as torch.nn.functional.max_pool" #nd "d over input [N, C, " dims "]: the max over the window " \
	"input[n, c, o*stride - padding + t*dilation], t < kernel_size, ignoring positions outside " \
	"the input (padding acts as -inf); NaN propagates; stride None = kernel_size; padding at " \
	"most kernel_size/2"
#define AVGPOOL_DOC(nd, dims) \
	"avg_pool" #nd "d(input, kernel_size, stride=None, padding=0, ceil_mode=False, " \
	"count_include_pad=True): as torch.nn.functional.avg_pool" #nd "d over input [N, C, " dims \
	"]: the sum over the window input[n, c, o*stride - padding + t], t < kernel_size, of the " \
	"positions inside the input, divided by the window size including the zero padding " \
	"(count_include_pad=True) or by the count of positions inside the input (False); stride " \
	"None = kernel_size"
#define ADAPTIVE_DOC(nd, dims) \
	"adaptive_avg_pool" #nd "d(input, output_size): as torch.nn.functional.adaptive_avg_pool" #nd \
	"d over input [N, C, " dims "]: output o of a dim of size L averages input positions " \
	"floor(o*L/out) <= i < ceil((o+1)*L/out); output_size one int or one per spatial dim"

#define CONV_NOTES \
	"input must be batched (no unbatched [C, L...] form); padding must be numbers (no " \
	"\"same\"/\"valid\"); padding_mode is zeros"
#define POOL_NOTES "input must be batched; return_indices is not offered"

const kj_op kj_ops_c[] = {
	{ "conv1d", CONV_DOC(1, "L"), NP(p_conv), infer_conv, cost_conv, KERNELS(conv), CONV_NOTES },
	{ "conv2d", CONV_DOC(2, "H, W"), NP(p_conv), infer_conv, cost_conv, KERNELS(conv),
	  CONV_NOTES },
	{ "conv3d", CONV_DOC(3, "D, H, W"), NP(p_conv), infer_conv, cost_conv, KERNELS(conv),
	  CONV_NOTES },
	{ "conv_transpose1d", CONVT_DOC(1, "L"), NP(p_conv_transpose), infer_conv_transpose,
	  cost_conv, KERNELS(conv_transpose), CONV_NOTES },
	{ "conv_transpose2d", CONVT_DOC(2, "H, W"), NP(p_conv_transpose), infer_conv_transpose,
	  cost_conv, KERNELS(conv_transpose), CONV_NOTES },
	{ "conv_transpose3d", CONVT_DOC(3, "D, H, W"), NP(p_conv_transpose), infer_conv_transpose,
	  cost_conv, KERNELS(conv_transpose), CONV_NOTES },
	{ "max_pool1d", MAXPOOL_DOC(1, "L"), NP(p_max_pool), infer_max_pool, cost_pool,
	  KERNELS(max_pool), POOL_NOTES },
	{ "max_pool2d", MAXPOOL_DOC(2, "H, W"), NP(p_max_pool), infer_max_pool, cost_pool,
	  KERNELS(max_pool), POOL_NOTES },
	{ "max_pool3d", MAXPOOL_DOC(3, "D, H, W"), NP(p_max_pool), infer_max_pool, cost_pool,
	  KERNELS(max_pool), POOL_NOTES },
	{ "avg_pool1d", AVGPOOL_DOC(1, "L"), NP(p_avg_pool), infer_avg_pool, cost_pool,
	  KERNELS(avg_pool), POOL_NOTES "; no divisor_override" },
	{ "avg_pool2d", AVGPOOL_DOC(2, "H, W"), NP(p_avg_pool), infer_avg_pool, cost_pool,
	  KERNELS(avg_pool), POOL_NOTES "; no divisor_override" },
	{ "avg_pool3d", AVGPOOL_DOC(3, "D, H, W"), NP(p_avg_pool), infer_avg_pool, cost_pool,
	  KERNELS(avg_pool), POOL_NOTES "; no divisor_override" },
	{ "adaptive_avg_pool1d", ADAPTIVE_DOC(1, "L"), NP(p_adaptive), infer_adaptive, cost_pool,
	  KERNELS(adaptive_avg_pool), "input must be batched; output_size entries cannot be None" },
	{ "adaptive_avg_pool2d", ADAPTIVE_DOC(2, "H, W"), NP(p_adaptive), infer_adaptive, cost_pool,
	  KERNELS(adaptive_avg_pool), "input must be batched; output_size entries cannot be None" },
	{ "adaptive_avg_pool3d", ADAPTIVE_DOC(3, "D, H, W"), NP(p_adaptive), infer_adaptive,
	  cost_pool, KERNELS(adaptive_avg_pool),
	  "input must be batched; output_size entries cannot be None" },
};

const int kj_ops_c_count = (int)(sizeof(kj_ops_c) / sizeof(kj_ops_c[0]));
