/*
 * CUDA softmax and log_softmax (table A) for the eager baseline and the
 * reference, mirroring src/ops/cpu/reduce_impl.h: online (max, sum)
 * statistics: a warp per row up to 1024 elements, else a block per row that
 * keeps the row in shared memory when it fits and otherwise reads it twice;
 * a thread per column for a middle dim.  The attention op (sdpa) that
 * shares the family is ops_attn.cu.
 */
#include <cooperative_groups.h>

#include "ops/cuda/ops_common.cuh"

namespace cg = cooperative_groups;

/* ---- softmax, log_softmax ---- */

/* is: 1/s, so that the second pass multiplies (within an ulp of dividing). */
template <class A, bool LOG> __device__ __forceinline__ A sm_out(A x, A m, A is, A ls)
{
	return LOG ? x - m - ls : m_fexp(x - m) * is;
}

/* The factor sm_out takes (a NaN sum stays NaN through it). */
template <class A> __device__ __forceinline__ A sm_inv(A s)
{
	return (A)1 / s;
}

template <class T, bool LOG>
__global__ void softmax_warp_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t len)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef kj_smx<A> SM;
	int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;

	for (int64_t r = (int64_t)blockIdx.x * wpb + (threadIdx.x >> 5); r < rows;
	     r += (int64_t)gridDim.x * wpb) {
		const T *xr = x + r * len;
		T *yr = y + r * len;
		typename SM::S st = SM::init();
#pragma unroll 4
		for (int64_t j = lane; j < len; j += 32)
			st = SM::add(st, tt::ld(xr[j]));
		st = kj_warp_merge<SM>(st);
		A s = SM::sum(st, len), ls = LOG ? m_log(s) : (A)0, is = sm_inv(s);
#pragma unroll 4
		for (int64_t j = lane; j < len; j += 32)
			yr[j] = tt::st(sm_out<A, LOG>(tt::ld(xr[j]), st.m, is, ls));
	}
}

/* cache: the row in shared memory (dynamic, len elements) or NULL.  Each
 * thread reads back only what it wrote itself, so no barrier is needed
 * between the two passes beyond the merge's. */
template <class T, bool LOG>
__global__ void softmax_block_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows,
				int64_t len, int use_cache, int vec)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef kj_smx<A> SM;
	const int N = kjv<T>::N;
	extern __shared__ int4 dsm[];
	__shared__ typename SM::S red[32];
	T *cache = (T *)dsm;
	int64_t bs = blockDim.x;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *xr = x + r * len;
		T *yr = y + r * len;
		typename SM::S st = SM::init();
		if (vec) {
			for (int64_t v = threadIdx.x; v < len / N; v += bs) {
				kjv<T> e = ((const kjv<T> *)xr)[v];
				A a[N];
				if (use_cache)
					((kjv<T> *)cache)[v] = e;
#pragma unroll
				for (int k = 0; k < N; k++)
					a[k] = tt::ld(e.e[k]);
				st = SM::template addn<N>(st, a);
			}
		} else {
			for (int64_t j = threadIdx.x; j < len; j += bs) {
				T e = xr[j];
				if (use_cache)
					cache[j] = e;
				st = SM::add(st, tt::ld(e));
			}
		}
		st = kj_block_merge<SM>(st, red);
		A s = SM::sum(st, len), ls = LOG ? m_log(s) : (A)0, is = sm_inv(s);
		if (vec) {
			for (int64_t v = threadIdx.x; v < len / N; v += bs) {
				kjv<T> e = use_cache ? ((const kjv<T> *)cache)[v] : ((const kjv<T> *)xr)[v];
#pragma unroll
				for (int k = 0; k < N; k++)
					e.e[k] = tt::st(sm_out<A, LOG>(tt::ld(e.e[k]), st.m, is, ls));
				((kjv<T> *)yr)[v] = e;
			}
		} else {
			for (int64_t j = threadIdx.x; j < len; j += bs)
				yr[j] = tt::st(sm_out<A, LOG>(tt::ld(use_cache ? cache[j] : xr[j]), st.m,
							      is, ls));
		}
		__syncthreads();
	}
}

template <class T, bool LOG>
__global__ void softmax_col_k(const T *__restrict__ x, T *__restrict__ y, int64_t outer,
			      int64_t len, int64_t inner)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef kj_smx<A> SM;
	int64_t nout = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		int64_t o = oi / inner, i = oi - o * inner, base = o * len * inner + i;
		typename SM::S st = SM::init();
		for (int64_t j = 0; j < len; j++)
			st = SM::add(st, tt::ld(x[base + j * inner]));
		A s = SM::sum(st, len), ls = LOG ? m_log(s) : (A)0, is = sm_inv(s);
		for (int64_t j = 0; j < len; j++)
			y[base + j * inner] = tt::st(sm_out<A, LOG>(tt::ld(x[base + j * inner]), st.m, is, ls));
	}
}

/* Long rows: a cluster of C blocks (Hopper thread-block clusters) shares a
 * row, each block keeping its chunk in shared memory; the blocks exchange
 * their (max, sum) through distributed shared memory, so the row is read
 * from global memory once and written once.  One cluster barrier per row:
 * the statistics are double-buffered by row parity, and a block cannot
 * overwrite a slot before every block has passed the barrier after the
 * reads of that slot. */
template <class T, bool LOG>
__global__ void softmax_cluster_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows,
				  int64_t len, int64_t chunk)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* launched on cc >= 9 only */
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef kj_smx<A> SM;
	typedef typename SM::S S;
	const int N = kjv<T>::N;
	extern __shared__ int4 dsm[];
	__shared__ S red[32], stat[2], peer[16];
	kjv<T> *cache = (kjv<T> *)dsm;
	cg::cluster_group cl = cg::this_cluster();
	unsigned rank = cl.block_rank(), csize = cl.num_blocks();
	int64_t ncl = gridDim.x / csize, bs = blockDim.x;
	int64_t j0 = (int64_t)rank * chunk, j1 = j0 + chunk < len ? j0 + chunk : len;
	int64_t nv = j1 > j0 ? (j1 - j0) / N : 0;
	int par = 0;

	for (int64_t r = blockIdx.x / csize; r < rows; r += ncl, par ^= 1) {
		const kjv<T> *xr = (const kjv<T> *)(x + r * len + j0);
		kjv<T> *yr = (kjv<T> *)(y + r * len + j0);
		S st = SM::init();
		int64_t v = threadIdx.x;
		for (; v + 3 * bs < nv; v += 4 * bs) {
			kjv<T> e[4];
#pragma unroll
			for (int u = 0; u < 4; u++)
				e[u] = xr[v + u * bs];
#pragma unroll
			for (int u = 0; u < 4; u++) {
				A a[N];
				cache[v + u * bs] = e[u];
#pragma unroll
				for (int k = 0; k < N; k++)
					a[k] = tt::ld(e[u].e[k]);
				st = SM::template addn<N>(st, a);
			}
		}
		for (; v < nv; v += bs) {
			kjv<T> e = xr[v];
			A a[N];
			cache[v] = e;
#pragma unroll
			for (int k = 0; k < N; k++)
				a[k] = tt::ld(e.e[k]);
			st = SM::template addn<N>(st, a);
		}
		st = kj_block_merge<SM>(st, red);
		if (threadIdx.x == 0)
			stat[par] = st;
		cl.sync();
		if (threadIdx.x < csize)
			peer[threadIdx.x] = *cl.map_shared_rank(&stat[par], threadIdx.x);
		__syncthreads();
		S g = peer[0];
		for (unsigned k = 1; k < csize; k++)
			g = SM::merge(g, peer[k]);
		A s = SM::sum(g, len), ls = LOG ? m_log(s) : (A)0, is = sm_inv(s);
		for (v = threadIdx.x; v < nv; v += bs) {
			kjv<T> e = cache[v];
#pragma unroll
			for (int k = 0; k < N; k++)
				e.e[k] = tt::st(sm_out<A, LOG>(tt::ld(e.e[k]), g.m, is, ls));
			yr[v] = e;
		}
	}
	/* no block may leave while a peer can still read its statistics */
	cl.sync();
#endif
}

/* Softmax along a dim with inner > 1 (columns): a thread per column and
 * chunk of the run.  Pass 1 writes each chunk's (max, sum) to part[c][col],
 * pass 2 merges a column's chunks into part[0][col], pass 3 writes the
 * outputs; x is read twice, and the chunks give every SM work even when the
 * columns are few (softmax over dim 0 of a [131072, 4096] tensor has 4096). */
struct kj_scgeom {
	int64_t outer, len, inner, clen, chunks;
};

template <class T>
__global__ void smcol_stats_k(const T *__restrict__ x, kj_sm_state<typename kjt<T>::acc> *part,
			      kj_scgeom gm)
{
	typedef kjt<T> tt;
	typedef kj_smx<typename tt::acc> SM;
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
	int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;
	if (i >= gm.inner)
		return;
	for (int64_t o = blockIdx.z; o < gm.outer; o += gridDim.z) {
		const T *p = x + o * gm.len * gm.inner + i;
		typename SM::S st = SM::init();
#pragma unroll 4
		for (int64_t j = j0; j < j1; j++)
			st = SM::add(st, tt::ld(p[j * gm.inner]));
		part[c * gm.outer * gm.inner + o * gm.inner + i] = st;
	}
}

template <class A>
__global__ void smcol_fin_k(kj_sm_state<A> *part, int64_t ncol, int64_t chunks)
{
	typedef kj_smx<A> SM;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < ncol; k += stride) {
		typename SM::S st = part[k];
		for (int64_t c = 1; c < chunks; c++)
			st = SM::merge(st, part[c * ncol + k]);
		part[k] = st;
	}
}

template <class T, bool LOG>
__global__ void smcol_apply_k(const T *__restrict__ x, T *__restrict__ y,
			      const kj_sm_state<typename kjt<T>::acc> *part, kj_scgeom gm)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef kj_smx<A> SM;
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
	int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;
	if (i >= gm.inner)
		return;
	for (int64_t o = blockIdx.z; o < gm.outer; o += gridDim.z) {
		typename SM::S st = part[o * gm.inner + i];
		A s = SM::sum(st, gm.len), ls = LOG ? m_log(s) : (A)0, is = sm_inv(s);
		int64_t base = o * gm.len * gm.inner + i;
#pragma unroll 4
		for (int64_t j = j0; j < j1; j++)
			y[base + j * gm.inner] =
				tt::st(sm_out<A, LOG>(tt::ld(x[base + j * gm.inner]), st.m, is, ls));
	}
}

template <class T, bool LOG>
static void smcol_launch(kj_gpu *g, const T *x, T *y, int64_t outer, int64_t len, int64_t inner)
{
	typedef kj_sm_state<typename kjt<T>::acc> S;
	int64_t sms = g->info.sm_count, ncol = outer * inner;
	int bx = inner >= 256 ? 256 : inner > 128 ? 256 : inner > 64 ? 128 : inner > 32 ? 64 : 32;
	int64_t gx = ceil_div(inner, bx), gz = outer < 65535 ? outer : 65535;
	int64_t chunks = ceil_div(8 * sms, gx * gz), wsmax = (int64_t)(g->workspace_bytes / sizeof(S));
	kj_scgeom gm;
	if (chunks > len / 16)
		chunks = len / 16;
	if (chunks * ncol > wsmax)
		chunks = wsmax / ncol;
	if (chunks > 65535)
		chunks = 65535;
	if (chunks < 1)
		chunks = 1;
	gm.outer = outer;
	gm.len = len;
	gm.inner = inner;
	gm.clen = ceil_div(len, chunks);
	gm.chunks = ceil_div(len, gm.clen);
	S *part = (S *)g->workspace;
	dim3 grid((unsigned)gx, (unsigned)gm.chunks, (unsigned)gz);
	smcol_stats_k<T><<<grid, bx, 0, g->stream>>>(x, part, gm);
	if (gm.chunks > 1)
		smcol_fin_k<typename kjt<T>::acc><<<kj_blocks(g, ncol, 256), 256, 0, g->stream>>>(
			part, ncol, gm.chunks);
	smcol_apply_k<T, LOG><<<grid, bx, 0, g->stream>>>(x, y, part, gm);
}

/* Chunk bytes a cluster block keeps; a row of up to 8 chunks is read once. */
#define KJ_SOFTMAX_CHUNK_BYTES (128 * 1024)

/* Launches softmax_cluster_k for rows of len elements when a cluster of at
 * most 8 blocks can hold a row; *done = 0 when not applicable. */
template <class T, bool LOG>
static int softmax_cluster_launch(kj_gpu *g, const T *x, T *y, int64_t rows, int64_t len,
				  int *done, struct kj_err *err)
{
	const int N = kjv<T>::N;
	int64_t bytes = len * (int64_t)sizeof(T), csize = 1;
	*done = 0;
	while (bytes > csize * 64 * 1024 && csize < 8)
		csize *= 2;
	int64_t chunk = ceil_div(ceil_div(len, csize), N) * N;
	size_t smem = (size_t)chunk * sizeof(T);
	if (smem > KJ_SOFTMAX_CHUNK_BYTES || g->info.cc_major < 9)
		return 0;
	int threads = smem >= 96 * 1024 ? 1024 : smem >= 32 * 1024 ? 512 : 256;
	KJ_CUDA_CHECK(err, cudaFuncSetAttribute(softmax_cluster_k<T, LOG>,
						cudaFuncAttributeMaxDynamicSharedMemorySize,
						(int)smem));
	cudaLaunchConfig_t cfg;
	cudaLaunchAttribute attr;
	if (!kj_cluster_cfg(softmax_cluster_k<T, LOG>, csize, threads, smem, g->stream, rows, &cfg, &attr))
		return 0;
	KJ_CUDA_CHECK(err, cudaLaunchKernelEx(&cfg, softmax_cluster_k<T, LOG>, x, y, rows, len,
					      chunk));
	*done = 1;
	return 0;
}

/* Rows up to this many bytes stay in shared memory between the passes. */
#define KJ_SOFTMAX_CACHE_BYTES (96 * 1024)

template <class T, bool LOG>
static int softmax_launch(kj_gpu *g, const T *x, T *y, int64_t outer, int64_t len, int64_t inner,
			  struct kj_err *err)
{
	int64_t sms = g->info.sm_count;
	if (outer * inner == 0 || len == 0)
		return 0;
	if (inner > 1 && (int64_t)(g->workspace_bytes / sizeof(kj_sm_state<typename kjt<T>::acc>)) >=
				 outer * inner) {
		smcol_launch<T, LOG>(g, x, y, outer, len, inner);
	} else if (inner > 1) {
		softmax_col_k<T, LOG><<<kj_blocks(g, outer * inner, 256), 256, 0, g->stream>>>(
			x, y, outer, len, inner);
	} else if (len <= 1024) {
		softmax_warp_k<T, LOG><<<grid_cap(ceil_div(outer, 8), sms * 64), 256, 0, g->stream>>>(
			x, y, outer, len);
	} else {
		int threads = len >= 16384 ? 1024 : len >= 4096 ? 512 : 256;
		int vec = kj_aligned16(x) && kj_aligned16(y) && len % kjv<T>::N == 0;
		size_t bytes = (size_t)len * sizeof(T);
		if (vec && bytes > 64 * 1024) {
			int done = 0;
			if (softmax_cluster_launch<T, LOG>(g, x, y, outer, len, &done, err))
				return -1;
			if (done) {
				KJ_LAUNCH_CHECK(err, LOG ? "log_softmax" : "softmax");
				return 0;
			}
		}
		int cache = bytes <= KJ_SOFTMAX_CACHE_BYTES;
		if (cache && bytes > 48 * 1024)
			KJ_CUDA_CHECK(err, cudaFuncSetAttribute(softmax_block_k<T, LOG>,
								cudaFuncAttributeMaxDynamicSharedMemorySize,
								KJ_SOFTMAX_CACHE_BYTES));
		softmax_block_k<T, LOG><<<grid_cap(outer, sms * 16), threads, cache ? bytes : 0,
					  g->stream>>>(x, y, outer, len, cache, vec);
	}
	KJ_LAUNCH_CHECK(err, LOG ? "log_softmax" : "softmax");
	return 0;
}

template <bool LOG>
static int softmax_run(kj_gpu *g, const kj_bnode *n, const void *x, void *y, int reference,
		       struct kj_err *err)
{
	int64_t outer, len, inner;
	kjo_split(&n->in[0].shape, red_dim(n), &outer, &len, &inner);
	if (reference)
		return softmax_launch<double, LOG>(g, (const double *)x, (double *)y, outer, len,
						   inner, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return softmax_launch<float, LOG>(g, (const float *)x, (float *)y, outer, len, inner,
						  err);
	case KJ_F16:
		return softmax_launch<__half, LOG>(g, (const __half *)x, (__half *)y, outer, len,
						   inner, err);
	case KJ_BF16:
		return softmax_launch<__nv_bfloat16, LOG>(g, (const __nv_bfloat16 *)x,
							  (__nv_bfloat16 *)y, outer, len, inner, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "%s: input dtype %s is not floating point",
				  n->op->name, kj_dtype_name(n->in[0].dtype));
	}
}

int kj_cuda_softmax(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		    int reference, struct kj_err *err)
{
	return softmax_run<false>(g, n, in[0], out, reference, err);
}

int kj_cuda_log_softmax(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			int reference, struct kj_err *err)
{
	return softmax_run<true>(g, n, in[0], out, reference, err);
}
