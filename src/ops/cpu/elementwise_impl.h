/*
 * Elementwise kernels of table A (unary ops, broadcasting binary ops),
 * written once over a type `real` and compiled twice: cpu64_a.c defines
 * real=double (the oracle), cpu32_a.c real=float (the CPU-track baseline).
 * The including file defines:
 *   real        the element type
 *   KJ_FN(n)    the exported name of op n's kernel (kj_cpu64_n / kj_cpu32_n)
 *   RM(f)       the libm function f for real (exp or expf)
 *   RC(x)       the constant x as a real
 * No include guard: each translation unit includes this exactly once.
 * Kernels never allocate; they read in[] and write every element of out.
 */
#if !defined(KJ_FN) || !defined(RM) || !defined(RC)
#error "define real, KJ_FN, RM and RC before including elementwise_impl.h"
#endif

#include <math.h>
#include <string.h>

#include "ops/op_util.h"

/* Attributes of a unary op, read once per call, not per element. */
struct uparm {
	real a, b;
	int has_a, has_b, mode;
};

static inline __attribute__((always_inline)) int unary_apply(const kj_bnode *n,
							     const real *x, real *out,
							     real (*f)(real, const struct uparm *),
							     const struct uparm *p)
{
	int64_t cnt = kjo_numel(&n->out.shape);

	for (int64_t i = 0; i < cnt; i++)
		out[i] = f(x[i], p);
	return 0;
}

#define UNARY_OP(name, SETUP) \
	int KJ_FN(name)(const kj_bnode *n, const real *const *in, real *out, char *msg, \
			size_t msglen) \
	{ \
		struct uparm p; \
		(void)msg; \
		(void)msglen; \
		memset(&p, 0, sizeof(p)); \
		SETUP; \
		return unary_apply(n, in[0], out, u_##name, &p); \
	}

static inline real sigmoid_r(real x)
{
	/* exp of a non-positive argument only, so neither branch overflows. */
	if (x >= 0)
		return RC(1) / (RC(1) + RM(exp)(-x));
	{
		real e = RM(exp)(x);

		return e / (RC(1) + e);
	}
}

static inline real u_relu(real x, const struct uparm *p)
{
	(void)p;
	return x < 0 ? RC(0) : x;
}

static inline real u_leaky_relu(real x, const struct uparm *p)
{
	return x > 0 ? x : x * p->a;
}

static inline real u_sigmoid(real x, const struct uparm *p)
{
	(void)p;
	return sigmoid_r(x);
}

static inline real u_tanh(real x, const struct uparm *p)
{
	(void)p;
	return RM(tanh)(x);
}

static inline real u_gelu(real x, const struct uparm *p)
{
	if (p->mode) {
		/* sqrt(2/pi) * (x + 0.044715 x^3) */
		real inner = RC(0.79788456080286535588) * (x + RC(0.044715) * x * x * x);

		return RC(0.5) * x * (RC(1) + RM(tanh)(inner));
	}
	return RC(0.5) * x * (RC(1) + RM(erf)(x * RC(0.70710678118654752440)));
}

static inline real u_silu(real x, const struct uparm *p)
{
	(void)p;
	return x * sigmoid_r(x);
}

static inline real u_selu(real x, const struct uparm *p)
{
	const real alpha = RC(1.6732632423543772848170429916717);
	const real scale = RC(1.0507009873554804934193349852946);

	(void)p;
	return x > 0 ? scale * x : scale * alpha * RM(expm1)(x);
}

static inline real u_elu(real x, const struct uparm *p)
{
	return x > 0 ? x : p->a * RM(expm1)(x);
}

static inline real u_hardsigmoid(real x, const struct uparm *p)
{
	(void)p;
	if (x <= RC(-3))
		return RC(0);
	if (x >= RC(3))
		return RC(1);
	return x / RC(6) + RC(0.5);
}

static inline real u_hardswish(real x, const struct uparm *p)
{
	(void)p;
	if (x <= RC(-3))
		return RC(0);
	if (x >= RC(3))
		return x;
	return x * (x + RC(3)) / RC(6);
}

/* NaN passes through both comparisons unchanged, as in PyTorch. */
static inline real u_hardtanh(real x, const struct uparm *p)
{
	if (x < p->a)
		x = p->a;
	if (x > p->b)
		x = p->b;
	return x;
}

static inline real u_softplus(real x, const struct uparm *p)
{
	if (x * p->a > p->b)
		return x;
	return RM(log1p)(RM(exp)(x * p->a)) / p->a;
}

static inline real u_softsign(real x, const struct uparm *p)
{
	(void)p;
	return x / (RC(1) + RM(fabs)(x));
}

static inline real u_exp(real x, const struct uparm *p)
{
	(void)p;
	return RM(exp)(x);
}

static inline real u_log(real x, const struct uparm *p)
{
	(void)p;
	return RM(log)(x);
}

static inline real u_sqrt(real x, const struct uparm *p)
{
	(void)p;
	return RM(sqrt)(x);
}

static inline real u_rsqrt(real x, const struct uparm *p)
{
	(void)p;
	return RC(1) / RM(sqrt)(x);
}

static inline real u_abs(real x, const struct uparm *p)
{
	(void)p;
	return RM(fabs)(x);
}

static inline real u_neg(real x, const struct uparm *p)
{
	(void)p;
	return -x;
}

/* Halves to even, as torch.round: nearbyint in the default rounding mode
 * (which nothing here changes). */
static inline real u_round(real x, const struct uparm *p)
{
	(void)p;
	return RM(nearbyint)(x);
}

/* min first, then max: with min > max every element becomes max (PyTorch). */
static inline real u_clamp(real x, const struct uparm *p)
{
	if (p->has_a && x < p->a)
		x = p->a;
	if (p->has_b && x > p->b)
		x = p->b;
	return x;
}

UNARY_OP(relu, )
UNARY_OP(leaky_relu, p.a = (real)kjo_attr_f(n, 0, 0.01))
UNARY_OP(sigmoid, )
UNARY_OP(tanh, )
UNARY_OP(gelu, p.mode = strcmp(kjo_attr(n, 0)->s, "tanh") == 0)
UNARY_OP(silu, )
UNARY_OP(selu, )
UNARY_OP(elu, p.a = (real)kjo_attr_f(n, 0, 1.0))
UNARY_OP(hardsigmoid, )
UNARY_OP(hardswish, )
UNARY_OP(hardtanh, p.a = (real)kjo_attr_f(n, 0, -1.0); p.b = (real)kjo_attr_f(n, 1, 1.0))
UNARY_OP(softplus, p.a = (real)kjo_attr_f(n, 0, 1.0); p.b = (real)kjo_attr_f(n, 1, 20.0))
UNARY_OP(softsign, )
UNARY_OP(exp, )
UNARY_OP(log, )
UNARY_OP(sqrt, )
UNARY_OP(rsqrt, )
UNARY_OP(abs, )
UNARY_OP(neg, )
UNARY_OP(round, )
UNARY_OP(clamp, p.has_a = kjo_attr_given(n, 0); p.a = (real)kjo_attr_f(n, 0, 0.0);
	 p.has_b = kjo_attr_given(n, 1); p.b = (real)kjo_attr_f(n, 1, 0.0))

/* Walks the output in row-major order; each operand advances by its
 * broadcast strides (0 along stretched dims).  The last dim is the inner
 * loop so that the common same-shape case is a plain linear pass. */
static inline __attribute__((always_inline)) int binary_apply(const kj_bnode *n,
							      const real *a, const real *b,
							      real *out, real (*f)(real, real))
{
	const kj_shape *s = &n->out.shape;
	int r = s->rank;
	int64_t sa[KJ_MAX_RANK] = {0}, sb[KJ_MAX_RANK] = {0}, idx[KJ_MAX_RANK] = {0};
	int64_t total = kjo_numel(s), last, la, lb, oa = 0, ob = 0;

	if (r == 0) {
		out[0] = f(a[0], b[0]);
		return 0;
	}
	if (total == 0)
		return 0;
	kjo_bcast_strides(&n->in[0].shape, s, sa);
	kjo_bcast_strides(&n->in[1].shape, s, sb);
	last = s->d[r - 1];
	la = sa[r - 1];
	lb = sb[r - 1];
	for (int64_t o = 0; o < total; o += last) {
		for (int64_t j = 0; j < last; j++)
			out[o + j] = f(a[oa + j * la], b[ob + j * lb]);
		for (int k = r - 2; k >= 0; k--) {
			idx[k]++;
			oa += sa[k];
			ob += sb[k];
			if (idx[k] < s->d[k])
				break;
			oa -= sa[k] * s->d[k];
			ob -= sb[k] * s->d[k];
			idx[k] = 0;
		}
	}
	return 0;
}

#define BINARY_OP(name) \
	int KJ_FN(name)(const kj_bnode *n, const real *const *in, real *out, char *msg, \
			size_t msglen) \
	{ \
		(void)msg; \
		(void)msglen; \
		return binary_apply(n, in[0], in[1], out, b_##name); \
	}

static inline real b_add(real x, real y)
{
	return x + y;
}

static inline real b_sub(real x, real y)
{
	return x - y;
}

static inline real b_mul(real x, real y)
{
	return x * y;
}

static inline real b_div(real x, real y)
{
	return x / y;
}

/* NaN in either operand gives NaN (torch.maximum), unlike C's fmax. */
static inline real b_maximum(real x, real y)
{
	if (x != x)
		return x;
	if (y != y)
		return y;
	return x > y ? x : y;
}

static inline real b_minimum(real x, real y)
{
	if (x != x)
		return x;
	if (y != y)
		return y;
	return x < y ? x : y;
}

static inline real b_pow(real x, real y)
{
	return RM(pow)(x, y);
}

BINARY_OP(add)
BINARY_OP(sub)
BINARY_OP(mul)
BINARY_OP(div)
BINARY_OP(maximum)
BINARY_OP(minimum)
BINARY_OP(pow)

/* Bitwise ops.  Integer values are carried as reals (exactly, for i8 and
 * i32; i64 beyond 2^53 is beyond every kernel here); the work is done on
 * int64 with the result dtype's width `bits`, as PyTorch computes in the
 * promoted dtype: both operands are first wrapped to it, a left shift wraps
 * its result.  Shift rules are PyTorch's (ATen's lshift/rshift): a shift
 * count < 0 or >= bits gives 0 to the left; to the right, counts < 0 or
 * >= bits - 1 shift by bits - 1 (sign fill). */
static inline int64_t bw_wrap(int64_t v, int bits)
{
	uint64_t sign, u;

	if (bits >= 64)
		return v;
	sign = (uint64_t)1 << (bits - 1);
	u = (uint64_t)v & ((sign << 1) - 1);
	return (int64_t)(u ^ sign) - (int64_t)sign;
}

static inline int64_t bw_shl(int64_t a, int64_t b, int bits)
{
	a = bw_wrap(a, bits);
	b = bw_wrap(b, bits);
	if (b < 0 || b >= bits)
		return 0;
	return bw_wrap((int64_t)((uint64_t)a << b), bits);
}

static inline int64_t bw_shr(int64_t a, int64_t b, int bits)
{
	a = bw_wrap(a, bits);
	b = bw_wrap(b, bits);
	if (b < 0 || b >= bits - 1)
		b = bits - 1;
	return a >= 0 ? a >> b : ~(~a >> b);
}

static inline real b_bitwise_and(real x, real y)
{
	return (real)((int64_t)x & (int64_t)y);
}

static inline real b_bitwise_or(real x, real y)
{
	return (real)((int64_t)x | (int64_t)y);
}

static inline real b_bitwise_xor(real x, real y)
{
	return (real)((int64_t)x ^ (int64_t)y);
}

#define SHIFT_FNS(w) \
	static inline real b_shl##w(real x, real y) \
	{ \
		return (real)bw_shl((int64_t)x, (int64_t)y, w); \
	} \
	static inline real b_shr##w(real x, real y) \
	{ \
		return (real)bw_shr((int64_t)x, (int64_t)y, w); \
	}
SHIFT_FNS(8)
SHIFT_FNS(32)
SHIFT_FNS(64)

BINARY_OP(bitwise_and)
BINARY_OP(bitwise_or)
BINARY_OP(bitwise_xor)

#define SHIFT_OP(name, dir) \
	int KJ_FN(name)(const kj_bnode *n, const real *const *in, real *out, char *msg, \
			size_t msglen) \
	{ \
		(void)msg; \
		(void)msglen; \
		switch (n->out.dtype) { \
		case KJ_I8: \
			return binary_apply(n, in[0], in[1], out, b_##dir##8); \
		case KJ_I32: \
			return binary_apply(n, in[0], in[1], out, b_##dir##32); \
		default: \
			return binary_apply(n, in[0], in[1], out, b_##dir##64); \
		} \
	}
SHIFT_OP(bitwise_left_shift, shl)
SHIFT_OP(bitwise_right_shift, shr)
