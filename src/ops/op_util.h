/*
 * Helpers shared by the op tables and the CPU kernels (src/ops/table_*.c,
 * src/ops/cpu/): attribute access with defaults, dim normalisation, the
 * outer/reduced/inner split of a shape around one dim, broadcast strides,
 * byte counts for cost rules and shape formatting for messages.  Everything
 * here is static inline and self-contained (no call into registry.c), so a
 * kernel file or a test can use it alone.  Nothing here allocates; every
 * string goes into a buffer the caller owns.
 *
 * The op tables are split by owner: kj_ops_a (elementwise, broadcasting
 * binary ops, reductions, softmax family) lives in table_a.c; registry.c
 * concatenates the tables.
 */
#ifndef KJ_OP_UTIL_H
#define KJ_OP_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "kjudge/ops.h"

extern const kj_op kj_ops_a[];
extern const int kj_ops_a_count;

/* Declares the fp64 oracle and the f32 baseline of one op:
 * int kj_cpu64_<name>(...) and int kj_cpu32_<name>(...). */
#define KJO_CPU_DECL(name) \
	int kj_cpu64_##name(const kj_bnode *n, const double *const *in, double *out, \
			    char *msg, size_t msglen); \
	int kj_cpu32_##name(const kj_bnode *n, const float *const *in, float *out, \
			    char *msg, size_t msglen)

/* Kernels of table A (src/ops/cpu/cpu64_a.c, cpu32_a.c). */
KJO_CPU_DECL(relu);
KJO_CPU_DECL(leaky_relu);
KJO_CPU_DECL(sigmoid);
KJO_CPU_DECL(tanh);
KJO_CPU_DECL(gelu);
KJO_CPU_DECL(silu);
KJO_CPU_DECL(selu);
KJO_CPU_DECL(elu);
KJO_CPU_DECL(hardsigmoid);
KJO_CPU_DECL(hardswish);
KJO_CPU_DECL(hardtanh);
KJO_CPU_DECL(softplus);
KJO_CPU_DECL(softsign);
KJO_CPU_DECL(exp);
KJO_CPU_DECL(log);
KJO_CPU_DECL(sqrt);
KJO_CPU_DECL(rsqrt);
KJO_CPU_DECL(abs);
KJO_CPU_DECL(neg);
KJO_CPU_DECL(round);
KJO_CPU_DECL(clamp);
KJO_CPU_DECL(add);
KJO_CPU_DECL(sub);
KJO_CPU_DECL(mul);
KJO_CPU_DECL(div);
KJO_CPU_DECL(maximum);
KJO_CPU_DECL(minimum);
KJO_CPU_DECL(pow);
KJO_CPU_DECL(bitwise_and);
KJO_CPU_DECL(bitwise_or);
KJO_CPU_DECL(bitwise_xor);
KJO_CPU_DECL(bitwise_left_shift);
KJO_CPU_DECL(bitwise_right_shift);
KJO_CPU_DECL(sum);
KJO_CPU_DECL(mean);
KJO_CPU_DECL(max);
KJO_CPU_DECL(min);
KJO_CPU_DECL(argmax);
KJO_CPU_DECL(argmin);
KJO_CPU_DECL(prod);
KJO_CPU_DECL(logsumexp);
KJO_CPU_DECL(var);
KJO_CPU_DECL(std);
KJO_CPU_DECL(softmax);
KJO_CPU_DECL(log_softmax);
KJO_CPU_DECL(cumsum);

/* printf into msg; always returns -1 so that infer can `return kjo_fail(...)`. */
__attribute__((format(printf, 3, 4))) static inline int kjo_fail(char *msg, size_t msglen,
								  const char *fmt, ...)
{
	va_list ap;

	if (msg && msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static inline int64_t kjo_numel(const kj_shape *s)
{
	int64_t n = 1;

	for (int i = 0; i < s->rank; i++)
		n *= s->d[i];
	return n;
}

/* Bytes of a tensor operand for cost rules; a weak literal costs nothing
 * because it travels as a kernel argument, not through memory. */
static inline double kjo_bytes(const kj_tinfo *t)
{
	if (t->weak)
		return 0.0;
	return (double)kjo_numel(&t->shape) * (double)kj_dtype_size(t->dtype);
}

/* Sum of kjo_bytes over the present tensor operands plus the output. */
static inline double kjo_io_bytes(const kj_bnode *n)
{
	double b = kjo_bytes(&n->out);

	for (int k = 0; k < n->nin; k++)
		if (n->present[k])
			b += kjo_bytes(&n->in[k]);
	return b;
}

/* Category of a dtype for promotion: 0 bool, 1 integer, 2 floating. */
static inline int kjo_category(kj_dtype t)
{
	switch (t) {
	case KJ_BOOL:
		return 0;
	case KJ_I8:
	case KJ_I32:
	case KJ_I64:
		return 1;
	default:
		return 2;
	}
}

static inline int kjo_is_float(kj_dtype t)
{
	return kjo_category(t) == 2;
}

/* "B=3" when the dim has a label, else "3" (same form as kj_dim_str). */
static inline char *kjo_dim_str(const kj_tinfo *t, int i, char *buf, size_t len)
{
	if (t->label[i])
		snprintf(buf, len, "%s=%lld", t->label[i], (long long)t->shape.d[i]);
	else
		snprintf(buf, len, "%lld", (long long)t->shape.d[i]);
	return buf;
}

/* "[B=3, 4]" for t (labels where known); "[]" for rank 0.  Truncates to len. */
static inline char *kjo_dims_str(const kj_tinfo *t, char *buf, size_t len)
{
	size_t used = 0;
	char one[64];

	if (!len)
		return buf;
	buf[0] = '\0';
	used += (size_t)snprintf(buf, len, "[");
	for (int i = 0; i < t->shape.rank && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 kjo_dim_str(t, i, one, sizeof(one)));
	if (used < len)
		snprintf(buf + used, len - used, "]");
	return buf;
}

/* Normalises a PyTorch dim (negative counts from the end) for a tensor of
 * `rank`.  A rank-0 tensor accepts dim 0 and -1, as PyTorch does, and gives 0.
 * Returns 0 and *out, or -1 with "<op>: dim 3 out of range for rank 2". */
static inline int kjo_norm_dim(const char *opname, int64_t dim, int rank, int *out, char *msg,
			       size_t msglen)
{
	int r = rank ? rank : 1;

	if (dim < -r || dim >= r)
		return kjo_fail(msg, msglen, "%s: dim %lld out of range for rank %d", opname,
				(long long)dim, rank);
	*out = (int)(dim < 0 ? dim + r : dim);
	if (!rank)
		*out = 0;
	return 0;
}

/* Splits shape s around dim: elements = outer * len * inner, the dim's
 * stride is inner.  dim < 0 means "all elements as one reduced run";
 * a rank-0 shape gives 1, 1, 1. */
static inline void kjo_split(const kj_shape *s, int dim, int64_t *outer, int64_t *len,
			     int64_t *inner)
{
	*outer = 1;
	*len = 1;
	*inner = 1;
	if (dim < 0 || s->rank == 0) {
		*len = kjo_numel(s);
		return;
	}
	for (int i = 0; i < dim; i++)
		*outer *= s->d[i];
	*len = s->d[dim];
	for (int i = dim + 1; i < s->rank; i++)
		*inner *= s->d[i];
}

/* Element strides of operand `in` seen through the broadcast shape `out`
 * (right-aligned; a size-1 or missing dim gets stride 0).  st[i] is for
 * out dim i. */
static inline void kjo_bcast_strides(const kj_shape *in, const kj_shape *out,
				     int64_t st[KJ_MAX_RANK])
{
	int64_t s = 1;
	int off = out->rank - in->rank;

	for (int i = out->rank - 1; i >= 0; i--) {
		int j = i - off;

		if (j < 0 || in->d[j] == 1) {
			st[i] = 0;
		} else {
			st[i] = s;
		}
		if (j >= 0)
			s *= in->d[j];
	}
}

/* The attribute of non-tensor param k of n's op, or the param's default
 * when the node leaves it unset (kind NONE).  The result has kind NONE only
 * for an optional attribute whose default is None. */
static inline const kj_attr *kjo_attr(const kj_bnode *n, int k)
{
	int seen = 0;

	if (n->attr[k].kind != KJ_ATTR_NONE)
		return &n->attr[k];
	for (int p = 0; p < n->op->nparams; p++) {
		if (n->op->params[p].kind == KJ_ATTR_TENSOR)
			continue;
		if (seen++ == k)
			return &n->op->params[p].def;
	}
	return &n->attr[k];
}

/* A numeric attribute as a double: FLOAT, or an INT/BOOL given where a float
 * was expected.  `def` when the attribute is None. */
static inline double kjo_attr_f(const kj_bnode *n, int k, double def)
{
	const kj_attr *a = kjo_attr(n, k);

	switch (a->kind) {
	case KJ_ATTR_FLOAT:
		return a->f;
	case KJ_ATTR_INT:
	case KJ_ATTR_BOOL:
		return (double)a->i;
	default:
		return def;
	}
}

/* An INT/BOOL attribute (a one-element INTS counts as its int); `def` when
 * None. */
static inline int64_t kjo_attr_i(const kj_bnode *n, int k, int64_t def)
{
	const kj_attr *a = kjo_attr(n, k);

	switch (a->kind) {
	case KJ_ATTR_INT:
	case KJ_ATTR_BOOL:
		return a->i;
	case KJ_ATTR_FLOAT:
		return (int64_t)a->f;
	case KJ_ATTR_INTS:
		return a->n == 1 ? a->ints[0] : def;
	default:
		return def;
	}
}

static inline int kjo_attr_given(const kj_bnode *n, int k)
{
	return kjo_attr(n, k)->kind != KJ_ATTR_NONE;
}

#endif
