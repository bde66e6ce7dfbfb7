/*
 * Long rows of the float baseline's p-norm and normalize (ops_norm_rows.h).
 *
 * KernelBench's l1/l2 normalize (32768 rows of 65535 f32) has rows that
 * start anywhere modulo 16 bytes, so the element kernels of ops_norm.cu
 * (pnorm_rows_k, div_rows_k) read 4-byte words, and each row's last
 * len % (8 * threads) elements (4095 of 65535) with one load in flight per
 * thread: the pair ran at 1.72x PyTorch's time.  Here a block owns a row:
 * the first h elements up to the row's first 16-byte boundary and the last
 * (len - h) % V after its last whole word are one element per thread, the
 * rest 16-byte words (V elements), U words loaded per thread before they
 * are used, the loads of the last, partial step predicated (not a scalar
 * loop).  A row of 65535 f32 takes 8 steps of 512 threads x 4 words.
 * normalize's rows of 16 KB to 1 MB go through one kernel instead
 * (rows_normalize_k: the row kept in the shared memory of a cluster of
 * blocks between the norm and the division), so x crosses DRAM once: 17.2
 * GB at KernelBench's shape instead of the three passes' 25.8.
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

#include <cooperative_groups.h>
#include <limits.h>

namespace cg = cooperative_groups;

extern "C" {
#include "ops/table_d.h"
}

/* words in flight per thread */
#define KJN_U 4
/* shorter rows stay with ops_norm.cu's kernels (a block would idle) */
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

/* normalize in one pass over x (rows of 16 KB to 1 MB): a cluster of
 * csize blocks shares a row, block `rank` owning words [rank * cw,
 * (rank + 1) * cw) of the row's body, kept in shared memory between the
 * norm and the division; the head's elements (rank 0) and the tail's
 * (the last rank) stay in the registers of the threads that read them.
 * Each block's sum (its head or tail terms, then its words in order, then
 * kj_block_merge) goes to stat[parity] in its shared memory; after a
 * cluster barrier every block adds the csize sums in rank order, so all
 * get the same norm, rounded to T as the norms of the two-kernel path are.
 * x is read once from DRAM and y written once: 2 passes instead of 3.
 * stat is double-buffered by row parity: a block writes stat[par] again
 * only two barriers later, after every peer has read it (as
 * softmax_cluster_k).  A thread reads back only the cache words it
 * stored, so the next row's loads need no block barrier. */
template <class T, int KIND>
__global__ void __launch_bounds__(512, 2)
	rows_normalize_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t len,
			 int64_t cw, float p, float eps)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* launched on cc >= 9 only */
	typedef kjv<T> W;
	const int V = W::N;
	extern __shared__ int4 kjn_dyn[];
	__shared__ float red[32], stat[2], peer[8];
	W *cache = (W *)kjn_dyn;
	cg::cluster_group cl = cg::this_cluster();
	const unsigned rank = cl.block_rank(), csize = cl.num_blocks();
	/* offsets within a row in int: rows are at most 1 MB here */
	const int64_t ncl = gridDim.x / csize;
	const int bd = blockDim.x, tid = threadIdx.x, icw = (int)cw;
	int par = 0;

	for (int64_t r = blockIdx.x / csize; r < rows; r += ncl, par ^= 1) {
		const T *q = x + r * len;
		T *o = y + r * len;
		const int n = (int)len, h = (int)kjn_head(q, len), nv = (n - h) / V, t0 = h + nv * V;
		const int j0 = (int)rank * icw < nv ? (int)rank * icw : nv;
		const int nw = (j0 + icw < nv ? j0 + icw : nv) - j0;
		const W *qv = (const W *)(q + h) + j0;
		W *ov = (W *)(o + h) + j0;
		bool hh = rank == 0 && tid < h, ht = rank == csize - 1 && tid < n - t0;
		float s = 0, hv = 0, tv = 0;
		if (hh) {
			hv = kjt<T>::ld(q[tid]);
			s += kjn_term<KIND>(hv, p);
		}
		if (ht) {
			tv = kjt<T>::ld(q[t0 + tid]);
			s += kjn_term<KIND>(tv, p);
		}
		for (int j = tid; j < nw; j += KJN_U * bd) {
			W w[KJN_U];
#pragma unroll
			for (int u = 0; u < KJN_U; u++)
				if (j + u * bd < nw)
					w[u] = qv[j + u * bd];
#pragma unroll
			for (int u = 0; u < KJN_U; u++)
				if (j + u * bd < nw) {
					cache[j + u * bd] = w[u];
#pragma unroll
					for (int k = 0; k < V; k++)
						s += kjn_term<KIND>(kjt<T>::ld(w[u].e[k]), p);
				}
		}
		s = kj_block_merge<R_add<float> >(s, red);
		if (tid == 0)
			stat[par] = s;
		cl.sync();
		if (tid < csize)
			peer[tid] = *cl.map_shared_rank(&stat[par], (unsigned)tid);
		__syncthreads();
		float tot = peer[0];
		for (unsigned k = 1; k < csize; k++)
			tot += peer[k];
		float d = kjt<T>::ld(kjt<T>::st(kjn_root<KIND>(tot, p)));
		if (!(d >= eps))
			d = d != d ? d : eps;
		if (hh)
			o[tid] = kjt<T>::st(hv / d);
		if (ht)
			o[t0 + tid] = kjt<T>::st(tv / d);
		for (int j = tid; j < nw; j += bd) {
			W e = cache[j];
#pragma unroll
			for (int k = 0; k < V; k++)
				e.e[k] = kjt<T>::st(kjt<T>::ld(e.e[k]) / d);
			ov[j] = e;
		}
	}
	/* no block may leave while a peer can still read its sums */
	cl.sync();
#endif
}

/* Cluster blocks keep at most this many bytes of a row each (8 blocks:
 * rows up to 1 MB). */
#define KJN_CHUNK_BYTES (128 * 1024)

template <class T, int KIND>
static int rows_normalize_launch(kj_gpu *g, const T *x, T *y, int64_t rows, int64_t len, float p,
				 float eps, int *handled, struct kj_err *err)
{
	const int V = kjv<T>::N;
	int64_t bytes = len * (int64_t)sizeof(T), csize = 1;
	while (bytes > csize * 64 * 1024 && csize < 8)
		csize *= 2;
	int64_t cw = ((len + V - 1) / V + csize - 1) / csize;
	size_t smem = (size_t)cw * 16;
	if (smem > KJN_CHUNK_BYTES)
		return 0;
	int threads = smem >= 32 * 1024 ? 512 : 256;
	KJ_CUDA_CHECK(err, cudaFuncSetAttribute(rows_normalize_k<T, KIND>,
						cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
	if (!kj_cluster_cfg(rows_normalize_k<T, KIND>, csize, threads, smem, g->stream, rows, &cfg, &attr))
		return 0;
	*handled = 1;
	KJ_CUDA_CHECK(err, cudaLaunchKernelEx(&cfg, rows_normalize_k<T, KIND>, x, y, rows, len, cw, p,
					      eps));
	KJ_LAUNCH_CHECK(err, "normalize rows");
	return 0;
}

template <class T>
static int rows_normalize(kj_gpu *g, const T *x, T *y, int64_t rows, int64_t len, int kind, float p,
			  float eps, int *handled, struct kj_err *err)
{
	*handled = 0;
	if (rows < 1 || len * (int64_t)sizeof(T) < 16 * 1024 || (((uintptr_t)x ^ (uintptr_t)y) & 15) ||
	    g->info.cc_major < 9 || !kj_knob_int("KJ_NORM_CLUSTER"))
		return 0;
	if (kind == KJM_P1)
		return rows_normalize_launch<T, KJM_P1>(g, x, y, rows, len, p, eps, handled, err);
	if (kind == KJM_P2)
		return rows_normalize_launch<T, KJM_P2>(g, x, y, rows, len, p, eps, handled, err);
	return rows_normalize_launch<T, KJM_PANY>(g, x, y, rows, len, p, eps, handled, err);
}

int kj_rows_normalize(kj_gpu *g, const float *x, float *y, int64_t rows, int64_t len, int kind,
		      float p, float eps, int *handled, struct kj_err *err)
{
	return rows_normalize(g, x, y, rows, len, kind, p, eps, handled, err);
}

int kj_rows_normalize(kj_gpu *g, const __half *x, __half *y, int64_t rows, int64_t len, int kind,
		      float p, float eps, int *handled, struct kj_err *err)
{
	return rows_normalize(g, x, y, rows, len, kind, p, eps, handled, err);
}

int kj_rows_normalize(kj_gpu *g, const __nv_bfloat16 *x, __nv_bfloat16 *y, int64_t rows,
		      int64_t len, int kind, float p, float eps, int *handled, struct kj_err *err)
{
	return rows_normalize(g, x, y, rows, len, kind, p, eps, handled, err);
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
