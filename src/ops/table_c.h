/*
 * The third op table: convolution and pooling (conv1d/2d/3d,
 * conv_transpose1d/2d/3d, max_pool1d/2d/3d, avg_pool1d/2d/3d,
 * adaptive_avg_pool1d/2d/3d) over batched NCL / NCHW / NCDHW tensors.
 *
 * kj_ops_c is a static table that registry.c concatenates with the others;
 * nothing in it is allocated.  Every op of one family shares one kernel: the
 * kernels see the spatial rank in the input's rank and the geometry in a
 * kjc_geom, which kjc_geom_of derives from a bound node.  That one function
 * serves the shape rules (table_c.c), the CPU kernels (conv_impl.h compiled
 * as cpu64_c.c and cpu32_c.c) and the CUDA baseline and reference
 * (src/ops/cuda/ops_conv.cu), so the three cannot disagree on an output
 * size.  Everything here is static inline and allocation-free.
 */
#ifndef KJ_OPS_TABLE_C_H
#define KJ_OPS_TABLE_C_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kjudge/ops.h"
#include "ops/op_util.h"

extern const kj_op kj_ops_c[];
extern const int kj_ops_c_count;

#define KJ_OPS_C_KERNELS(X) X(conv) X(conv_transpose) X(max_pool) X(avg_pool) X(adaptive_avg_pool)

#define KJ_OPS_C_DECL(k) \
	int kj_cpu64_##k(const kj_bnode *n, const double *const *in, double *out, \
			 char *msg, size_t msglen); \
	int kj_cpu32_##k(const kj_bnode *n, const float *const *in, float *out, \
			 char *msg, size_t msglen);
KJ_OPS_C_KERNELS(KJ_OPS_C_DECL)
#undef KJ_OPS_C_DECL

/* The helpers that the CUDA kernels call too (ops_conv.cu). */
#ifdef __CUDACC__
#define KJC_HD __host__ __device__
#else
#define KJC_HD
#endif

typedef enum {
	KJC_CONV,
	KJC_CONVT,
	KJC_MAXPOOL,
	KJC_AVGPOOL,
	KJC_ADAPTIVE,
} kjc_kind;

/* The geometry of one conv or pool node.  Spatial arrays always have three
 * entries, right-aligned: a 1-D op uses entry 2 only and entries 0 and 1 are
 * unit (size 1, kernel 1, stride 1, pad 0, dilation 1), a 2-D op entries 1
 * and 2; so every kernel can loop over three spatial dims.  For conv,
 * cin/cout are the input and output channels and groups divides both; for
 * pools cin == cout == C and groups == 1. */
typedef struct kjc_geom {
	kjc_kind kind;
	int nd; /* spatial rank: 1, 2 or 3 */
	int64_t N, cin, cout, groups;
	int64_t in[3], out[3], k[3], s[3], p[3], d[3], op[3];
	int ceil_mode, count_include_pad, bias;
} kjc_geom;

KJC_HD static inline int64_t kjc_vol(const int64_t v[3])
{
	return v[0] * v[1] * v[2];
}

/* The family of an op by name; -1 for an op that is not in table C. */
static inline int kjc_kind_of(const char *name)
{
	if (!strncmp(name, "conv_transpose", 14))
		return KJC_CONVT;
	if (!strncmp(name, "conv", 4))
		return KJC_CONV;
	if (!strncmp(name, "max_pool", 8))
		return KJC_MAXPOOL;
	if (!strncmp(name, "avg_pool", 8))
		return KJC_AVGPOOL;
	if (!strncmp(name, "adaptive_avg_pool", 17))
		return KJC_ADAPTIVE;
	return -1;
}

/* The spatial rank an op's name promises ("conv2d" -> 2). */
static inline int kjc_nd_of(const char *name)
{
	size_t l = strlen(name);
	return l >= 2 && name[l - 1] == 'd' ? name[l - 2] - '0' : 0;
}

/* An INTS attribute with one entry per spatial dim: one value repeats; a
 * list must have nd entries.  Fills v[3] right-aligned (unit entries `unit`
 * before).  A NONE attribute gives `none` for each dim.  Returns 0, or -1
 * with "conv2d: stride must have 1 or 2 entries, got 3". */
static inline int kjc_tuple(const char *op, const char *what, const kj_attr *a, int nd,
			    int64_t unit, int64_t none, int64_t v[3], char *msg, size_t len)
{
	const int64_t *src = a->kind == KJ_ATTR_INT ? &a->i : a->ints;
	int cnt = a->kind == KJ_ATTR_INT ? 1 : a->kind == KJ_ATTR_INTS ? a->n : 0;
	for (int i = 0; i < 3; i++)
		v[i] = unit;
	if (cnt == 0) {
		for (int i = 3 - nd; i < 3; i++)
			v[i] = none;
		return 0;
	}
	if (cnt != 1 && cnt != nd)
		return kjo_fail(msg, len, "%s: %s must have 1 or %d entries, got %d", op, what, nd, cnt);
	for (int i = 0; i < nd; i++)
		v[3 - nd + i] = src[cnt == 1 ? 0 : i];
	return 0;
}

/* Output extent of a pooling window sweep (PyTorch's pooling_output_shape):
 * floor or ceil of (in + 2p - d(k-1) - 1) / s, plus 1; with ceil_mode a
 * last window that would start in the right padding is dropped. */
static inline int64_t kjc_pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d,
				   int ceil_mode)
{
	int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0), o;
	/* floor division for a negative numerator */
	o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
	if (ceil_mode && (o - 1) * s >= in + p)
		o--;
	return o;
}

/* Fills g from node n of family `kind` (input shape, weight shape, the
 * attributes).  With check = 1 it validates everything a shape rule must
 * and returns -1 with a message naming the op; the kernels call it with
 * check = 0 on nodes that infer already accepted. */
static inline int kjc_geom_of(const kj_bnode *n, int kind, int check, kjc_geom *g, char *msg,
			      size_t len)
{
	const char *op = n->op->name;
	const kj_tinfo *x = &n->in[0];
	int nd = x->shape.rank - 2;
	char s1[160], s2[160];

	memset(g, 0, sizeof *g);
	g->kind = (kjc_kind)kind;
	if (check && nd != kjc_nd_of(op))
		return kjo_fail(msg, len, "%s: expected a %d-D input [N, C, %s], got %s", op,
				kjc_nd_of(op) + 2,
				kjc_nd_of(op) == 1 ? "L" : kjc_nd_of(op) == 2 ? "H, W" : "D, H, W",
				kjo_dims_str(x, s1, sizeof s1));
	g->nd = nd;
	g->N = x->shape.d[0];
	g->cin = x->shape.d[1];
	for (int i = 0; i < 3; i++) {
		g->in[i] = i < 3 - nd ? 1 : x->shape.d[2 + i - (3 - nd)];
		g->k[i] = g->s[i] = g->d[i] = g->out[i] = 1;
	}
	if (kind == KJC_CONV || kind == KJC_CONVT) {
		const kj_tinfo *w = &n->in[1];
		int convt = kind == KJC_CONVT;
		/* attrs: conv stride, padding, dilation, groups;
		 *        conv_transpose stride, padding, output_padding, groups, dilation */
		int id = convt ? 4 : 2;
		g->groups = kjo_attr_i(n, 3, 1);
		g->bias = n->present[2];
		if (check && w->shape.rank != nd + 2)
			return kjo_fail(msg, len, "%s: weight must be %d-D [%s, %s, kernel...], got %s", op,
					nd + 2, convt ? "in_channels" : "out_channels",
					convt ? "out_channels/groups" : "in_channels/groups",
					kjo_dims_str(w, s1, sizeof s1));
		if (kjc_tuple(op, "stride", kjo_attr(n, 0), nd, 1, 1, g->s, msg, len) ||
		    kjc_tuple(op, "padding", kjo_attr(n, 1), nd, 0, 0, g->p, msg, len) ||
		    kjc_tuple(op, "dilation", kjo_attr(n, id), nd, 1, 1, g->d, msg, len) ||
		    (convt && kjc_tuple(op, "output_padding", kjo_attr(n, 2), nd, 0, 0, g->op, msg, len)))
			return -1;
		for (int i = 0; i < 3; i++)
			g->k[i] = i < 3 - nd ? 1 : w->shape.d[2 + i - (3 - nd)];
		if (check) {
			char a[48], b[48];
			if (g->groups < 1)
				return kjo_fail(msg, len, "%s: groups must be at least 1, got %lld", op,
						(long long)g->groups);
			for (int i = 3 - nd; i < 3; i++) {
				if (g->s[i] < 1 || g->d[i] < 1 || g->p[i] < 0 || g->op[i] < 0)
					return kjo_fail(msg, len,
							"%s: stride and dilation must be >= 1 and padding >= 0 "
							"(got stride %lld, padding %lld, dilation %lld)",
							op, (long long)g->s[i], (long long)g->p[i],
							(long long)g->d[i]);
				if (g->k[i] < 1)
					return kjo_fail(msg, len, "%s: kernel size must be >= 1 (weight %s)", op,
							kjo_dims_str(w, s1, sizeof s1));
				if (convt && g->op[i] >= g->s[i] && g->op[i] >= g->d[i])
					return kjo_fail(msg, len,
							"%s: output_padding %lld must be smaller than stride %lld "
							"or dilation %lld",
							op, (long long)g->op[i], (long long)g->s[i],
							(long long)g->d[i]);
			}
			if (g->cin % g->groups)
				return kjo_fail(msg, len, "%s: in_channels %s is not divisible by groups %lld",
						op, kjo_dim_str(x, 1, a, sizeof a), (long long)g->groups);
			if (!convt && w->shape.d[0] % g->groups)
				return kjo_fail(msg, len, "%s: out_channels %s is not divisible by groups %lld",
						op, kjo_dim_str(w, 0, a, sizeof a), (long long)g->groups);
			if (!convt && w->shape.d[1] * g->groups != g->cin)
				return kjo_fail(msg, len,
						"%s: weight %s expects %lld input channels (dim 1 x groups %lld), "
						"input %s has %s",
						op, kjo_dims_str(w, s1, sizeof s1),
						(long long)(w->shape.d[1] * g->groups), (long long)g->groups,
						kjo_dims_str(x, s2, sizeof s2), kjo_dim_str(x, 1, b, sizeof b));
			if (convt && w->shape.d[0] != g->cin)
				return kjo_fail(msg, len,
						"%s: weight dim 0 %s must equal the input channels %s "
						"(weight is [in_channels, out_channels/groups, kernel...])",
						op, kjo_dim_str(w, 0, a, sizeof a), kjo_dim_str(x, 1, b, sizeof b));
		}
		g->cout = convt ? w->shape.d[1] * g->groups : w->shape.d[0];
		for (int i = 3 - nd; i < 3; i++) {
			if (convt)
				g->out[i] = (g->in[i] - 1) * g->s[i] - 2 * g->p[i] +
					    g->d[i] * (g->k[i] - 1) + g->op[i] + 1;
			else
				g->out[i] = (g->in[i] + 2 * g->p[i] - g->d[i] * (g->k[i] - 1) - 1) / g->s[i] + 1;
			if (check && (g->out[i] < 1 || g->in[i] + 2 * g->p[i] - g->d[i] * (g->k[i] - 1) - 1 < 0) &&
			    !convt)
				return kjo_fail(msg, len,
						"%s: input %s is smaller than the kernel (size %lld with "
						"dilation %lld after padding %lld): the output would be empty",
						op, kjo_dims_str(x, s1, sizeof s1), (long long)g->k[i],
						(long long)g->d[i], (long long)g->p[i]);
			if (check && convt && g->out[i] < 1)
				return kjo_fail(msg, len, "%s: input %s gives an empty output (size %lld)", op,
						kjo_dims_str(x, s1, sizeof s1), (long long)g->out[i]);
		}
		return 0;
	}
	g->cout = g->cin;
	g->groups = 1;
	if (kind == KJC_ADAPTIVE) {
		if (kjc_tuple(op, "output_size", kjo_attr(n, 0), nd, 1, 1, g->out, msg, len))
			return -1;
		for (int i = 3 - nd; check && i < 3; i++)
			if (g->out[i] < 1 || g->in[i] < 1)
				return kjo_fail(msg, len,
						"%s: output_size entries must be >= 1 and the input's spatial "
						"dims non-empty (input %s)",
						op, kjo_dims_str(x, s1, sizeof s1));
		return 0;
	}
	/* max_pool: kernel_size, stride, padding, dilation, ceil_mode
	 * avg_pool: kernel_size, stride, padding, ceil_mode, count_include_pad */
	if (kjc_tuple(op, "kernel_size", kjo_attr(n, 0), nd, 1, 1, g->k, msg, len))
		return -1;
	if (kjc_tuple(op, "stride", kjo_attr(n, 1), nd, 1, 0, g->s, msg, len) ||
	    kjc_tuple(op, "padding", kjo_attr(n, 2), nd, 0, 0, g->p, msg, len))
		return -1;
	for (int i = 3 - nd; i < 3; i++)
		if (g->s[i] == 0 && kjo_attr(n, 1)->kind == KJ_ATTR_NONE)
			g->s[i] = g->k[i]; /* stride=None: the kernel size */
	if (kind == KJC_MAXPOOL) {
		if (kjc_tuple(op, "dilation", kjo_attr(n, 3), nd, 1, 1, g->d, msg, len))
			return -1;
		g->ceil_mode = (int)kjo_attr_i(n, 4, 0);
	} else {
		g->ceil_mode = (int)kjo_attr_i(n, 3, 0);
		g->count_include_pad = (int)kjo_attr_i(n, 4, 1);
	}
	for (int i = 3 - nd; i < 3; i++) {
		if (check && (g->k[i] < 1 || g->s[i] < 1 || g->d[i] < 1 || g->p[i] < 0))
			return kjo_fail(msg, len,
					"%s: kernel_size, stride and dilation must be >= 1 and padding >= 0 "
					"(got kernel_size %lld, stride %lld, padding %lld, dilation %lld)",
					op, (long long)g->k[i], (long long)g->s[i], (long long)g->p[i],
					(long long)g->d[i]);
		if (check && g->p[i] * 2 > g->k[i])
			return kjo_fail(msg, len,
					"%s: padding %lld should be at most half of kernel_size %lld", op,
					(long long)g->p[i], (long long)g->k[i]);
		g->out[i] = kjc_pool_out(g->in[i], g->k[i], g->s[i], g->p[i], g->d[i], g->ceil_mode);
		if (check && g->out[i] < 1)
			return kjo_fail(msg, len,
					"%s: input %s is smaller than the window (kernel_size %lld, dilation "
					"%lld, padding %lld): the output would be empty",
					op, kjo_dims_str(x, s1, sizeof s1), (long long)g->k[i],
					(long long)g->d[i], (long long)g->p[i]);
	}
	return 0;
}

/* The window of one average-pool output along one dim, as PyTorch's
 * avg_pool kernels take it: [*lo, *hi) clipped to the input, and *cnt the
 * divisor's factor (the window clipped to the padded input when
 * count_include_pad, else to the input). */
KJC_HD static inline void kjc_avg_window(const kjc_geom *g, int i, int64_t o, int64_t *lo, int64_t *hi,
				  int64_t *cnt)
{
	int64_t a = o * g->s[i] - g->p[i], b = a + g->k[i];
	if (b > g->in[i] + g->p[i])
		b = g->in[i] + g->p[i];
	*cnt = b - a;
	if (a < 0)
		a = 0;
	if (b > g->in[i])
		b = g->in[i];
	*lo = a;
	*hi = b;
	if (!g->count_include_pad)
		*cnt = b - a;
}

/* The adaptive window of output o along dim i: [floor(o*in/out),
 * ceil((o+1)*in/out)). */
KJC_HD static inline void kjc_adaptive_window(const kjc_geom *g, int i, int64_t o, int64_t *lo,
				       int64_t *hi)
{
	*lo = o * g->in[i] / g->out[i];
	*hi = ((o + 1) * g->in[i] + g->out[i] - 1) / g->out[i];
}

#endif
