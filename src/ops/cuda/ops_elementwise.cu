/*
 * CUDA elementwise ops: the unary activations and math functions of table A
 * and the broadcasting binary ops (add ... pow), for the eager baseline and
 * the reference.  Formulas mirror src/ops/cpu/elementwise_impl.h term for
 * term; only the arithmetic type differs (float for the baseline's float
 * dtypes, double for the reference and for integer results).
 *
 * Unary ops are one grid-stride pass with 16-byte loads and stores.  Binary
 * ops coalesce the broadcast shape into rows of a contiguous inner run: the
 * same-shape case is one row, a bias over [N, D] is N rows of D, and an
 * operand that is constant along the run (a scalar, a stretched dim) is
 * loaded once per row.  Mixed dtypes go through a per-element kernel that
 * converts by dtype at run time.
 *
 * The comparisons of table E (less, less_equal, greater, greater_equal,
 * mirroring src/ops/cpu/random_impl.h): each operand is read by its runtime
 * dtype (kjd_load), converted to the promoted dtype of the two
 * (kjd_round_to, as the CPU kernels do with kj_round_to) and compared; the
 * result is a bool byte (baseline) or 0.0/1.0 (reference).  An operand with
 * the output's shape is read at the element's own index, a one-element one
 * at index 0, anything else through broadcast strides.
 */
#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_e.h"
}

/* ---- unary ---- */

enum {
	U_RELU, U_LEAKY, U_SIGMOID, U_TANH, U_GELU, U_SILU, U_SELU, U_ELU, U_HSIG, U_HSWISH,
	U_HTANH, U_SOFTPLUS, U_SOFTSIGN, U_EXP, U_LOG, U_SQRT, U_RSQRT, U_ABS, U_NEG, U_CLAMP,
	U_ROUND,
};

/* torch.round: halves to even, as rint in the default rounding mode. */
__device__ __forceinline__ float m_rint(float x) { return rintf(x); }
__device__ __forceinline__ double m_rint(double x) { return rint(x); }

template <class A> struct kj_up {
	A a, b;
	int has_a, has_b, mode;
};

struct kj_upar {
	double a, b;
	int has_a, has_b, mode;
};

template <class A> static kj_up<A> up_cast(const kj_upar &p)
{
	kj_up<A> r;
	r.a = (A)p.a;
	r.b = (A)p.b;
	r.has_a = p.has_a;
	r.has_b = p.has_b;
	r.mode = p.mode;
	return r;
}

/* exp of a non-positive argument only, so neither form overflows; one exp,
 * one correctly rounded reciprocal and a select instead of a branch, which
 * random signs would diverge on (e * r is within an ulp of e / (1 + e)). */
template <class A> __device__ __forceinline__ A k_sigmoid(A x)
{
	A e = m_exp(-m_fabs(x)), r = m_rcp((A)1 + e);
	return x >= 0 ? r : e * r;
}

template <int K, class A> __device__ __forceinline__ A uop(A x, const kj_up<A> &p)
{
	switch (K) {
	case U_RELU:
		return x < 0 ? (A)0 : x;
	case U_LEAKY:
		return x > 0 ? x : x * p.a;
	case U_SIGMOID:
		return k_sigmoid(x);
	case U_TANH:
		return m_tanh(x);
	case U_GELU:
		if (p.mode) {
			A inner = (A)0.79788456080286535588 * (x + (A)0.044715 * x * x * x);
			return (A)0.5 * x * ((A)1 + m_tanh(inner));
		}
		return (A)0.5 * x * ((A)1 + m_erf(x * (A)0.70710678118654752440));
	case U_SILU:
		return x * k_sigmoid(x);
	case U_SELU:
		return x > 0 ? (A)1.0507009873554804934193349852946 * x
			     : (A)1.0507009873554804934193349852946 *
				       (A)1.6732632423543772848170429916717 * m_expm1(x);
	case U_ELU:
		return x > 0 ? x : p.a * m_expm1(x);
	case U_HSIG:
		if (x <= (A)-3)
			return 0;
		if (x >= (A)3)
			return 1;
		return x / (A)6 + (A)0.5;
	case U_HSWISH:
		if (x <= (A)-3)
			return 0;
		if (x >= (A)3)
			return x;
		return x * (x + (A)3) / (A)6;
	case U_HTANH:
		if (x < p.a)
			x = p.a;
		if (x > p.b)
			x = p.b;
		return x;
	case U_SOFTPLUS:
		if (x * p.a > p.b)
			return x;
		return m_log1p(m_exp(x * p.a)) / p.a;
	case U_SOFTSIGN:
		return x / ((A)1 + m_fabs(x));
	case U_EXP:
		return m_exp(x);
	case U_LOG:
		return m_log(x);
	case U_SQRT:
		return m_sqrt(x);
	case U_RSQRT:
		return (A)1 / m_sqrt(x);
	case U_ABS:
		return m_fabs(x);
	case U_NEG:
		return -x;
	case U_ROUND:
		return m_rint(x);
	default: /* U_CLAMP: min first, then max, as PyTorch */
		if (p.has_a && x < p.a)
			x = p.a;
		if (p.has_b && x > p.b)
			x = p.b;
		return x;
	}
}

/* The 16-bit vector path: sigmoid and silu with the hardware exp2 and an
 * approximate reciprocal of 1 + e (in [1, 2]): a few f32 ulps, far below
 * the one rounding to 8 or 11 bits that follows, and fewer f32
 * instructions, which bound silu on bf16 (H200: 1.178 ms with the exact
 * forms, 1.038 with these, 86% -> 97% of copy bandwidth; KJ_FAST16=0 turns
 * it off, for measurements). */
template <int K, class T>
__device__ __forceinline__ typename kjt<T>::acc uop_v(typename kjt<T>::acc x,
						      const kj_up<typename kjt<T>::acc> &p, int fast)
{
	if (sizeof(T) == 2 && (K == U_SIGMOID || K == U_SILU) && fast) {
		float e = __expf(-fabsf((float)x)), r = __fdividef(1.0f, 1.0f + e);
		float sg = x >= 0 ? r : e * r;
		return K == U_SILU ? x * sg : sg;
	}
	return uop<K>(x, p);
}

/* Four 16-byte vectors per thread, loaded before any is used, keep enough
 * bytes in flight to saturate HBM; block 0 also does the tail (< one
 * vector) element by element. */
#define KJ_UNROLL 4

template <int K, class T>
__global__ void __launch_bounds__(256) unary_vec_k(const T *__restrict__ x, T *__restrict__ y,
						    int64_t n, kj_up<typename kjt<T>::acc> p, int fast)
{
	typedef kjt<T> tt;
	const int N = kjv<T>::N;
	int64_t nv = n / N, base = (int64_t)blockIdx.x * blockDim.x * KJ_UNROLL + threadIdx.x;
	const kjv<T> *xv = (const kjv<T> *)x;
	kjv<T> *yv = (kjv<T> *)y, v[KJ_UNROLL];

#pragma unroll
	for (int u = 0; u < KJ_UNROLL; u++)
		if (base + u * blockDim.x < nv)
			v[u] = xv[base + u * blockDim.x];
#pragma unroll
	for (int u = 0; u < KJ_UNROLL; u++) {
		if (base + u * blockDim.x < nv) {
#pragma unroll
			for (int k = 0; k < N; k++)
				v[u].e[k] = tt::st(uop_v<K, T>(tt::ld(v[u].e[k]), p, fast));
			yv[base + u * blockDim.x] = v[u];
		}
	}
	if (blockIdx.x == 0)
		for (int64_t i = nv * N + threadIdx.x; i < n; i += blockDim.x)
			y[i] = tt::st(uop_v<K, T>(tt::ld(x[i]), p, fast));
}

template <int K, class A>
__global__ void unary_dyn_k(const void *x, int xdt, void *y, int ydt, int64_t n, kj_up<A> p)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		kjd_store(ydt, y, (size_t)i, (double)uop<K>((A)kjd_load(xdt, x, (size_t)i), p));
}

template <int K, class T>
static void unary_launch(kj_gpu *g, const void *x, void *y, int64_t n, const kj_upar &p)
{
	int64_t nv = n / kjv<T>::N, blocks = (nv + 256 * KJ_UNROLL - 1) / (256 * KJ_UNROLL);
	if (blocks < 1)
		blocks = 1;
	unary_vec_k<K, T><<<(unsigned)blocks, 256, 0, g->stream>>>(
		(const T *)x, (T *)y, n, up_cast<typename kjt<T>::acc>(p), (int)kj_knob_int("KJ_FAST16"));
}

template <int K>
static int unary_run(kj_gpu *g, const kj_bnode *n, const void *x, void *y, int reference,
		     const kj_upar &p, struct kj_err *err)
{
	int64_t cnt = kjo_numel(&n->out.shape);
	kj_dtype it = n->in[0].dtype, ot = n->out.dtype;

	if (cnt == 0)
		return 0;
	if (reference) {
		unary_launch<K, double>(g, x, y, cnt, p);
	} else if (it == ot && kj_aligned16(x) && kj_aligned16(y) && ot == KJ_F32) {
		unary_launch<K, float>(g, x, y, cnt, p);
	} else if (it == ot && kj_aligned16(x) && kj_aligned16(y) && ot == KJ_F16) {
		unary_launch<K, __half>(g, x, y, cnt, p);
	} else if (it == ot && kj_aligned16(x) && kj_aligned16(y) && ot == KJ_BF16) {
		unary_launch<K, __nv_bfloat16>(g, x, y, cnt, p);
	} else if (kjo_is_float(ot)) {
		unary_dyn_k<K, float><<<kj_blocks(g, cnt, 256), 256, 0, g->stream>>>(
			x, it, y, ot, cnt, up_cast<float>(p));
	} else {
		unary_dyn_k<K, double><<<kj_blocks(g, cnt, 256), 256, 0, g->stream>>>(
			x, it, y, ot, cnt, up_cast<double>(p));
	}
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

#define UNARY_OP(name, K, SETUP) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err) \
	{ \
		kj_upar p; \
		memset(&p, 0, sizeof(p)); \
		SETUP; \
		return unary_run<K>(g, n, in[0], out, reference, p, err); \
	}

/* Attributes are rounded to the arithmetic type as the CPU kernels do
 * ((real)kjo_attr_f): float for the baseline, exact for the reference. */
#define ATTR_F(k, def) kjo_attr_f(n, k, def)

UNARY_OP(relu, U_RELU, )
UNARY_OP(leaky_relu, U_LEAKY, p.a = ATTR_F(0, 0.01))
UNARY_OP(sigmoid, U_SIGMOID, )
UNARY_OP(tanh, U_TANH, )
UNARY_OP(gelu, U_GELU, p.mode = strcmp(kjo_attr(n, 0)->s, "tanh") == 0)
UNARY_OP(silu, U_SILU, )
UNARY_OP(selu, U_SELU, )
UNARY_OP(elu, U_ELU, p.a = ATTR_F(0, 1.0))
UNARY_OP(hardsigmoid, U_HSIG, )
UNARY_OP(hardswish, U_HSWISH, )
UNARY_OP(hardtanh, U_HTANH, p.a = ATTR_F(0, -1.0); p.b = ATTR_F(1, 1.0))
UNARY_OP(softplus, U_SOFTPLUS, p.a = ATTR_F(0, 1.0); p.b = ATTR_F(1, 20.0))
UNARY_OP(softsign, U_SOFTSIGN, )
UNARY_OP(exp, U_EXP, )
UNARY_OP(log, U_LOG, )
UNARY_OP(sqrt, U_SQRT, )
UNARY_OP(rsqrt, U_RSQRT, )
UNARY_OP(abs, U_ABS, )
UNARY_OP(neg, U_NEG, )
UNARY_OP(round, U_ROUND, )
UNARY_OP(clamp, U_CLAMP, p.has_a = kjo_attr_given(n, 0); p.a = ATTR_F(0, 0.0);
	 p.has_b = kjo_attr_given(n, 1); p.b = ATTR_F(1, 0.0))

/* ---- binary ---- */

template <int K, class A> __device__ __forceinline__ A bop(A x, A y)
{
	switch (K) {
	case KJ_B_ADD:
		return x + y;
	case KJ_B_SUB:
		return x - y;
	case KJ_B_MUL:
		return x * y;
	case KJ_B_DIV:
		return x / y;
	case KJ_B_MAX: /* NaN in either gives NaN, unlike fmax */
		if (x != x)
			return x;
		if (y != y)
			return y;
		return x > y ? x : y;
	case KJ_B_MIN:
		if (x != x)
			return x;
		if (y != y)
			return y;
		return x < y ? x : y;
	case KJ_B_POW:
		/* x ** 2 as x * x (correctly rounded, as PyTorch's pow by a scalar
		 * 2 does): powf's log/exp took triplet_margin_loss's pow to 0.89 ms
		 * where a 16384^2 square moves its bytes in 0.50 (H200) */
		if (y == (A)2)
			return x * x;
		return m_pow(x, y);
	default: { /* KJ_B_SQDIFF: mse_loss without reduction */
		A d = x - y;
		return d * d;
	}
	}
}

/* The output seen as rows of a contiguous inner run after coalescing: dims
 * d[0..r-2] index rows, d[r-1] = inner.  la/lb: the operand moves along the
 * run (stride 1) or stays (0, loaded once per row, any dtype). */
struct kj_bgeom {
	int r;
	int64_t d[KJ_MAX_RANK], sa[KJ_MAX_RANK], sb[KJ_MAX_RANK], sy[KJ_MAX_RANK];
	int64_t rows, inner;
	int la, lb, adt, bdt;
};

/* Offsets of row `row` (enumerated over dims 0..r-2 in the order stored,
 * which need not be the output's) in a, b and the output. */
__device__ __forceinline__ void row_offsets(const kj_bgeom &gm, int64_t row, int64_t *oa,
					    int64_t *ob, int64_t *oy)
{
	int64_t a = 0, b = 0, y = 0;
	for (int k = gm.r - 2; k >= 0; k--) {
		int64_t q = row / gm.d[k], c = row - q * gm.d[k];
		a += c * gm.sa[k];
		b += c * gm.sb[k];
		y += c * gm.sy[k];
		row = q;
	}
	*oa = a;
	*ob = b;
	*oy = y;
}

/* Row `row` of y = a op b: returns the output row; *ar, *br the operands'
 * rows; *va, *vb the value of an operand that stays along the row (0 for
 * one that moves). */
template <class T, class A>
__device__ __forceinline__ T *row_setup(const kj_bgeom &gm, const void *a, const void *b, T *y, int64_t row,
					const T **ar, const T **br, A *va, A *vb)
{
	int64_t oa, ob, oy;
	row_offsets(gm, row, &oa, &ob, &oy);
	*va = gm.la ? (A)0 : (A)kjd_load(gm.adt, a, (size_t)oa);
	*vb = gm.lb ? (A)0 : (A)kjd_load(gm.bdt, b, (size_t)ob);
	*ar = (const T *)a + oa;
	*br = (const T *)b + ob;
	return y + oy;
}

template <int K, class T, bool VEC>
__global__ void binary_rows_k(const void *a, const void *b, T *__restrict__ y, kj_bgeom gm)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const int N = VEC ? kjv<T>::N : 1;
	const int U = VEC ? 2 : 4; /* items of a row a thread loads before computing */
	int64_t items = gm.inner / N, xs = (int64_t)gridDim.x * blockDim.x;

	for (int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; row < gm.rows;
	     row += (int64_t)gridDim.y * blockDim.y) {
		const T *ar, *br;
		A va, vb;
		T *yr = row_setup(gm, a, b, y, row, &ar, &br, &va, &vb);
		for (int64_t j0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j0 < items;
		     j0 += U * xs) {
			if (VEC) {
				kjv<T> xa[U], xb[U];
#pragma unroll
				for (int u = 0; u < U; u++) {
					int64_t j = j0 + u * xs;
					if (j < items && gm.la)
						xa[u] = ((const kjv<T> *)ar)[j];
					if (j < items && gm.lb)
						xb[u] = ((const kjv<T> *)br)[j];
				}
#pragma unroll
				for (int u = 0; u < U; u++) {
					int64_t j = j0 + u * xs;
					kjv<T> xo;
					if (j >= items)
						break;
#pragma unroll
					for (int k = 0; k < kjv<T>::N; k++)
						xo.e[k] = tt::st(bop<K>(gm.la ? tt::ld(xa[u].e[k]) : va,
									gm.lb ? tt::ld(xb[u].e[k]) : vb));
					((kjv<T> *)yr)[j] = xo;
				}
			} else {
				A u_[U], w_[U];
#pragma unroll
				for (int u = 0; u < U; u++) {
					int64_t j = j0 + u * xs;
					u_[u] = j < items && gm.la ? tt::ld(ar[j]) : va;
					w_[u] = j < items && gm.lb ? tt::ld(br[j]) : vb;
				}
#pragma unroll
				for (int u = 0; u < U; u++) {
					int64_t j = j0 + u * xs;
					if (j < items)
						yr[j] = tt::st(bop<K>(u_[u], w_[u]));
				}
			}
		}
	}
}

/* Rows whose starts are not all on 16-byte boundaries (an odd inner
 * length: mul_broadcast's rows of 4099 floats): each row's head up to the
 * output's first 16-byte boundary and its tail are stored one element at a
 * time, the middle in 16-byte words of N consecutive outputs whose operands
 * are loaded one element at a time (the output dominates the traffic; the
 * operands' 4-byte loads of a warp cover consecutive lines). */
template <int K, class T>
__global__ void binary_rows_vs_k(const void *a, const void *b, T *__restrict__ y, kj_bgeom gm)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const int N = kjv<T>::N;
	int64_t xs = (int64_t)gridDim.x * blockDim.x, tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; row < gm.rows;
	     row += (int64_t)gridDim.y * blockDim.y) {
		const T *ar, *br;
		A va, vb;
		T *yr = row_setup(gm, a, b, y, row, &ar, &br, &va, &vb);
		int64_t h = (int64_t)((N - (int)(((uintptr_t)yr / sizeof(T)) % N)) % N);
		if (h > gm.inner)
			h = gm.inner;
		int64_t nv = (gm.inner - h) / N, t0 = h + nv * N;
		/* the head and the tail: at most N - 1 elements each, and a row
		 * may have fewer threads than that along it */
		for (int64_t j = tid; j < h; j += xs)
			yr[j] = tt::st(bop<K>(gm.la ? tt::ld(ar[j]) : va, gm.lb ? tt::ld(br[j]) : vb));
		for (int64_t j = t0 + tid; j < gm.inner; j += xs)
			yr[j] = tt::st(bop<K>(gm.la ? tt::ld(ar[j]) : va, gm.lb ? tt::ld(br[j]) : vb));
		kjv<T> *yv = (kjv<T> *)(yr + h);
#pragma unroll 2
		for (int64_t v = tid; v < nv; v += xs) {
			int64_t j = h + v * N;
			kjv<T> o;
#pragma unroll
			for (int k = 0; k < N; k++)
				o.e[k] = tt::st(bop<K>(gm.la ? tt::ld(ar[j + k]) : va, gm.lb ? tt::ld(br[j + k]) : vb));
			yv[v] = o;
		}
	}
}

template <int K, class A>
__global__ void binary_dyn_k(const void *a, const void *b, void *y, int ydt, kj_bgeom gm,
			     int64_t total)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
		int64_t rem = i, oa = 0, ob = 0, oy = 0;
		for (int k = gm.r - 1; k >= 0; k--) {
			int64_t q = rem / gm.d[k], c = rem - q * gm.d[k];
			oa += c * gm.sa[k];
			ob += c * gm.sb[k];
			oy += c * gm.sy[k];
			rem = q;
		}
		A u = (A)kjd_load(gm.adt, a, (size_t)oa), w = (A)kjd_load(gm.bdt, b, (size_t)ob);
		kjd_store(ydt, y, (size_t)oy, (double)bop<K>(u, w));
	}
}

/* Mixed dtypes (f32 * bool, integer outputs): the row structure of
 * binary_rows_k with element loads and stores through the dtype codes,
 * whose switch is uniform across a warp; the row offsets are paid once per
 * row instead of once per element. */
template <int K, class A>
__global__ void binary_rows_dyn_k(const void *a, const void *b, void *y, int ydt, kj_bgeom gm)
{
	int64_t xs = (int64_t)gridDim.x * blockDim.x;
	for (int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; row < gm.rows;
	     row += (int64_t)gridDim.y * blockDim.y) {
		int64_t oa, ob, oy;
		row_offsets(gm, row, &oa, &ob, &oy);
		A va = gm.la ? (A)0 : (A)kjd_load(gm.adt, a, (size_t)oa);
		A vb = gm.lb ? (A)0 : (A)kjd_load(gm.bdt, b, (size_t)ob);
		for (int64_t j0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j0 < gm.inner;
		     j0 += 4 * xs) {
			A u[4], w[4];
#pragma unroll
			for (int q = 0; q < 4; q++) {
				int64_t j = j0 + q * xs;
				u[q] = j < gm.inner && gm.la ? (A)kjd_load(gm.adt, a, (size_t)(oa + j)) : va;
				w[q] = j < gm.inner && gm.lb ? (A)kjd_load(gm.bdt, b, (size_t)(ob + j)) : vb;
			}
#pragma unroll
			for (int q = 0; q < 4; q++) {
				int64_t j = j0 + q * xs;
				if (j < gm.inner)
					kjd_store(ydt, y, (size_t)(oy + j), (double)bop<K>(u[q], w[q]));
			}
		}
	}
}

/* Output strides of the coalesced dims, then the row dims (0..r-2)
 * reordered so that the dims along which the larger operand stays put are
 * enumerated innermost: consecutive rows then reuse that operand's row
 * while it is in cache, instead of streaming it again from DRAM once per
 * row of the other operand (y[B,M,N] = a[B,1,N] * b[M,N] with b larger than
 * the L2 share a row sweep leaves it). */
static void order_rows(kj_bgeom *gm, int64_t abytes, int64_t bbytes)
{
	int64_t s = 1;
	for (int k = gm->r - 1; k >= 0; k--) {
		gm->sy[k] = s;
		s *= gm->d[k];
	}
	const int64_t *big = abytes >= bbytes ? gm->sa : gm->sb;
	int ord[KJ_MAX_RANK], n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int k = 0; k < gm->r - 1; k++)
			if ((big[k] == 0) == (pass == 1))
				ord[n++] = k;
	kj_bgeom t = *gm;
	for (int k = 0; k < n; k++) {
		gm->d[k] = t.d[ord[k]];
		gm->sa[k] = t.sa[ord[k]];
		gm->sb[k] = t.sb[ord[k]];
		gm->sy[k] = t.sy[ord[k]];
	}
}

/* Drops unit dims and merges dim k into k+1 where both operands step
 * through them as one run. */
static void coalesce(kj_bgeom *gm)
{
	int r = 0;
	for (int k = 0; k < gm->r; k++) {
		if (gm->d[k] == 1)
			continue;
		if (r > 0 && gm->sa[r - 1] == gm->sa[k] * gm->d[k] &&
		    gm->sb[r - 1] == gm->sb[k] * gm->d[k]) {
			gm->d[r - 1] *= gm->d[k];
			gm->sa[r - 1] = gm->sa[k];
			gm->sb[r - 1] = gm->sb[k];
			continue;
		}
		gm->d[r] = gm->d[k];
		gm->sa[r] = gm->sa[k];
		gm->sb[r] = gm->sb[k];
		r++;
	}
	if (r == 0) {
		gm->d[0] = 1;
		gm->sa[0] = 0;
		gm->sb[0] = 0;
		r = 1;
	}
	gm->r = r;
}

/* The broadcast geometry of y = a op b: output dims, both operands' strides
 * through them, coalesced; whether each moves along the last dim; buffer
 * dtype codes. */
static void bgeom_init(kj_bgeom *gm, const kj_tinfo *ta, const kj_tinfo *tb, const kj_tinfo *to,
		       int reference)
{
	memset(gm, 0, sizeof(*gm));
	gm->r = to->shape.rank;
	for (int k = 0; k < gm->r; k++)
		gm->d[k] = to->shape.d[k];
	kjo_bcast_strides(&ta->shape, &to->shape, gm->sa);
	kjo_bcast_strides(&tb->shape, &to->shape, gm->sb);
	coalesce(gm);
	gm->la = gm->sa[gm->r - 1] != 0;
	gm->lb = gm->sb[gm->r - 1] != 0;
	gm->adt = kj_buf_dt(ta->dtype, reference);
	gm->bdt = kj_buf_dt(tb->dtype, reference);
}

/* vec: binary_rows_k with vector loads; vs: binary_rows_vs_k (vector
 * stores only); neither: binary_rows_k element by element. */
template <int K, class T>
static void binary_rows_launch(kj_gpu *g, const void *a, const void *b, void *y, kj_bgeom gm,
			       bool vec, bool vs = false)
{
	int64_t items = vec || vs ? gm.inner / kjv<T>::N : gm.inner, gy;
	int bx = 1, by;
	unsigned gx;

	/* short rows share a warp (bx below 32): a [T, H, 64] bf16 row is 8
	 * vectors, and a warp per row left 3/4 of the lanes idle (rope's
	 * broadcast multiplies ran at 1/6 of copy bandwidth on the H200) */
	int per = vec ? 4 : 8, u = vec ? 2 : 4;
	while (bx < 32 && bx * u < items)
		bx *= 2;
	while (bx < 256 && bx * per < items)
		bx *= 2;
	by = 256 / bx;
	gx = kj_blocks(g, items, bx);
	/* with many rows, each thread takes several items of a row (loaded
	 * together), so that the row's offset arithmetic is paid once for
	 * many elements */
	if (gm.rows > 1)
		gx = (unsigned)((items + per * bx - 1) / (per * bx));
	gy = (gm.rows + by - 1) / by;
	if (gy > 65535)
		gy = 65535;
	dim3 grid(gx, (unsigned)gy), block((unsigned)bx, (unsigned)by);
	if (vs)
		binary_rows_vs_k<K, T><<<grid, block, 0, g->stream>>>(a, b, (T *)y, gm);
	else if (vec)
		binary_rows_k<K, T, true><<<grid, block, 0, g->stream>>>(a, b, (T *)y, gm);
	else
		binary_rows_k<K, T, false><<<grid, block, 0, g->stream>>>(a, b, (T *)y, gm);
}

/* Vector loads need every row start of every moving operand on a 16-byte
 * boundary: aligned bases and strides that are multiples of the width. */
static bool rows_vec_ok(const kj_bgeom &gm, const void *a, const void *b, const void *y, int N)
{
	if (gm.inner % N || !kj_aligned16(y))
		return false;
	if (gm.la && !kj_aligned16(a))
		return false;
	if (gm.lb && !kj_aligned16(b))
		return false;
	for (int k = 0; k < gm.r - 1; k++)
		if ((gm.la && gm.sa[k] % N) || (gm.lb && gm.sb[k] % N))
			return false;
	return true;
}

/* binary_rows_launch with vector loads where rows_vec_ok allows; a single
 * row whose length is not a multiple of the width (lion_step's N =
 * 50000017) runs its longest multiple with vector loads and the last few
 * elements in a second, scalar launch (the whole row went scalar before, at
 * 20% below the even shape on the H200). */
template <int K, class T>
static void binary_rows_go(kj_gpu *g, const void *a, const void *b, void *y, const kj_bgeom &gm, int N)
{
	if (rows_vec_ok(gm, a, b, y, N)) {
		binary_rows_launch<K, T>(g, a, b, y, gm, true);
		return;
	}
	int64_t tail = gm.inner % N;
	if (gm.rows == 1 && tail && gm.inner > N) {
		kj_bgeom m = gm;
		m.inner -= tail;
		if (rows_vec_ok(m, a, b, y, N)) {
			kj_bgeom t = gm;
			t.inner = tail;
			binary_rows_launch<K, T>(g, a, b, y, m, true);
			binary_rows_launch<K, T>(g, gm.la ? (const void *)((const T *)a + m.inner) : a,
						 gm.lb ? (const void *)((const T *)b + m.inner) : b, (T *)y + m.inner,
						 t, false);
			return;
		}
	}
	/* many rows of a length that leaves row starts unaligned: 16-byte
	 * stores (KJ_BIN_VS=0 turns it off, for measurements) */
	if (gm.rows > 1 && gm.inner >= 4 * N && sizeof(T) < 8 && kj_aligned16(y) &&
	    kj_knob_int("KJ_BIN_VS")) {
		binary_rows_launch<K, T>(g, a, b, y, gm, false, true);
		return;
	}
	binary_rows_launch<K, T>(g, a, b, y, gm, false);
}

/* A float tensor and a bool one of the same shape (x * mask): 16-byte words
 * of the float side with the matching 4- or 8-byte word of the bool side,
 * typed, where the mixed-dtype kernel loads each element through dtype
 * codes (cumsum(x * mask) ran 1.6x PyTorch on the H200).  BA: a is the
 * bool operand. */
template <int K, class T, int V, class CW, bool BA>
__global__ void binary_fb_k(const void *a, const void *b, T *__restrict__ y, int64_t nw)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const CW *m = (const CW *)(BA ? a : b);
	const uint4 *x = (const uint4 *)(BA ? b : a);
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (int64_t)gridDim.x * blockDim.x) {
		CW mw = m[i];
		uint4 xv = x[i], r;
		const unsigned char *mb = (const unsigned char *)&mw;
		const T *xe = (const T *)&xv;
		T *re = (T *)&r;
#pragma unroll
		for (int t = 0; t < V; t++) {
			A u = tt::ld(xe[t]), w = mb[t] ? (A)1 : (A)0;
			re[t] = tt::st(BA ? bop<K>(w, u) : bop<K>(u, w));
		}
		((uint4 *)y)[i] = r;
	}
}

template <int K, class T, int V, class CW>
static bool binary_fb(kj_gpu *g, const kj_tinfo *ta, const void *a, const kj_tinfo *tb,
		      const void *b, void *y, int64_t total)
{
	bool ba = ta->dtype == KJ_BOOL;
	const void *m = ba ? a : b, *x = ba ? b : a;
	if (total % V || ((uintptr_t)x & 15) || ((uintptr_t)y & 15) || ((uintptr_t)m & (sizeof(CW) - 1)))
		return false;
	int64_t nw = total / V;
	if (ba)
		binary_fb_k<K, T, V, CW, true><<<kj_blocks(g, nw, 256), 256, 0, g->stream>>>(a, b, (T *)y, nw);
	else
		binary_fb_k<K, T, V, CW, false><<<kj_blocks(g, nw, 256), 256, 0, g->stream>>>(a, b, (T *)y, nw);
	return true;
}

template <int K>
static int binary_run(kj_gpu *g, const kj_tinfo *ta, const void *a, const kj_tinfo *tb,
		      const void *b, const kj_tinfo *to, void *y, int reference, struct kj_err *err)
{
	kj_bgeom gm;
	int64_t total = kjo_numel(&to->shape);
	kj_dtype ot = to->dtype;

	if (total == 0)
		return 0;
	bgeom_init(&gm, ta, tb, to, reference);
	gm.inner = gm.d[gm.r - 1];
	gm.rows = total / gm.inner;
	order_rows(&gm, kjo_numel(&ta->shape) * kj_dtype_size(ta->dtype),
		   kjo_numel(&tb->shape) * kj_dtype_size(tb->dtype));

	/* x * mask with both of the output's shape */
	if (!reference && kjo_numel(&ta->shape) == total && kjo_numel(&tb->shape) == total &&
	    ((ta->dtype == KJ_BOOL && tb->dtype == ot) || (tb->dtype == KJ_BOOL && ta->dtype == ot))) {
		bool done = false;
		if (ot == KJ_F32)
			done = binary_fb<K, float, 4, unsigned>(g, ta, a, tb, b, y, total);
		else if (ot == KJ_F16)
			done = binary_fb<K, __half, 8, unsigned long long>(g, ta, a, tb, b, y, total);
		else if (ot == KJ_BF16)
			done = binary_fb<K, __nv_bfloat16, 8, unsigned long long>(g, ta, a, tb, b, y, total);
		if (done) {
			KJ_LAUNCH_CHECK(err, "binary op");
			return 0;
		}
	}
	bool typed = reference || ((ot == KJ_F32 || ot == KJ_F16 || ot == KJ_BF16) &&
				   (!gm.la || ta->dtype == ot) && (!gm.lb || tb->dtype == ot));
	if (typed) {
		if (reference)
			binary_rows_go<K, double>(g, a, b, y, gm, 2);
		else if (ot == KJ_F32)
			binary_rows_go<K, float>(g, a, b, y, gm, 4);
		else if (ot == KJ_F16)
			binary_rows_go<K, __half>(g, a, b, y, gm, 8);
		else
			binary_rows_go<K, __nv_bfloat16>(g, a, b, y, gm, 8);
	} else if (kjo_is_float(ot)) {
		int bx = 1;
		while (bx < 256 && bx * 8 < gm.inner)
			bx *= 2;
		int by = 256 / bx;
		int64_t gx = gm.rows > 1 ? (gm.inner + 8 * bx - 1) / (8 * bx) : kj_blocks(g, gm.inner, bx);
		int64_t gy = (gm.rows + by - 1) / by;
		dim3 grid((unsigned)gx, (unsigned)(gy < 65535 ? gy : 65535)), block((unsigned)bx, (unsigned)by);
		binary_rows_dyn_k<K, float><<<grid, block, 0, g->stream>>>(a, b, y, ot, gm);
	} else {
		binary_dyn_k<K, double><<<kj_blocks(g, total, 256), 256, 0, g->stream>>>(a, b, y, ot,
											 gm, total);
	}
	KJ_LAUNCH_CHECK(err, "binary op");
	return 0;
}

int kj_cuda_binary(kj_gpu *g, int kind, const kj_tinfo *ta, const void *a, const kj_tinfo *tb,
		   const void *b, const kj_tinfo *to, void *out, int reference, struct kj_err *err)
{
	switch (kind) {
	case KJ_B_ADD:
		return binary_run<KJ_B_ADD>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_SUB:
		return binary_run<KJ_B_SUB>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_MUL:
		return binary_run<KJ_B_MUL>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_DIV:
		return binary_run<KJ_B_DIV>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_MAX:
		return binary_run<KJ_B_MAX>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_MIN:
		return binary_run<KJ_B_MIN>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_POW:
		return binary_run<KJ_B_POW>(g, ta, a, tb, b, to, out, reference, err);
	case KJ_B_SQDIFF:
		return binary_run<KJ_B_SQDIFF>(g, ta, a, tb, b, to, out, reference, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "unknown binary kind %d", kind);
	}
}

#define BINARY_OP(name, K) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err) \
	{ \
		return kj_cuda_binary(g, K, &n->in[0], in[0], &n->in[1], in[1], &n->out, out, \
				      reference, err); \
	}

BINARY_OP(add, KJ_B_ADD)
BINARY_OP(sub, KJ_B_SUB)
BINARY_OP(mul, KJ_B_MUL)
BINARY_OP(div, KJ_B_DIV)
BINARY_OP(maximum, KJ_B_MAX)
BINARY_OP(minimum, KJ_B_MIN)
BINARY_OP(pow, KJ_B_POW)

/* ---- bitwise ops (integer and bool operands) ----
 * The values are loaded as 64-bit integers (from the dtype's own width, or
 * from the reference's doubles, which hold them exactly), combined at the
 * result dtype's width `bits` with PyTorch's shift rules (the CPU kernels
 * of elementwise_impl.h give the same rules), and stored back. */

enum { KJ_BW_AND, KJ_BW_OR, KJ_BW_XOR, KJ_BW_SHL, KJ_BW_SHR };

__device__ __forceinline__ long long bw_wrap(long long v, int bits)
{
	if (bits >= 64)
		return v;
	unsigned long long sign = 1ull << (bits - 1);
	unsigned long long u = (unsigned long long)v & ((sign << 1) - 1);
	return (long long)(u ^ sign) - (long long)sign;
}

template <int K> __device__ __forceinline__ long long bwop(long long a, long long b, int bits)
{
	switch (K) {
	case KJ_BW_AND:
		return a & b;
	case KJ_BW_OR:
		return a | b;
	case KJ_BW_XOR:
		return a ^ b;
	case KJ_BW_SHL:
		a = bw_wrap(a, bits);
		b = bw_wrap(b, bits);
		if (b < 0 || b >= bits)
			return 0;
		return bw_wrap((long long)((unsigned long long)a << b), bits);
	default: /* KJ_BW_SHR: arithmetic */
		a = bw_wrap(a, bits);
		b = bw_wrap(b, bits);
		if (b < 0 || b >= bits - 1)
			b = bits - 1;
		return a >= 0 ? a >> b : ~(~a >> b);
	}
}

__device__ __forceinline__ long long bw_load(int t, const void *p, size_t i)
{
	switch (t) {
	case KJ_I8:
		return ((const int8_t *)p)[i];
	case KJ_I32:
		return ((const int32_t *)p)[i];
	case KJ_I64:
		return ((const long long *)p)[i];
	case KJ_BOOL:
		return ((const unsigned char *)p)[i] != 0;
	default:
		return (long long)kjd_load(t, p, i);
	}
}

__device__ __forceinline__ void bw_store(int t, void *p, size_t i, long long v)
{
	switch (t) {
	case KJ_I8:
		((int8_t *)p)[i] = (int8_t)v;
		break;
	case KJ_I32:
		((int32_t *)p)[i] = (int32_t)v;
		break;
	case KJ_I64:
		((long long *)p)[i] = v;
		break;
	case KJ_BOOL:
		((unsigned char *)p)[i] = v != 0;
		break;
	default:
		kjd_store(t, p, i, (double)v);
	}
}

/* One run after coalescing: each operand moves with the output (stride 1)
 * or stays (stride 0, a scalar or a fully broadcast operand). */
template <int K>
__global__ void bitwise_flat_k(const void *a, const void *b, void *y, int ydt, int bits,
			       kj_bgeom gm, int64_t total)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
		long long u = bw_load(gm.adt, a, (size_t)(gm.la ? i : 0));
		long long w = bw_load(gm.bdt, b, (size_t)(gm.lb ? i : 0));
		bw_store(ydt, y, (size_t)i, bwop<K>(u, w, bits));
	}
}

template <int K>
__global__ void bitwise_dyn_k(const void *a, const void *b, void *y, int ydt, int bits,
			      kj_bgeom gm, int64_t total)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += stride) {
		int64_t rem = i, oa = 0, ob = 0;
		for (int k = gm.r - 1; k >= 0; k--) {
			int64_t q = rem / gm.d[k], c = rem - q * gm.d[k];
			oa += c * gm.sa[k];
			ob += c * gm.sb[k];
			rem = q;
		}
		long long u = bw_load(gm.adt, a, (size_t)oa), w = bw_load(gm.bdt, b, (size_t)ob);
		bw_store(ydt, y, (size_t)i, bwop<K>(u, w, bits));
	}
}

/* One dtype E on both moving sides and the output (or a scalar operand of
 * any integer dtype), flat: 16-byte words, the scalar loaded once per
 * thread.  bitwise_flat_k's per-element dtype switch ran the int4 unpack's
 * shifts at 410 GB/s on the H200. */
template <int K, class E>
__global__ void bitwise_vec_k(const void *a, const void *b, E *__restrict__ y, kj_bgeom gm,
			      int64_t nw)
{
	const int V = 16 / sizeof(E);
	const int bits = 8 * sizeof(E);
	long long sa = gm.la ? 0 : bw_load(gm.adt, a, 0), sb = gm.lb ? 0 : bw_load(gm.bdt, b, 0);
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (int64_t)gridDim.x * blockDim.x) {
		union {
			uint4 u;
			E e[V];
		} wa, wb, wy;
		if (gm.la)
			wa.u = ((const uint4 *)a)[i];
		if (gm.lb)
			wb.u = ((const uint4 *)b)[i];
#pragma unroll
		for (int k = 0; k < V; k++)
			wy.e[k] = (E)bwop<K>(gm.la ? (long long)wa.e[k] : sa, gm.lb ? (long long)wb.e[k] : sb,
					     bits);
		((uint4 *)y)[i] = wy.u;
	}
}

template <int K, class E>
static bool bitwise_vec(kj_gpu *g, const kj_tinfo *ta, const void *a, const kj_tinfo *tb,
			const void *b, const kj_tinfo *to, void *y, const kj_bgeom &gm, int64_t total)
{
	const int V = 16 / sizeof(E);
	if (gm.r != 1 || total % V || !kj_aligned16(y) || (gm.la && (ta->dtype != to->dtype || !kj_aligned16(a))) ||
	    (gm.lb && (tb->dtype != to->dtype || !kj_aligned16(b))) || (!gm.la && !gm.lb))
		return false;
	bitwise_vec_k<K, E><<<kj_blocks(g, total / V, 256), 256, 0, g->stream>>>(a, b, (E *)y, gm,
										 total / V);
	return true;
}

template <int K>
static int bitwise_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	const kj_tinfo *ta = &n->in[0], *tb = &n->in[1], *to = &n->out;
	int64_t total = kjo_numel(&to->shape);
	int bits = to->dtype == KJ_I8 ? 8 : to->dtype == KJ_I32 ? 32 : 64;
	int ydt = kj_buf_dt(to->dtype, reference);
	kj_bgeom gm;

	if (total == 0)
		return 0;
	bgeom_init(&gm, ta, tb, to, reference);
	if (!reference) {
		bool done = false;
		if (to->dtype == KJ_I8)
			done = bitwise_vec<K, int8_t>(g, ta, in[0], tb, in[1], to, out, gm, total);
		else if (to->dtype == KJ_I32)
			done = bitwise_vec<K, int32_t>(g, ta, in[0], tb, in[1], to, out, gm, total);
		else if (to->dtype == KJ_I64)
			done = bitwise_vec<K, long long>(g, ta, in[0], tb, in[1], to, out, gm, total);
		if (done) {
			KJ_LAUNCH_CHECK(err, n->op->name);
			return 0;
		}
	}
	unsigned blocks = kj_blocks(g, total, 256);
	if (gm.r == 1)
		bitwise_flat_k<K><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, ydt, bits, gm,
								   total);
	else
		bitwise_dyn_k<K><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, ydt, bits, gm,
								  total);
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

#define BITWISE_OP(name, K) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err) \
	{ \
		return bitwise_run<K>(g, n, in, out, reference, err); \
	}

BITWISE_OP(bitwise_and, KJ_BW_AND)
BITWISE_OP(bitwise_or, KJ_BW_OR)
BITWISE_OP(bitwise_xor, KJ_BW_XOR)
BITWISE_OP(bitwise_left_shift, KJ_BW_SHL)
BITWISE_OP(bitwise_right_shift, KJ_BW_SHR)

/* ---- comparisons ---- */

/* How an operand is indexed from an output index. */
enum { KJE_IX_SAME, KJE_IX_ONE, KJE_IX_BCAST };

struct kje_cmp_geom {
	int rank, ia, ib; /* ia, ib: KJE_IX_* of a and b */
	int adt, bdt, pdt, odt;
	int64_t d[KJ_MAX_RANK], sa[KJ_MAX_RANK], sb[KJ_MAX_RANK];
};

__device__ __forceinline__ int64_t cmp_offset(const kje_cmp_geom &g, int ix, const int64_t *st,
					      int64_t e)
{
	int64_t o = 0;
	if (ix == KJE_IX_SAME)
		return e;
	if (ix == KJE_IX_ONE)
		return 0;
	for (int k = g.rank - 1; k >= 0; k--) {
		int64_t q = e / g.d[k];
		o += (e - q * g.d[k]) * st[k];
		e = q;
	}
	return o;
}

template <int KIND>
__global__ void compare_k(const void *a, const void *b, void *y, int64_t total, kje_cmp_geom g)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		double va = kjd_round_to(g.pdt, kjd_load(g.adt, a, (size_t)cmp_offset(g, g.ia, g.sa, e)));
		double vb = kjd_round_to(g.pdt, kjd_load(g.bdt, b, (size_t)cmp_offset(g, g.ib, g.sb, e)));
		kjd_store(g.odt, y, (size_t)e, kje_compare(KIND, va, vb) ? 1.0 : 0.0);
	}
}

/* The baseline's common case: a full-shape float operand a (f32, f16 or
 * bf16, also the promoted type, so rounding is the identity) against a
 * full-shape b of the same type or one element b of any type (a literal:
 * rounded to a's type once).  Each thread takes 16-byte words of a (and b)
 * and stores the matching 4- or 8-byte word of bools (the last total % V
 * elements one by one, by the first thread); comparing in float
 * is exact for these types, NaN compares false as in double. */
template <int KIND>
__device__ __forceinline__ unsigned char cmp_f(float a, float b)
{
	return KIND == KJE_LT ? a < b : KIND == KJE_LE ? a <= b : KIND == KJE_GT ? a > b : a >= b;
}

template <class E>
__device__ __forceinline__ float cmp_to_f(E v);
template <>
__device__ __forceinline__ float cmp_to_f<float>(float v)
{
	return v;
}
template <>
__device__ __forceinline__ float cmp_to_f<__half>(__half v)
{
	return __half2float(v);
}
template <>
__device__ __forceinline__ float cmp_to_f<__nv_bfloat16>(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <int KIND, class E, class CW, bool SB>
__global__ void compare_vec_k(const uint4 *__restrict__ a, const void *__restrict__ b, CW *__restrict__ y,
			      int64_t nw, int64_t total, int bdt, int pdt)
{
	constexpr int V = 16 / sizeof(E);
	float b0 = 0.0f;
	if (SB)
		b0 = (float)kjd_round_to(pdt, kjd_load(bdt, b, 0));
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (int64_t)gridDim.x * blockDim.x) {
		uint4 av = a[i], bv;
		if (!SB)
			bv = ((const uint4 *)b)[i];
		const E *ae = (const E *)&av, *be = (const E *)&bv;
		CW r;
		unsigned char *rb = (unsigned char *)&r;
#pragma unroll
		for (int t = 0; t < V; t++)
			rb[t] = cmp_f<KIND>(cmp_to_f<E>(ae[t]), SB ? b0 : cmp_to_f<E>(be[t]));
		y[i] = r;
	}
	if (blockIdx.x == 0 && threadIdx.x == 0) /* the last total % V elements */
		for (int64_t e = nw * V; e < total; e++)
			((unsigned char *)y)[e] = cmp_f<KIND>(cmp_to_f<E>(((const E *)a)[e]),
							      SB ? b0 : cmp_to_f<E>(((const E *)b)[e]));
}

template <int KIND, class E, class CW>
static void compare_vec_launch(kj_gpu *g, const void *a, const void *b, void *y, int64_t nw, int64_t total,
			       bool sb, int bdt, int pdt)
{
	unsigned bl = kj_blocks(g, nw, 256);
	if (sb)
		compare_vec_k<KIND, E, CW, true><<<bl, 256, 0, g->stream>>>((const uint4 *)a, b, (CW *)y, nw,
									     total, bdt, pdt);
	else
		compare_vec_k<KIND, E, CW, false><<<bl, 256, 0, g->stream>>>((const uint4 *)a, b, (CW *)y, nw,
									      total, bdt, pdt);
}

template <int KIND>
static void compare_vec_dt(kj_gpu *g, int adt, const void *a, const void *b, void *y, int64_t total,
			   bool sb, int bdt, int pdt)
{
	if (adt == KJ_F32)
		compare_vec_launch<KIND, float, unsigned>(g, a, b, y, total / 4, total, sb, bdt, pdt);
	else if (adt == KJ_F16)
		compare_vec_launch<KIND, __half, unsigned long long>(g, a, b, y, total / 8, total, sb, bdt, pdt);
	else
		compare_vec_launch<KIND, __nv_bfloat16, unsigned long long>(g, a, b, y, total / 8, total, sb, bdt,
									     pdt);
}

/* Whether compare_vec_k serves the comparison (then launched): *kind is
 * mirrored when the one-element operand is the first. */
static bool compare_vec(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int kind,
			int64_t total, const kje_cmp_geom *gm)
{
	int ia = gm->ia, ib = gm->ib, adt = gm->adt, bdt = gm->bdt;
	const void *a = in[0], *b = in[1];
	(void)n;
	if (ia == KJE_IX_ONE && ib == KJE_IX_SAME && total > 1) { /* c > x is x < c */
		static const int mirror[4] = {KJE_GT, KJE_GE, KJE_LT, KJE_LE};
		kind = mirror[kind];
		a = in[1];
		b = in[0];
		ia = KJE_IX_SAME;
		ib = KJE_IX_ONE;
		adt = gm->bdt;
		bdt = gm->adt;
	}
	if (ia != KJE_IX_SAME || (adt != KJ_F32 && adt != KJ_F16 && adt != KJ_BF16) || gm->pdt != adt)
		return false;
	bool sb = ib == KJE_IX_ONE && total > 1;
	if (!sb && (ib != KJE_IX_SAME || bdt != adt))
		return false;
	int v = adt == KJ_F32 ? 4 : 8;
	if (total < v || (((uintptr_t)a | (uintptr_t)out | (sb ? 0 : (uintptr_t)b)) & 15))
		return false;
	switch (kind) {
	case KJE_LT:
		compare_vec_dt<KJE_LT>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	case KJE_LE:
		compare_vec_dt<KJE_LE>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	case KJE_GT:
		compare_vec_dt<KJE_GT>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	default:
		compare_vec_dt<KJE_GE>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	}
	return true;
}

static int operand_ix(const kj_shape *s, const kj_shape *os)
{
	if (kj_shape_eq(s, os))
		return KJE_IX_SAME;
	if (kjo_numel(s) == 1)
		return KJE_IX_ONE;
	return KJE_IX_BCAST;
}

static int run_compare(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, int kind, struct kj_err *err)
{
	const kj_shape *os = &n->out.shape;
	int64_t total = kjo_numel(os);
	kje_cmp_geom gm;
	unsigned blocks;
	if (total == 0)
		return 0;
	memset(&gm, 0, sizeof(gm));
	gm.rank = os->rank;
	for (int i = 0; i < os->rank; i++)
		gm.d[i] = os->d[i];
	kjo_bcast_strides(&n->in[0].shape, os, gm.sa);
	kjo_bcast_strides(&n->in[1].shape, os, gm.sb);
	gm.ia = operand_ix(&n->in[0].shape, os);
	gm.ib = operand_ix(&n->in[1].shape, os);
	gm.adt = kj_buf_dt(n->in[0].dtype, reference);
	gm.bdt = kj_buf_dt(n->in[1].dtype, reference);
	gm.pdt = (int)kj_promote(&n->in[0], &n->in[1]);
	gm.odt = kj_buf_dt(KJ_BOOL, reference);
	if (!reference && compare_vec(g, n, in, out, kind, total, &gm)) {
		KJ_LAUNCH_CHECK(err, n->op->name);
		return 0;
	}
	blocks = kj_blocks(g, total, 256);
	switch (kind) {
	case KJE_LT:
		compare_k<KJE_LT><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	case KJE_LE:
		compare_k<KJE_LE><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	case KJE_GT:
		compare_k<KJE_GT><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	default:
		compare_k<KJE_GE><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	}
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

#define KJE_CUDA_CMP(name, kind) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err) \
	{ \
		return run_compare(g, n, in, out, reference, kind, err); \
	}
KJE_CUDA_CMP(less, KJE_LT)
KJE_CUDA_CMP(less_equal, KJE_LE)
KJE_CUDA_CMP(greater, KJE_GT)
KJE_CUDA_CMP(greater_equal, KJE_GE)
