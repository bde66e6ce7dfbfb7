/*
 * The row-reduction framework of the norms and losses of table D (norm,
 * normalize, cosine_similarity, the pointwise losses, triplet_margin_loss):
 * a reduction functor over [outer, len, inner] run by red_run, a block per
 * (row, split) or a thread per column, partials merged in a fixed order.
 */
#ifndef KJ_OPS_ROWRED_CUH
#define KJ_OPS_ROWRED_CUH

#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_d.h"
}

/* ================= reductions: norms and losses ================= */

/* A reduction functor F provides: typedef S (the state), A (the arithmetic
 * type); init(); add(S, off) for element offset off of its operands;
 * merge(S, S); fin(S, row) the value of output `row`. */

/* Writes value v of output `row` as T. */
template <class T> struct kjm_sink {
	T *y;
	__device__ __forceinline__ void put(int64_t row, typename kjt<T>::acc v) const
	{
		y[row] = kjt<T>::st(v);
	}
};

/* Rows of `len` contiguous elements (inner == 1): a block per (row, split);
 * with splits == 1 the block writes the result, else its partial state. */
template <class F, class K>
__global__ void red_rows_k(F f, K sink, int64_t rows, int64_t len, int splits, typename F::S *part)
{
	typedef typename F::S S;
	__shared__ S red[32];
	for (int64_t u = blockIdx.x; u < rows * splits; u += gridDim.x) {
		int64_t r = u / splits, b = u - r * splits;
		int64_t j0 = len * b / splits, j1 = len * (b + 1) / splits;
		S s = F::init();
		for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x)
			s = f.add(s, r * len + j);
		s = kj_block_merge<F>(s, red);
		if (threadIdx.x == 0) {
			if (splits == 1)
				sink.put(r, f.fin(s, r));
			else
				part[u] = s;
		}
	}
}

/* Merges each row's partials in order. */
template <class F, class K>
__global__ void red_parts_k(F f, K sink, int64_t rows, int splits, const typename F::S *part)
{
	typedef typename F::S S;
	__shared__ S red[32];
	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		S s = F::init();
		/* thread t merges parts t, t + blockDim, ... then the block merges
		 * them: an order fixed by the launch, so deterministic */
		for (int b = threadIdx.x; b < splits; b += blockDim.x)
			s = F::merge(s, part[r * splits + b]);
		s = kj_block_merge<F>(s, red);
		if (threadIdx.x == 0)
			sink.put(r, f.fin(s, r));
	}
}

/* A middle dim: a thread per (outer, inner) output. */
template <class F, class K>
__global__ void red_cols_k(F f, K sink, int64_t outer, int64_t len, int64_t inner)
{
	int64_t nout = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		int64_t o = oi / inner, i = oi - o * inner, base = o * len * inner + i;
		typename F::S s = F::init();
		/* unrolled so that several loads are in flight per thread (the
		 * adds stay in order), as long as f.add has no branches: F_pnorm's
		 * runtime choice of p keeps one load in flight (the float norm
		 * uses pnorm_col_k) */
#pragma unroll 8
		for (int64_t j = 0; j < len; j++)
			s = f.add(s, base + j * inner);
		sink.put(oi, f.fin(s, oi));
	}
}

/* Runs F over [outer, len, inner] into sink.  part space: g->workspace
 * from byte offset `woff`. */
template <class F, class K>
static int red_run(kj_gpu *g, const F &f, const K &sink, int64_t outer, int64_t len,
		   int64_t inner, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename F::S S;
	int sms = g->info.sm_count;
	if (outer * inner == 0)
		return 0;
	if (inner == 1) {
		int64_t rows = outer;
		int splits = 1;
		if (rows < (int64_t)sms * 2 && len >= 16384) {
			int64_t want = ((int64_t)sms * 4 + rows - 1) / rows, maxs = len / 4096;
			splits = (int)(want < maxs ? want : maxs);
			if (splits < 1)
				splits = 1;
		}
		size_t need = woff + (size_t)rows * splits * sizeof(S);
		if (splits > 1 && need > g->workspace_bytes)
			splits = 1;
		int threads = len >= 2048 ? 512 : len >= 256 ? 256 : 128;
		S *part = (S *)((char *)g->workspace + woff);
		red_rows_k<F, K><<<grid_cap(rows * splits, (int64_t)sms * 32), threads, 0, g->stream>>>(
			f, sink, rows, len, splits, part);
		if (splits > 1)
			red_parts_k<F, K><<<grid_cap(rows, (int64_t)sms * 32), 256, 0, g->stream>>>(
				f, sink, rows, splits, part);
	} else {
		red_cols_k<F, K><<<kj_blocks(g, outer * inner, 256), 256, 0, g->stream>>>(f, sink, outer,
											 len, inner);
	}
	KJM_CHECK(err, what);
	return 0;
}

template <class A> __device__ __forceinline__ A pterm_d(A x, int k, A p)
{
	A a = m_fabs(x);
	return k == KJM_P1 ? a : k == KJM_P2 ? a * a : m_pow(a, p);
}

template <class A> __device__ __forceinline__ A proot_d(A s, int k, A p)
{
	return k == KJM_P1 ? s : k == KJM_P2 ? m_sqrt(s) : m_pow(s, (A)1 / p);
}
#endif
