/*
 * Long rows of the float baseline's p-norm and normalize (ops_norm_rows.h).
 *
 * KernelBench's l1/l2 normalize (32768 rows of 65535 f32) has rows that
 * start anywhere modulo 16 bytes, so the element kernels of ops_misc.cu
 * (pnorm_rows_k, div_rows_k) read 4-byte words, and each row's last
 * len % (8 * threads) elements (4095 of 65535) with one load in flight per
 * thread: the pair ran at 1.72x PyTorch's time.  Here a block owns a row:
 * the first h elements up to the row's first 16-byte boundary and the last
 * (len - h) % V after its last whole word are one element per thread, the
 * rest 16-byte words (V elements), U words loaded per thread before they
 * are used, the loads of the last, partial step predicated (not a scalar
 * loop).  A row of 65535 f32 takes 8 steps of 512 threads x 4 words.
 *
 * Order of additions (the norm): thread t adds its head element (t < h),
 * its tail element (t < tail), then the elements of words t, t + bd,
 * t + 2 bd, ... in order; then the block merges the threads' sums
 * (kj_block_merge).  Fixed by (len, alignment, threads), so a run gives the
 * same norms every time.  The division is one float division per element,
 * as div_rows_k (the same outputs for the same norms).
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/ops_norm_rows.h"

#include <limits.h>

extern "C" {
#include "ops/table_d.h"
}

/* words in flight per thread */
#define KJN_U 4
/* shorter rows stay with ops_misc.cu's kernels (a block would idle) */
#define KJN_MIN_LEN 1024

template <int KIND> __device__ __forceinline__ float kjn_term(float v, float p)
{
	float a = fabsf(v);
	return KIND == KJM_P1 ? a : KIND == KJM_P2 ? a * a : powf(a, p);
}

template <int KIND> __device__ __forceinline__ float kjn_root(float s, float p)
{
	return KIND == KJM_P1 ? s : KIND == KJM_P2 ? sqrtf(s) : powf(s, 1.0f / p);
}

/* Elements before the first 16-byte boundary at or after q (q is aligned
 * to its element size), at most len. */
template <class T> __device__ __forceinline__ int64_t kjn_head(const T *q, int64_t len)
{
	int64_t h = (int64_t)((16 - ((uintptr_t)q & 15)) & 15) / (int64_t)sizeof(T);
	return h < len ? h : len;
}

template <class T, int KIND>
__global__ void __launch_bounds__(512)
	rows_pnorm_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t len, float p)
{
	typedef kjv<T> W;
	const int V = W::N;
	__shared__ float red[32];
	const int64_t bd = blockDim.x, tid = threadIdx.x;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *q = x + r * len;
		int64_t h = kjn_head(q, len), nv = (len - h) / V, t0 = h + nv * V;
		const W *qv = (const W *)(q + h);
		float s = 0;
		if (tid < h)
			s += kjn_term<KIND>(kjt<T>::ld(q[tid]), p);
		if (tid < len - t0)
			s += kjn_term<KIND>(kjt<T>::ld(q[t0 + tid]), p);
		for (int64_t j = tid; j < nv; j += KJN_U * bd) {
			W w[KJN_U];
#pragma unroll
			for (int u = 0; u < KJN_U; u++)
				if (j + u * bd < nv)
					w[u] = qv[j + u * bd];
#pragma unroll
			for (int u = 0; u < KJN_U; u++)
				if (j + u * bd < nv)
#pragma unroll
					for (int k = 0; k < V; k++)
						s += kjn_term<KIND>(kjt<T>::ld(w[u].e[k]), p);
		}
		s = kj_block_merge<R_add<float> >(s, red);
		if (tid == 0)
			y[r] = kjt<T>::st(kjn_root<KIND>(s, p));
	}
}

template <class T>
__global__ void __launch_bounds__(512)
	rows_div_k(const T *__restrict__ x, T *__restrict__ y, const T *__restrict__ nrm, int64_t rows,
		   int64_t len, float eps)
{
	typedef kjv<T> W;
	const int V = W::N;
	const int64_t bd = blockDim.x, tid = threadIdx.x;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *q = x + r * len;
		T *o = y + r * len;
		float d = kjt<T>::ld(nrm[r]);
		if (!(d >= eps))
			d = d != d ? d : eps;
		/* x and y share their alignment modulo 16: one head for both */
		int64_t h = kjn_head(q, len), nv = (len - h) / V, t0 = h + nv * V;
		const W *qv = (const W *)(q + h);
		W *ov = (W *)(o + h);
		if (tid < h)
			o[tid] = kjt<T>::st(kjt<T>::ld(q[tid]) / d);
		if (tid < len - t0)
			o[t0 + tid] = kjt<T>::st(kjt<T>::ld(q[t0 + tid]) / d);
		for (int64_t j = tid; j < nv; j += KJN_U * bd) {
			W w[KJN_U];
#pragma unroll
			for (int u = 0; u < KJN_U; u++)
				if (j + u * bd < nv)
					w[u] = qv[j + u * bd];
#pragma unroll
			for (int u = 0; u < KJN_U; u++)
				if (j + u * bd < nv) {
#pragma unroll
					for (int k = 0; k < V; k++)
						w[u].e[k] = kjt<T>::st(kjt<T>::ld(w[u].e[k]) / d);
					ov[j + u * bd] = w[u];
				}
		}
	}
}

static int kjn_threads(int64_t len)
{
	return len >= 8192 ? 512 : 256;
}

static unsigned kjn_grid(int64_t rows)
{
	return (unsigned)(rows < INT_MAX ? rows : INT_MAX);
}

template <class T>
static int rows_pnorm(kj_gpu *g, const T *x, T *y, int64_t rows, int64_t len, int kind, float p,
		      int *handled, struct kj_err *err)
{
	*handled = 0;
	if (len < KJN_MIN_LEN || rows < 1)
		return 0;
	*handled = 1;
	int th = kjn_threads(len);
	if (kind == KJM_P1)
		rows_pnorm_k<T, KJM_P1><<<kjn_grid(rows), th, 0, g->stream>>>(x, y, rows, len, p);
	else if (kind == KJM_P2)
		rows_pnorm_k<T, KJM_P2><<<kjn_grid(rows), th, 0, g->stream>>>(x, y, rows, len, p);
	else
		rows_pnorm_k<T, KJM_PANY><<<kjn_grid(rows), th, 0, g->stream>>>(x, y, rows, len, p);
	KJ_LAUNCH_CHECK(err, "norm rows");
	return 0;
}

template <class T>
static int rows_div(kj_gpu *g, const T *x, T *y, const T *nrm, int64_t rows, int64_t len, float eps,
		    int *handled, struct kj_err *err)
{
	*handled = 0;
	if (len < KJN_MIN_LEN || rows < 1 || (((uintptr_t)x ^ (uintptr_t)y) & 15))
		return 0;
	*handled = 1;
	rows_div_k<T><<<kjn_grid(rows), kjn_threads(len), 0, g->stream>>>(x, y, nrm, rows, len, eps);
	KJ_LAUNCH_CHECK(err, "normalize rows");
	return 0;
}

int kj_rows_pnorm(kj_gpu *g, const float *x, float *y, int64_t rows, int64_t len, int kind, float p,
		  int *handled, struct kj_err *err)
{
	return rows_pnorm(g, x, y, rows, len, kind, p, handled, err);
}

int kj_rows_pnorm(kj_gpu *g, const __half *x, __half *y, int64_t rows, int64_t len, int kind, float p,
		  int *handled, struct kj_err *err)
{
	return rows_pnorm(g, x, y, rows, len, kind, p, handled, err);
}

int kj_rows_pnorm(kj_gpu *g, const __nv_bfloat16 *x, __nv_bfloat16 *y, int64_t rows, int64_t len,
		  int kind, float p, int *handled, struct kj_err *err)
{
	return rows_pnorm(g, x, y, rows, len, kind, p, handled, err);
}

int kj_rows_div(kj_gpu *g, const float *x, float *y, const float *nrm, int64_t rows, int64_t len,
		float eps, int *handled, struct kj_err *err)
{
	return rows_div(g, x, y, nrm, rows, len, eps, handled, err);
}

int kj_rows_div(kj_gpu *g, const __half *x, __half *y, const __half *nrm, int64_t rows, int64_t len,
		float eps, int *handled, struct kj_err *err)
{
	return rows_div(g, x, y, nrm, rows, len, eps, handled, err);
}

int kj_rows_div(kj_gpu *g, const __nv_bfloat16 *x, __nv_bfloat16 *y, const __nv_bfloat16 *nrm,
		int64_t rows, int64_t len, float eps, int *handled, struct kj_err *err)
{
	return rows_div(g, x, y, nrm, rows, len, eps, handled, err);
}
