/*
 * Shared pieces of the CUDA op implementations (src/ops/cuda/ops_*.cu): the
 * element-type traits that let one kernel source serve the eager baseline
 * (f32/f16/bf16 buffers, float arithmetic) and the reference (double buffers,
 * double arithmetic), warp/block merges of reduction states, launch helpers,
 * and the prototypes of every op function that ops_table.cu lists.
 *
 * Type handling: a "typed" kernel runs when every tensor it touches has the
 * element type T (float, __half, __nv_bfloat16 or double); anything else
 * (integer or bool tensors, mixed dtypes) goes through a generic kernel that
 * loads and stores each element by its runtime dtype with dtype_dev.h's
 * kj_load/kj_store twins (kjd_load/kjd_store), computing in float when the
 * result is a float dtype and in double when it is an integer or bool.
 * Nothing here allocates; the only device memory the ops use besides their
 * operands is g->workspace (reduction partials, cuBLASLt), which is safe to
 * reuse because every op runs in order on g->stream.
 */
#ifndef KJ_OPS_COMMON_CUH
#define KJ_OPS_COMMON_CUH

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops/cuda/dtype_dev.h"
#include "ops/cuda/gpu_internal.h"
/* the tuning knobs (KJ_* in the environment) through one table:
 * kj_knob_int / kj_knob_str, src/ops/knobs.c */
#include "kjudge/knobs.h"

extern "C" {
#include "ops/op_util.h"
#include "ops/table_b.h"
}

/* ---- element types ---- */

template <class T> struct kjt;
template <> struct kjt<float> {
	typedef float acc;
	static __device__ __forceinline__ float ld(float v) { return v; }
	static __device__ __forceinline__ float st(float a) { return a; }
};
template <> struct kjt<__half> {
	typedef float acc;
	static __device__ __forceinline__ float ld(__half v) { return __half2float(v); }
	static __device__ __forceinline__ __half st(float a) { return __float2half_rn(a); }
};
template <> struct kjt<__nv_bfloat16> {
	typedef float acc;
	static __device__ __forceinline__ float ld(__nv_bfloat16 v) { return __bfloat162float(v); }
	static __device__ __forceinline__ __nv_bfloat16 st(float a) { return __float2bfloat16_rn(a); }
};
template <> struct kjt<double> {
	typedef double acc;
	static __device__ __forceinline__ double ld(double v) { return v; }
	static __device__ __forceinline__ double st(double a) { return a; }
};

/* Math in the accumulation type: the float overloads are the CUDA single-
 * precision functions (what PyTorch eager calls), the double ones libdevice. */
#define KJ_M1(name, f32, f64) \
	__device__ __forceinline__ float name(float x) { return f32(x); } \
	__device__ __forceinline__ double name(double x) { return f64(x); }
KJ_M1(m_exp, expf, exp)
KJ_M1(m_expm1, expm1f, expm1)
KJ_M1(m_log, logf, log)
KJ_M1(m_log1p, log1pf, log1p)
KJ_M1(m_tanh, tanhf, tanh)
KJ_M1(m_erf, erff, erf)
KJ_M1(m_sqrt, sqrtf, sqrt)
KJ_M1(m_fabs, fabsf, fabs)
/* 1 / x correctly rounded: the float one a reciprocal sequence, cheaper
 * than a division */
__device__ __forceinline__ float m_rcp(float x) { return __frcp_rn(x); }
__device__ __forceinline__ double m_rcp(double x) { return 1.0 / x; }
/* exp of a value <= 0 in softmax-like statistics: the hardware exp2 for the
 * float baseline (relative error ~1e-7 per term over the range that
 * matters, as PyTorch's fast softmax paths), libdevice's exp for the
 * reference. */
KJ_M1(m_fexp, __expf, exp)
#undef KJ_M1
__device__ __forceinline__ float m_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double m_pow(double x, double y) { return pow(x, y); }
template <class A> __device__ __forceinline__ A m_inf() { return (A)INFINITY; }
template <class A> __device__ __forceinline__ A m_nan() { return (A)NAN; }

/* The dtype code of the reference's double buffers for kjd_load/kjd_store. */
#define KJ_DT_F64 KJD_F64

/* 16 bytes of T: a copy of one is a single vector load or store. */
template <class T> struct alignas(16) kjv {
	enum { N = 16 / sizeof(T) };
	T e[16 / sizeof(T)];
};

/* ---- element loaders: typed (vectorisable) or by runtime dtype ---- */

template <class T> struct ld_typed {
	typedef typename kjt<T>::acc A;
	enum { N = kjv<T>::N };
	const T *p;
	__device__ __forceinline__ A ld(int64_t i) const { return kjt<T>::ld(p[i]); }
	/* i a multiple of N from an aligned base */
	__device__ __forceinline__ void ldv(int64_t i, A *v) const
	{
		kjv<T> e = *(const kjv<T> *)(p + i);
#pragma unroll
		for (int k = 0; k < N; k++)
			v[k] = kjt<T>::ld(e.e[k]);
	}
};

template <class AT> struct ld_dyn {
	typedef AT A;
	enum { N = 1 };
	const void *p;
	int dt;
	__device__ __forceinline__ A ld(int64_t i) const { return (A)kjd_load(dt, p, (size_t)i); }
	__device__ __forceinline__ void ldv(int64_t i, A *v) const { v[0] = ld(i); }
};

static inline int kj_aligned16(const void *p)
{
	return ((uintptr_t)p & 15u) == 0;
}

/* Blocks for a grid-stride kernel over n items: enough to fill the device
 * about twice at `block` threads a block, never more than the work. */
static inline unsigned kj_blocks(const kj_gpu *g, int64_t n, int block)
{
	int64_t b = (n + block - 1) / block, cap = (int64_t)g->info.sm_count * (2048 / block) * 2;
	if (cap < 1)
		cap = 1;
	if (b < 1)
		b = 1;
	return (unsigned)(b < cap ? b : cap);
}

/* Launch errors surface at the next runtime call; report them at the op. */
#define KJ_LAUNCH_CHECK(err, what) \
	do { \
		cudaError_t kj_le_ = cudaGetLastError(); \
		if (kj_le_ != cudaSuccess) \
			return kj_err_set((err), KJ_E_CUDA, "%s: kernel launch failed: %s (%s)", (what), \
					  cudaGetErrorString(kj_le_), cudaGetErrorName(kj_le_)); \
	} while (0)

/* ---- launch helpers of the op families ---- */

#define KJM_CHECK(err, what) KJ_LAUNCH_CHECK(err, what)

static inline unsigned grid_cap(int64_t want, int64_t cap)
{
	if (want < 1)
		want = 1;
	return (unsigned)(want < cap ? want : cap);
}

/* Blocks for a kernel that gives each block whole rows (a block-stride
 * loop over rows, threads along the row). */
static inline unsigned row_blocks(const kj_gpu *g, int64_t rows)
{
	return grid_cap(rows, (int64_t)g->info.sm_count * 16);
}

static inline int64_t ceil_div(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* The normalised reduced dim, or -1 for all elements (dim=None). */
static inline int red_dim(const kj_bnode *n)
{
	int d = -1;
	if (kjo_attr_given(n, 0) &&
	    kjo_norm_dim("", kjo_attr_i(n, 0, 0), n->in[0].shape.rank, &d, NULL, 0))
		d = -1;
	return d;
}

/* `return CALL` with T the element type of the buffers (double for the
 * reference); the statement that follows is unreachable. */
#define KJM_FLOAT_DISPATCH(n, reference, CALL) \
	if (reference) { \
		typedef double T; \
		return CALL; \
	} \
	switch ((n)->in[0].dtype) { \
	case KJ_F32: { \
		typedef float T; \
		return CALL; \
	} \
	case KJ_F16: { \
		typedef __half T; \
		return CALL; \
	} \
	case KJ_BF16: { \
		typedef __nv_bfloat16 T; \
		return CALL; \
	} \
	default: \
		return kj_err_set(err, KJ_E_INTERNAL, "%s: dtype %s is not floating point", \
				  (n)->op->name, kj_dtype_name((n)->in[0].dtype)); \
	}

/* ---- warp and block merges of arbitrary (POD) states ---- */

template <class S> __device__ __forceinline__ S kj_shfl_down(S v, int off)
{
	static_assert(sizeof(S) % 4 == 0, "state size must be a multiple of 4 bytes");
	int w[sizeof(S) / 4];
	memcpy(w, &v, sizeof(S));
#pragma unroll
	for (int k = 0; k < (int)(sizeof(S) / 4); k++)
		w[k] = __shfl_down_sync(0xffffffffu, w[k], off);
	memcpy(&v, w, sizeof(S));
	return v;
}

template <class S> __device__ __forceinline__ S kj_shfl_idx(S v, int lane)
{
	int w[sizeof(S) / 4];
	memcpy(w, &v, sizeof(S));
#pragma unroll
	for (int k = 0; k < (int)(sizeof(S) / 4); k++)
		w[k] = __shfl_sync(0xffffffffu, w[k], lane);
	memcpy(&v, w, sizeof(S));
	return v;
}

/* Every lane gets the merge of the warp's 32 states. */
template <class R, class S> __device__ __forceinline__ S kj_warp_merge(S s)
{
#pragma unroll
	for (int off = 16; off > 0; off >>= 1)
		s = R::merge(s, kj_shfl_down(s, off));
	return kj_shfl_idx(s, 0);
}

/* Every thread of a block (blockDim.x a multiple of 32, at most 1024; the
 * whole block calls it) gets the merge of all states.  `sm` holds 32 states. */
template <class R, class S> __device__ __forceinline__ S kj_block_merge(S s, S *sm)
{
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	s = kj_warp_merge<R>(s);
	if (nw == 1)
		return s;
	__syncthreads();
	if (lane == 0)
		sm[wid] = s;
	__syncthreads();
	if (wid == 0) {
		S t = lane < nw ? sm[lane] : R::init();
		t = kj_warp_merge<R>(t);
		if (lane == 0)
			sm[0] = t;
	}
	__syncthreads();
	s = sm[0];
	__syncthreads();
	return s;
}

/* Count, mean and sum of squared deviations of a set of values, merged
 * with Chan's formula (a reducer for kj_block_merge), so that partial
 * statistics combine without cancellation. */
template <class A> struct kj_chan_ss {
	A n, mean, m2, pad;
};
template <class A> struct R_chan {
	typedef kj_chan_ss<A> S;
	static __device__ __forceinline__ S init()
	{
		S r;
		r.n = r.mean = r.m2 = r.pad = 0;
		return r;
	}
	static __device__ __forceinline__ S merge(S a, S b)
	{
		if (b.n == 0)
			return a;
		if (a.n == 0)
			return b;
		S r;
		A n = a.n + b.n, d = b.mean - a.mean;
		r.n = n;
		r.mean = a.mean + d * (b.n / n);
		r.m2 = a.m2 + b.m2 + d * d * (a.n * (b.n / n));
		r.pad = 0;
		return r;
	}
};

/* The statistics of cnt values from their sums shifted by k (the first
 * value, close to the data): s1 = sum(x - k), s2 = sum((x - k)^2). */
template <class A>
__device__ __forceinline__ kj_chan_ss<A> kj_chan_shifted(int64_t cnt, A k, A s1, A s2)
{
	kj_chan_ss<A> st = R_chan<A>::init();
	if (cnt) {
		A n = (A)cnt, md = s1 / n, m2 = s2 - s1 * md;
		st.n = n;
		st.mean = k + md;
		st.m2 = m2 > 0 ? m2 : (A)0;
	}
	return st;
}

/* A plain sum as a reducer for kj_block_merge. */
template <class A> struct R_add {
	typedef A S;
	static __device__ __forceinline__ S init() { return 0; }
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
};

/* Online softmax statistics: m the largest non-NaN value seen, s the sum of
 * exp(x - m) over the values seen, nan whether a NaN was seen.  Mirrors the
 * CPU's two passes (max, then sum of exp(x - max)) including its NaN cases:
 * an infinite max or a row of -inf gives a NaN sum, as exp(inf - inf) does
 * there. */
template <class A> struct kj_sm_state {
	A m, s;
	int nan, pad;
};

template <class A> struct kj_smx {
	typedef kj_sm_state<A> S;
	static __device__ __forceinline__ S init()
	{
		S r;
		r.m = -m_inf<A>();
		r.s = 0;
		r.nan = 0;
		r.pad = 0;
		return r;
	}
	static __device__ __forceinline__ S add(S st, A x)
	{
		if (x > st.m) {
			/* a +inf max makes the sum NaN, as exp(inf - inf) on the CPU */
			st.s = st.s * m_fexp(st.m - x) + (isinf(x) ? m_nan<A>() : (A)1);
			st.m = x;
		} else if (!(x == -m_inf<A>() && st.m == -m_inf<A>())) {
			st.s += m_fexp(x - st.m);
		}
		st.nan |= x != x;
		return st;
	}
	/* N values at once: one rescale for the batch and N independent
	 * exponentials instead of a chain of N dependent updates.  A batch with
	 * a NaN or an infinity takes the element-wise path, whose special cases
	 * mirror the CPU. */
	template <int N> static __device__ __forceinline__ S addn(S st, const A *x)
	{
		A mx = x[0];
		bool special = !(x[0] > -m_inf<A>() && x[0] < m_inf<A>());
#pragma unroll
		for (int k = 1; k < N; k++) {
			mx = x[k] > mx ? x[k] : mx;
			special |= !(x[k] > -m_inf<A>() && x[k] < m_inf<A>());
		}
		if (special) {
#pragma unroll
			for (int k = 0; k < N; k++)
				st = add(st, x[k]);
			return st;
		}
		A nm = st.m > mx ? st.m : mx, e[N];
#pragma unroll
		for (int k = 0; k < N; k++)
			e[k] = m_fexp(x[k] - nm);
#pragma unroll
		for (int w = 1; w < N; w *= 2)
#pragma unroll
			for (int k = 0; k + w < N; k += 2 * w)
				e[k] += e[k + w];
		st.s = st.s * m_fexp(st.m - nm) + e[0];
		st.m = nm;
		return st;
	}
	static __device__ __forceinline__ S merge(S a, S b)
	{
		S r;
		A ninf = -m_inf<A>();
		r.nan = a.nan | b.nan;
		r.pad = 0;
		if (a.m == ninf && b.m == ninf) {
			r.m = ninf;
			r.s = a.s + b.s;
		} else if (a.m == ninf) {
			r.m = b.m;
			r.s = a.s * (A)0 + b.s; /* keeps a NaN of a */
		} else if (b.m == ninf) {
			r.m = a.m;
			r.s = a.s + b.s * (A)0;
		} else {
			r.m = a.m > b.m ? a.m : b.m;
			r.s = a.s * m_exp(a.m - r.m) + b.s * m_exp(b.m - r.m);
		}
		return r;
	}
	/* The sum the CPU gets: a non-empty row without a finite or +inf max
	 * sums exp(-inf - -inf) = NaN terms. */
	static __device__ __forceinline__ A sum(const S &st, int64_t len)
	{
		return st.m == -m_inf<A>() && len > 0 ? m_nan<A>() : st.s;
	}
};

/* ---- op functions (ops_*.cu), listed by ops_table.cu ---- */

#define KJ_CUDA_OP_DECL(name) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err);

#define KJ_CUDA_OPS(X) \
	X(relu) X(leaky_relu) X(sigmoid) X(tanh) X(gelu) X(silu) X(selu) X(elu) \
	X(hardsigmoid) X(hardswish) X(hardtanh) X(softplus) X(softsign) X(exp) X(log) \
	X(sqrt) X(rsqrt) X(abs) X(neg) X(round) X(clamp) \
	X(add) X(sub) X(mul) X(div) X(maximum) X(minimum) X(pow) \
	X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(bitwise_left_shift) X(bitwise_right_shift) \
	X(sum) X(mean) X(max) X(min) X(argmax) X(argmin) X(prod) X(logsumexp) X(var) X(std) \
	X(softmax) X(log_softmax) X(cumsum) \
	X(matmul) X(linear) X(transpose) X(permute) X(reshape) X(copy) X(cast) \
	X(layer_norm) X(rms_norm) X(mse_loss) X(cross_entropy)

KJ_CUDA_OPS(KJ_CUDA_OP_DECL)

/* Binary kernels shared with the loss ops: y = a (op) b over broadcast
 * shapes.  kind is one of the KJ_B_* codes of ops_elementwise.cu. */
enum { KJ_B_ADD, KJ_B_SUB, KJ_B_MUL, KJ_B_DIV, KJ_B_MAX, KJ_B_MIN, KJ_B_POW, KJ_B_SQDIFF };
int kj_cuda_binary(kj_gpu *g, int kind, const kj_tinfo *ta, const void *a, const kj_tinfo *tb,
		   const void *b, const kj_tinfo *to, void *out, int reference, struct kj_err *err);

/* A check that runs after an op whose failure depends on the data (an
 * out-of-range class index).  It synchronises the stream; returns 0, 1 with
 * the CPU oracle's message in msg, or a KJ_E_* code with err set. */
typedef int (*kj_cuda_check_fn)(kj_gpu *g, const kj_bnode *n, const void *const *in,
				int reference, char *msg, size_t msglen, struct kj_err *err);
int kj_cuda_cross_entropy_check(kj_gpu *g, const kj_bnode *n, const void *const *in,
				int reference, char *msg, size_t msglen, struct kj_err *err);
kj_cuda_check_fn kj_cuda_op_find_check(const char *name);

/* sdpa for decode-like 16-bit shapes (ops_attn_decode.cu: split-KV, L <= 16,
 * not causal, E == Ev in {64, 128}, 16-byte aligned operands).  Sets
 * *handled to 0 and returns 0 without launching anything for any other
 * shape; else *handled = 1 and the result of the launches (0 or a KJ_E_*
 * code with err set).  Uses g->workspace for the partials of split rows. */
int kj_sdpa_decode(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int *handled,
		   struct kj_err *err);

/* sdpa for the f32 baseline by the fused 3xTF32 kernel (ops_attn_f32.cu:
 * E == Ev in {64, 128}, 16-byte aligned operands, not decode-like unless
 * KJ_SDPA_F32=fused; KJ_SDPA_F32=gemm turns it off).  Sets *handled to 0
 * and returns 0 without launching anything for any other case, except a
 * KJ_SDPA_F32 of another value: KJ_E_USAGE with err set; else *handled = 1
 * and the result of the launch (0 or a KJ_E_* code with err set). */
int kj_sdpa_f32(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int *handled,
		struct kj_err *err);

/* The dtype code of a buffer holding values of dtype t. */
/* A launch of kernel in clusters of csize blocks (along x) of threads
 * threads and smem bytes of dynamic shared memory each, on s: as many
 * clusters at once as fit on the device, at most rows (one row a cluster,
 * the kernel striding over the rest).  Fills cfg and attr (which cfg points
 * to) for cudaLaunchKernelEx; 0 when no cluster of the kernel fits. */
template <class K>
static int kj_cluster_cfg(K kernel, int64_t csize, int threads, size_t smem, cudaStream_t s, int64_t rows,
			  cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr)
{
	int active = 0;
	*cfg = cudaLaunchConfig_t{};
	attr->id = cudaLaunchAttributeClusterDimension;
	attr->val.clusterDim.x = (unsigned)csize;
	attr->val.clusterDim.y = 1;
	attr->val.clusterDim.z = 1;
	cfg->blockDim = dim3((unsigned)threads);
	cfg->dynamicSmemBytes = smem;
	cfg->stream = s;
	cfg->attrs = attr;
	cfg->numAttrs = 1;
	cfg->gridDim = dim3((unsigned)csize);
	if (cudaOccupancyMaxActiveClusters(&active, kernel, cfg) != cudaSuccess || active < 1) {
		(void)cudaGetLastError();
		return 0;
	}
	cfg->gridDim = dim3((unsigned)((rows < active ? rows : active) * csize));
	return 1;
}

static inline int kj_buf_dt(kj_dtype t, int reference)
{
	return reference ? KJ_DT_F64 : (int)t;
}

#endif
