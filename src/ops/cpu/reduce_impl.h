/*
 * Reduction kernels of table A (sum ... std over one dim or all elements)
 * and the along-a-dim ops softmax, log_softmax and cumsum, written once over
 * `real` and compiled twice like elementwise_impl.h (same macros: real,
 * KJ_FN, RM, RC).  The input is viewed as [outer, len, inner] around the
 * reduced dim (kjo_split); output element (o, i) reduces the run
 * x[(o*len + j)*inner + i], j = 0..len-1.  Every reduction's first attribute
 * is `dim`; infer has already checked it, so the kernels trust it.
 * No include guard: each translation unit includes this exactly once.
 */
#if !defined(KJ_FN) || !defined(RM) || !defined(RC)
#error "define real, KJ_FN, RM and RC before including reduce_impl.h"
#endif

#include <math.h>

#include "ops/op_util.h"

/* The normalised reduced dim, or -1 for "all elements" (dim=None). */
static int red_dim(const kj_bnode *n)
{
	int d = -1;

	if (kjo_attr_given(n, 0) &&
	    kjo_norm_dim("", kjo_attr_i(n, 0, 0), n->in[0].shape.rank, &d, NULL, 0))
		d = -1;
	return d;
}

#define RED_PROLOGUE \
	const real *x = in[0]; \
	int64_t outer, len, inner; \
	(void)msg; \
	(void)msglen; \
	kjo_split(&n->in[0].shape, red_dim(n), &outer, &len, &inner)

#define RED_LOOP \
	for (int64_t o = 0; o < outer; o++) \
		for (int64_t i = 0; i < inner; i++)

#define AT(j) x[(o * len + (j)) * inner + i]

int KJ_FN(sum)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real acc = 0;

		for (int64_t j = 0; j < len; j++)
			acc += AT(j);
		out[o * inner + i] = acc;
	}
	return 0;
}

int KJ_FN(mean)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real acc = 0;

		for (int64_t j = 0; j < len; j++)
			acc += AT(j);
		out[o * inner + i] = acc / (real)len;
	}
	return 0;
}

int KJ_FN(prod)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real acc = 1;

		for (int64_t j = 0; j < len; j++)
			acc *= AT(j);
		out[o * inner + i] = acc;
	}
	return 0;
}

/* Index of the extreme of the run: the first NaN if any (NaN counts as the
 * extreme, as PyTorch's max/argmax propagate it), else the first occurrence
 * of the largest (sign > 0) or smallest (sign < 0) value. */
static inline int64_t red_extreme(const real *x, int64_t o, int64_t len, int64_t inner,
				  int64_t i, int sign)
{
	int64_t best = 0;
	real bv = AT(0);

	if (bv != bv)
		return 0;
	for (int64_t j = 1; j < len; j++) {
		real v = AT(j);

		if (v != v)
			return j;
		if (sign > 0 ? v > bv : v < bv) {
			bv = v;
			best = j;
		}
	}
	return best;
}

int KJ_FN(max)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP out[o * inner + i] = AT(red_extreme(x, o, len, inner, i, 1));
	return 0;
}

int KJ_FN(min)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP out[o * inner + i] = AT(red_extreme(x, o, len, inner, i, -1));
	return 0;
}

int KJ_FN(argmax)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		  size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP out[o * inner + i] = (real)red_extreme(x, o, len, inner, i, 1);
	return 0;
}

int KJ_FN(argmin)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		  size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP out[o * inner + i] = (real)red_extreme(x, o, len, inner, i, -1);
	return 0;
}

/* Largest non-NaN value of the run, -inf when there is none. */
static inline real red_max_finite(const real *x, int64_t o, int64_t len, int64_t inner,
				  int64_t i)
{
	real m = -(real)INFINITY;

	for (int64_t j = 0; j < len; j++)
		if (AT(j) > m)
			m = AT(j);
	return m;
}

/* log(sum(exp(x - m))) + m; an infinite m is replaced by 0 so that all -inf
 * gives -inf and a +inf gives +inf instead of inf - inf = NaN. */
int KJ_FN(logsumexp)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		     size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real m = red_max_finite(x, o, len, inner, i), s = 0;

		if (isinf(m))
			m = 0;
		for (int64_t j = 0; j < len; j++)
			s += RM(exp)(AT(j) - m);
		out[o * inner + i] = RM(log)(s) + m;
	}
	return 0;
}

/* Two passes: the mean, then the squared deviations from it; divided by
 * max(0, len - correction) as PyTorch does (0 gives inf or NaN). */
static inline real red_var(const real *x, int64_t o, int64_t len, int64_t inner, int64_t i,
			   int64_t correction)
{
	real mean = 0, ss = 0;
	/* in double: a correction near INT64_MIN must not overflow */
	double dof = (double)len - (double)correction;

	for (int64_t j = 0; j < len; j++)
		mean += AT(j);
	mean /= (real)len;
	for (int64_t j = 0; j < len; j++) {
		real d = AT(j) - mean;

		ss += d * d;
	}
	return ss / (real)(dof > 0 ? dof : 0);
}

int KJ_FN(var)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t corr = kjo_attr_i(n, 1, 1);

	RED_PROLOGUE;
	RED_LOOP out[o * inner + i] = red_var(x, o, len, inner, i, corr);
	return 0;
}

int KJ_FN(std)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t corr = kjo_attr_i(n, 1, 1);

	RED_PROLOGUE;
	RED_LOOP out[o * inner + i] = RM(sqrt)(red_var(x, o, len, inner, i, corr));
	return 0;
}

/* softmax, log_softmax and cumsum keep the shape: out has x's layout. */
#define OUT(j) out[(o * len + (j)) * inner + i]

int KJ_FN(softmax)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		   size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real m = red_max_finite(x, o, len, inner, i), s = 0;

		for (int64_t j = 0; j < len; j++) {
			OUT(j) = RM(exp)(AT(j) - m);
			s += OUT(j);
		}
		for (int64_t j = 0; j < len; j++)
			OUT(j) /= s;
	}
	return 0;
}

int KJ_FN(log_softmax)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		       size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real m = red_max_finite(x, o, len, inner, i), s = 0, ls;

		for (int64_t j = 0; j < len; j++)
			s += RM(exp)(AT(j) - m);
		ls = RM(log)(s);
		for (int64_t j = 0; j < len; j++)
			OUT(j) = AT(j) - m - ls;
	}
	return 0;
}

int KJ_FN(cumsum)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		  size_t msglen)
{
	RED_PROLOGUE;
	RED_LOOP {
		real acc = 0;

		for (int64_t j = 0; j < len; j++) {
			acc += AT(j);
			OUT(j) = acc;
		}
	}
	return 0;
}

#undef OUT
#undef AT
#undef RED_LOOP
#undef RED_PROLOGUE
