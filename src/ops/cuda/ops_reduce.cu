/*
 * CUDA reductions of table A (sum, mean, prod, max, min, argmax, argmin,
 * logsumexp, var, std) for the eager baseline and the reference (softmax
 * and log_softmax: ops_softmax.cu; cumsum: ops_scan.cu).  Semantics mirror
 * src/ops/cpu/reduce_impl.h, NaN rules included; only the order of the
 * additions differs (tree instead of left to right).
 *
 * The input is viewed as [outer, len, inner] around the reduced dim, as on
 * the CPU.  Each reduction is a state with init/add/merge/fin (a reducer R),
 * run by one of three kernels:
 *   - inner == 1 or tiny, short runs: one warp per output;
 *   - inner == 1 or tiny, long runs: one block per output, 16-byte loads; a
 *     few very long runs are also split across blocks (partial states in
 *     g->workspace, merged in order by a second kernel);
 *   - a middle dim (inner >= 4): threads along inner so that loads are
 *     coalesced (each owning a 16-byte vector of outputs where rows are
 *     aligned), a block's rows (threadIdx.y) splitting the run when there
 *     are few outputs (merged by a tree), and again a split across blocks
 *     (red_chunks) until the device is covered and no thread's share of a
 *     run is long enough to matter for an f32 sum.
 */
#include "ops/cuda/ops_common.cuh"

struct kj_rpar {
	int64_t corr;
	int is_std;
};

/* ---- reducers ---- */

template <class A> struct R_sum {
	typedef A S;
	static __device__ __forceinline__ S init() { return 0; }
	static __device__ __forceinline__ S add(S s, A x, int64_t) { return s + x; }
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	static __device__ __forceinline__ double fin(const S &s, int64_t, const kj_rpar &)
	{
		return (double)s;
	}
};

template <class A> struct R_mean : R_sum<A> {
	static __device__ __forceinline__ double fin(const A &s, int64_t len, const kj_rpar &)
	{
		return (double)(s / (A)len);
	}
};

template <class A> struct R_prod {
	typedef A S;
	static __device__ __forceinline__ S init() { return 1; }
	static __device__ __forceinline__ S add(S s, A x, int64_t) { return s * x; }
	static __device__ __forceinline__ S merge(S a, S b) { return a * b; }
	static __device__ __forceinline__ double fin(const S &s, int64_t, const kj_rpar &)
	{
		return (double)s;
	}
};

/* Extreme value and its index: the first NaN if any, else the first
 * occurrence of the largest (SIGN > 0) or smallest value.  i < 0: empty. */
template <class A> struct ext_state {
	long long i;
	A v;
};

template <class A, int SIGN, int IDX> struct R_ext {
	typedef ext_state<A> S;
	static __device__ __forceinline__ S init()
	{
		S s;
		s.i = -1;
		s.v = 0;
		return s;
	}
	static __device__ __forceinline__ bool better(A x, A y)
	{
		return SIGN > 0 ? x > y : x < y;
	}
	/* elements of one thread arrive in increasing index */
	static __device__ __forceinline__ S add(S s, A x, int64_t j)
	{
		if (s.i < 0 || (s.v == s.v && (x != x || better(x, s.v)))) {
			s.v = x;
			s.i = j;
		}
		return s;
	}
	static __device__ __forceinline__ S merge(S a, S b)
	{
		if (a.i < 0)
			return b;
		if (b.i < 0)
			return a;
		bool an = a.v != a.v, bn = b.v != b.v;
		if (an || bn) {
			if (an && bn)
				return a.i < b.i ? a : b;
			return an ? a : b;
		}
		if (better(a.v, b.v))
			return a;
		if (better(b.v, a.v))
			return b;
		return a.i < b.i ? a : b;
	}
	static __device__ __forceinline__ double fin(const S &s, int64_t, const kj_rpar &)
	{
		return IDX ? (double)s.i : (double)s.v;
	}
};
/* max/min values alone: NaN if any is NaN, else the extreme; no index to
 * carry.  Runs are never empty (infer rejects it). */
template <int SIGN> __device__ __forceinline__ double ext_nan(double a, double b)
{
	if (a != a)
		return a;
	if (b != b)
		return b;
	return (SIGN > 0 ? b > a : b < a) ? b : a;
}
/* float: one max.NaN / min.NaN (sm_80+) instead of two NaN tests, a compare
 * and a select per element, which kept min over a middle dim below the
 * copy bandwidth */
template <int SIGN> __device__ __forceinline__ float ext_nan(float a, float b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	float r;
	if (SIGN > 0)
		asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	else
		asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
	return r;
#else
	if (a != a)
		return a;
	if (b != b)
		return b;
	return (SIGN > 0 ? b > a : b < a) ? b : a;
#endif
}

template <class A, int SIGN> struct R_extv {
	typedef A S;
	static __device__ __forceinline__ S init() { return SIGN > 0 ? -m_inf<A>() : m_inf<A>(); }
	static __device__ __forceinline__ S merge(S a, S b) { return ext_nan<SIGN>(a, b); }
	static __device__ __forceinline__ S add(S s, A x, int64_t) { return merge(s, x); }
	static __device__ __forceinline__ double fin(const S &s, int64_t, const kj_rpar &)
	{
		return (double)s;
	}
};
template <class A> using R_max = R_extv<A, 1>;
template <class A> using R_min = R_extv<A, -1>;
template <class A> using R_argmax = R_ext<A, 1, 1>;
template <class A> using R_argmin = R_ext<A, -1, 1>;

/* log(sum(exp(x - m))) + m with the CPU's cases: NaN if a NaN, +inf if a
 * +inf, -inf if every value is -inf (or there are none). */
template <class A> struct R_lse {
	typedef kj_sm_state<A> S;
	static __device__ __forceinline__ S init() { return kj_smx<A>::init(); }
	static __device__ __forceinline__ S add(S s, A x, int64_t) { return kj_smx<A>::add(s, x); }
	static __device__ __forceinline__ S merge(S a, S b) { return kj_smx<A>::merge(a, b); }
	static __device__ __forceinline__ double fin(const S &s, int64_t, const kj_rpar &)
	{
		if (s.nan)
			return (double)NAN;
		if (isinf(s.m))
			return (double)s.m;
		return (double)(m_log(s.s) + s.m);
	}
};

/* N loaded values of a vector into a reducer: element by element, except
 * where the reducer has a batched form (log-sum-exp). */
template <class R> struct red_vec {
	template <int N, class A>
	static __device__ __forceinline__ typename R::S add(typename R::S s, const A *e, int64_t j)
	{
#pragma unroll
		for (int k = 0; k < N; k++)
			s = R::add(s, e[k], j + k);
		return s;
	}
};
template <class B> struct red_vec<R_lse<B> > {
	template <int N, class A>
	static __device__ __forceinline__ typename R_lse<B>::S add(typename R_lse<B>::S s,
								 const A *e, int64_t)
	{
		return kj_smx<B>::template addn<N>(s, e);
	}
};

/* Welford's running mean and sum of squared deviations, merged with Chan's
 * formula; divided by max(0, N - correction) as the CPU does. */
template <class A> struct var_state {
	A mean, m2;
	long long n;
};

template <class A> struct R_var {
	typedef var_state<A> S;
	static __device__ __forceinline__ S init()
	{
		S s;
		s.mean = 0;
		s.m2 = 0;
		s.n = 0;
		return s;
	}
	static __device__ __forceinline__ S add(S s, A x, int64_t)
	{
		s.n++;
		A d = x - s.mean;
		s.mean += d / (A)s.n;
		s.m2 += d * (x - s.mean);
		return s;
	}
	static __device__ __forceinline__ S merge(S a, S b)
	{
		if (a.n == 0)
			return b;
		if (b.n == 0)
			return a;
		S r;
		r.n = a.n + b.n;
		A d = b.mean - a.mean, f = (A)b.n / (A)r.n;
		r.mean = a.mean + d * f;
		r.m2 = a.m2 + b.m2 + d * d * (A)a.n * f;
		return r;
	}
	static __device__ __forceinline__ double fin(const S &s, int64_t len, const kj_rpar &rp)
	{
		double dof = (double)len - (double)rp.corr;
		A v = s.m2 / (A)(dof > 0 ? dof : 0);
		return rp.is_std ? (double)m_sqrt(v) : (double)v;
	}
};

/* ---- reduction kernels ---- */

struct kj_rgeom {
	int64_t outer, len, inner, chunks, clen;
	int vec;
};

template <class R, class L>
__global__ void red_warp_k(L x, void *out, int odt, kj_rgeom gm, kj_rpar rp)
{
	typedef typename R::S S;
	int lane = threadIdx.x & 31, wpb = blockDim.x >> 5;
	int64_t nout = gm.outer * gm.inner;

	for (int64_t oi = (int64_t)blockIdx.x * wpb + (threadIdx.x >> 5); oi < nout;
	     oi += (int64_t)gridDim.x * wpb) {
		int64_t o = oi / gm.inner, i = oi - o * gm.inner, base = o * gm.len * gm.inner + i;
		S s = R::init();
#pragma unroll 4
		for (int64_t j = lane; j < gm.len; j += 32)
			s = R::add(s, x.ld(base + j * gm.inner), j);
		s = kj_warp_merge<R>(s);
		if (lane == 0)
			kjd_store(odt, out, (size_t)oi, R::fin(s, gm.len, rp));
	}
}

/* Very short runs (a max over pairs): a thread per output; a warp per
 * output would leave most of its lanes idle. */
template <class R, class L>
__global__ void red_thread_k(L x, void *out, int odt, kj_rgeom gm, kj_rpar rp)
{
	typedef typename R::S S;
	int64_t nout = gm.outer * gm.inner, stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		int64_t o = oi / gm.inner, i = oi - o * gm.inner, base = o * gm.len * gm.inner + i;
		S s = R::init();
#pragma unroll 8
		for (int64_t j = 0; j < gm.len; j++)
			s = R::add(s, x.ld(base + j * gm.inner), j);
		kjd_store(odt, out, (size_t)oi, R::fin(s, gm.len, rp));
	}
}

/* s with elements base + j * inner added for j = j, j + step, ... < j1, in
 * that order, U loads issued before they are added: `#pragma unroll` over
 * a loop whose trip count is only known at run time did not keep several
 * loads in flight, so min over the middle dim of KernelBench's shape
 * (128 x 4096 x 4095, rows not 16-byte aligned: no red_colv_k) ran at
 * 1.26x PyTorch's time.  The order of the adds is the loop's, so results
 * are those of the plain loop. */
template <class R, class L>
__device__ __forceinline__ typename R::S red_strided(const L &x, typename R::S s, int64_t base,
						     int64_t inner, int64_t j, int64_t j1, int64_t step)
{
	typedef typename L::A A;
	const int U = 8;
	for (; j + (U - 1) * step < j1; j += U * step) {
		A v[U];
#pragma unroll
		for (int k = 0; k < U; k++)
			v[k] = x.ld(base + (j + k * step) * inner);
#pragma unroll
		for (int k = 0; k < U; k++)
			s = R::add(s, v[k], j + k * step);
	}
	for (; j < j1; j += step)
		s = R::add(s, x.ld(base + j * inner), j);
	return s;
}

template <class R, class L>
__global__ void red_block_k(L x, void *out, int odt, typename R::S *part, kj_rgeom gm, kj_rpar rp)
{
	typedef typename R::S S;
	typedef typename L::A A;
	__shared__ S sm[32];
	int64_t nwork = gm.outer * gm.inner * gm.chunks;

	for (int64_t w = blockIdx.x; w < nwork; w += gridDim.x) {
		int64_t oi = w / gm.chunks, c = w - oi * gm.chunks;
		int64_t o = oi / gm.inner, i = oi - o * gm.inner, base = o * gm.len * gm.inner + i;
		int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;
		S s = R::init();
		if (gm.vec) {
			const int N = L::N;
			int64_t nv = (j1 - j0) / N, bs = blockDim.x;
			for (int64_t v = threadIdx.x; v < nv; v += 2 * bs) {
				A e0[N], e1[N];
				bool h = v + bs < nv;
				x.ldv(base + j0 + v * N, e0);
				if (h)
					x.ldv(base + j0 + (v + bs) * N, e1);
				s = red_vec<R>::template add<N>(s, e0, j0 + v * N);
				if (h)
					s = red_vec<R>::template add<N>(s, e1, j0 + (v + bs) * N);
			}
		} else {
			s = red_strided<R>(x, s, base, gm.inner, j0 + threadIdx.x, j1, blockDim.x);
		}
		s = kj_block_merge<R>(s, sm);
		if (threadIdx.x == 0) {
			if (gm.chunks == 1)
				kjd_store(odt, out, (size_t)oi, R::fin(s, gm.len, rp));
			else
				part[w] = s;
		}
	}
}

/* by partial states of each column x of a block (sm[ty * bx + tx]) merged
 * into ty == 0's s, pairwise (a tree: the rounding of a long sum grows with
 * log2(by), not by); by is a power of two. */
template <class R>
__device__ __forceinline__ typename R::S red_ymerge(typename R::S s, typename R::S *sm)
{
	int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x;
	sm[ty * bx + tx] = s;
	__syncthreads();
	for (int h = blockDim.y >> 1; h > 0; h >>= 1) {
		if (ty < h)
			sm[ty * bx + tx] = R::merge(sm[ty * bx + tx], sm[(ty + h) * bx + tx]);
		__syncthreads();
	}
	s = sm[tx];
	__syncthreads();
	return s;
}

/* Block (bx, by): x along inner, y splitting the run (rows j0 + ty,
 * j0 + ty + by, ...); z = chunk. */
template <class R, class L>
__global__ void red_col_k(L x, void *out, int odt, typename R::S *part, kj_rgeom gm, kj_rpar rp)
{
	typedef typename R::S S;
	__shared__ S sm[256];
	int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
	int64_t i = (int64_t)blockIdx.x * bx + tx, c = blockIdx.z;
	int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;

	for (int64_t o = blockIdx.y; o < gm.outer; o += gridDim.y) {
		S s = R::init();
		if (i < gm.inner)
			s = red_strided<R>(x, s, o * gm.len * gm.inner + i, gm.inner, j0 + ty, j1, by);
		if (by > 1)
			s = red_ymerge<R>(s, sm);
		if (ty == 0 && i < gm.inner) {
			int64_t oi = o * gm.inner + i;
			if (gm.chunks == 1)
				kjd_store(odt, out, (size_t)oi, R::fin(s, gm.len, rp));
			else /* chunk-major: coalesced here and in red_fin_k */
				part[c * gm.outer * gm.inner + oi] = s;
		}
	}
}

/* The middle-dim case on 16-byte rows: thread x owns N consecutive outputs
 * and reads them with one 16-byte load per row; threads y split the
 * block's run as in red_col_k (by == 1 when there are outputs enough);
 * z = chunk. */
template <class R, class T>
__global__ void __launch_bounds__(256) red_colv_k(const T *__restrict__ x, void *out, int odt,
						  typename R::S *part, kj_rgeom gm, kj_rpar rp)
{
	typedef typename R::S S;
	const int N = kjv<T>::N;
	__shared__ S sm[256];
	int ty = threadIdx.y, by = blockDim.y;
	int64_t iv = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.z;
	int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;
	bool live = iv < gm.inner / N;

	if (!live && by == 1)
		return; /* no block-wide merge to take part in */
	for (int64_t o = blockIdx.y; o < gm.outer; o += gridDim.y) {
		const T *base = x + o * gm.len * gm.inner + iv * N;
		S s[N];
#pragma unroll
		for (int k = 0; k < N; k++)
			s[k] = R::init();
		if (live) {
#pragma unroll 4
			for (int64_t j = j0 + ty; j < j1; j += by) {
				kjv<T> e = *(const kjv<T> *)(base + j * gm.inner);
#pragma unroll
				for (int k = 0; k < N; k++)
					s[k] = R::add(s[k], kjt<T>::ld(e.e[k]), j);
			}
		}
		if (by > 1) {
#pragma unroll
			for (int k = 0; k < N; k++)
				s[k] = red_ymerge<R>(s[k], sm);
		}
		if (ty != 0 || !live)
			continue;
		if (N == 4 && gm.chunks == 1 && odt == KJ_F32 && gm.vec) {
			/* float outputs of a float input: one 16-byte store */
			float4 f;
			f.x = kjd_d2f(R::fin(s[0], gm.len, rp));
			f.y = kjd_d2f(R::fin(s[1 % N], gm.len, rp));
			f.z = kjd_d2f(R::fin(s[2 % N], gm.len, rp));
			f.w = kjd_d2f(R::fin(s[3 % N], gm.len, rp));
			*(float4 *)((float *)out + o * gm.inner + iv * N) = f;
			continue;
		}
#pragma unroll
		for (int k = 0; k < N; k++) {
			int64_t oi = o * gm.inner + iv * N + k;
			if (gm.chunks == 1)
				kjd_store(odt, out, (size_t)oi, R::fin(s[k], gm.len, rp));
			else
				part[c * gm.outer * gm.inner + oi] = s[k];
		}
	}
}

/* Output oi's chunk c partial is part[oi * os + c * cs]: os = chunks, cs = 1
 * from red_block_k, os = 1, cs = nout from the column kernels. */
template <class R>
__global__ void red_fin_k(const typename R::S *part, void *out, int odt, int64_t nout,
			  int64_t chunks, int64_t os, int64_t cs, int64_t len, kj_rpar rp)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		const typename R::S *p = part + oi * os;
		typename R::S s = p[0];
#pragma unroll 4
		for (int64_t c = 1; c < chunks; c++)
			s = R::merge(s, p[c * cs]);
		kjd_store(odt, out, (size_t)oi, R::fin(s, len, rp));
	}
}

/* Chunks of a run of len split across blocks: enough blocks in all
 * (grid blocks * chunks >= bps * SMs, bps = KJ_RED_BPS, default 4, the
 * best of 2, 4, 8 and 16 on the H200's middle-dim reductions) and no thread summing more than 4096 rows of one
 * chunk (the rounding of a long f32 sum), while each thread keeps at least
 * 32 rows of a chunk and the partial states fit the workspace. */
static int64_t red_chunks(const kj_gpu *g, int64_t blocks, int64_t len, int64_t by, int64_t nout,
			  int64_t wsmax)
{
	int64_t sms = g->info.sm_count, bps = kj_knob_int("KJ_RED_BPS");
	int64_t chunks = 1, most = len / (by * 32);
	if (blocks < bps * sms && len >= by * 64)
		chunks = ceil_div(bps * sms, blocks);
	if (chunks < ceil_div(len, by * 4096))
		chunks = ceil_div(len, by * 4096);
	if (chunks > most)
		chunks = most;
	if (chunks * nout > wsmax)
		chunks = wsmax / nout;
	if (chunks > 65535)
		chunks = 65535;
	return chunks < 1 ? 1 : chunks;
}

/* Launches red_colv_k when the loader is typed and rows of inner start on
 * 16-byte boundaries; fills gm->chunks.  false: not applicable.  wide: many
 * outputs or short runs, 256 threads along inner; else the block is
 * pow2(inner / N) threads along inner (at most 256) and splits its run over
 * the rest of 256 threads. */
template <class R, class T>
static bool try_colv(kj_gpu *g, ld_typed<T> x, bool aligned, bool wide, void *out, int odt,
		     kj_rgeom *gm, kj_rpar rp)
{
	typedef typename R::S S;
	const int N = kjv<T>::N;
	int64_t sms = g->info.sm_count, nout = gm->outer * gm->inner, nv = gm->inner / N;
	int64_t wsmax = (int64_t)(g->workspace_bytes / sizeof(S));
	int bx = 256, by = 1;
	if (!aligned || gm->inner % N)
		return false;
	if (!wide) {
		for (bx = 1; bx < nv && bx < 256; bx *= 2)
			;
		by = 256 / bx;
	}
	int64_t gx = ceil_div(nv, bx), gy = gm->outer < 65535 ? gm->outer : 65535;
	int64_t chunks = red_chunks(g, gx * gy, gm->len, by, nout, wsmax);
	gm->clen = ceil_div(gm->len, chunks);
	gm->chunks = ceil_div(gm->len, gm->clen);
	if (gm->chunks < 1)
		gm->chunks = 1;
	/* short runs: blocks loop over several outer indices, so that a block
	 * moves more than a few kilobytes before it retires */
	if (gm->chunks == 1 && by == 1 && gm->len <= 64 && gx * gy > sms * 16)
		gy = (sms * 16 + gx - 1) / gx;
	gm->vec = kj_aligned16(out); /* colv: whether outputs may be stored 16 bytes at a time */
	dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gm->chunks);
	red_colv_k<R, T><<<grid, dim3(bx, by), 0, g->stream>>>(x.p, out, odt, (S *)g->workspace, *gm,
								 rp);
	return true;
}

template <class R, class AT>
static bool try_colv(kj_gpu *, ld_dyn<AT>, bool, bool, void *, int, kj_rgeom *, kj_rpar)
{
	return false;
}

template <class R, class L>
static int red_launch(kj_gpu *g, L x, bool aligned, void *out, int odt, int64_t outer,
		      int64_t len, int64_t inner, kj_rpar rp, struct kj_err *err)
{
	typedef typename R::S S;
	int64_t nout = outer * inner, sms = g->info.sm_count;
	int64_t wsmax = (int64_t)(g->workspace_bytes / sizeof(S));
	S *part = (S *)g->workspace;
	bool wide = nout >= sms * 512 || len <= 16;
	kj_rgeom gm;

	if (nout == 0)
		return 0;
	gm.outer = outer;
	gm.len = len;
	gm.inner = inner;
	gm.chunks = 1;
	gm.clen = len;
	gm.vec = 0;
	if (inner < 4 && len <= 8 && nout >= sms * 256) {
		red_thread_k<R, L><<<kj_blocks(g, nout, 256), 256, 0, g->stream>>>(x, out, odt, gm, rp);
	} else if (inner < 4 && len <= 1024) {
		red_warp_k<R, L><<<grid_cap(ceil_div(nout, 8), sms * 64), 256, 0, g->stream>>>(
			x, out, odt, gm, rp);
	} else if (inner < 4) {
		int threads = len >= 8192 ? 512 : 256;
		int64_t chunks = 1;
		if (nout < 2 * sms && len > 16384) {
			chunks = ceil_div(4 * sms, nout);
			if (chunks > len / 4096)
				chunks = len / 4096;
			if (chunks * nout > wsmax)
				chunks = wsmax / nout;
			if (chunks < 1)
				chunks = 1;
		}
		gm.clen = ceil_div(len, chunks);
		if (inner == 1 && aligned && L::N > 1 && len % L::N == 0) {
			gm.vec = 1;
			gm.clen = ceil_div(gm.clen, L::N) * L::N;
		}
		gm.chunks = ceil_div(len, gm.clen);
		red_block_k<R, L><<<grid_cap(nout * gm.chunks, sms * 32), threads, 0, g->stream>>>(
			x, out, odt, part, gm, rp);
	} else if ((wide || kj_knob_int("KJ_RED_COLV")) &&
		   try_colv<R>(g, x, aligned, wide, out, odt, &gm, rp)) {
		/* launched (KJ_RED_COLV=0: only in the wide case, as before, for
		 * comparison on the device) */
	} else {
		int bx = 256, by = 1;
		if (nout < sms * 512 && len > 16) {
			bx = 32;
			by = 8;
		}
		int64_t gx = ceil_div(inner, bx), gy = outer < 65535 ? outer : 65535;
		int64_t chunks = red_chunks(g, gx * gy, len, by, nout, wsmax);
		gm.clen = ceil_div(len, chunks);
		gm.chunks = ceil_div(len, gm.clen);
		if (gm.chunks < 1)
			gm.chunks = 1;
		dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gm.chunks);
		red_col_k<R, L><<<grid, dim3(bx, by), 0, g->stream>>>(x, out, odt, part, gm, rp);
	}
	if (gm.chunks > 1) {
		bool cmajor = inner >= 4; /* the column kernels' layout */
		red_fin_k<R><<<kj_blocks(g, nout, 256), 256, 0, g->stream>>>(
			part, out, odt, nout, gm.chunks, cmajor ? 1 : gm.chunks, cmajor ? nout : 1, len, rp);
	}
	KJ_LAUNCH_CHECK(err, "reduction");
	return 0;
}

template <template <class> class RT>
static int red_run(kj_gpu *g, const kj_bnode *n, const void *x, void *out, int reference,
		   kj_rpar rp, struct kj_err *err)
{
	int64_t outer, len, inner;
	kj_dtype it = n->in[0].dtype;
	int odt = kj_buf_dt(n->out.dtype, reference);
	bool al = kj_aligned16(x);

	kjo_split(&n->in[0].shape, red_dim(n), &outer, &len, &inner);
	if (reference)
		return red_launch<RT<double>>(g, ld_typed<double>{(const double *)x}, al, out, odt,
					      outer, len, inner, rp, err);
	switch (it) {
	case KJ_F32:
		return red_launch<RT<float>>(g, ld_typed<float>{(const float *)x}, al, out, odt,
					     outer, len, inner, rp, err);
	case KJ_F16:
		return red_launch<RT<float>>(g, ld_typed<__half>{(const __half *)x}, al, out, odt,
					     outer, len, inner, rp, err);
	case KJ_BF16:
		return red_launch<RT<float>>(g, ld_typed<__nv_bfloat16>{(const __nv_bfloat16 *)x},
					     al, out, odt, outer, len, inner, rp, err);
	default:
		/* integer or bool input: float arithmetic only for a float result */
		if (kjo_is_float(n->out.dtype))
			return red_launch<RT<float>>(g, ld_dyn<float>{x, (int)it}, false, out, odt,
						     outer, len, inner, rp, err);
		return red_launch<RT<double>>(g, ld_dyn<double>{x, (int)it}, false, out, odt, outer,
					      len, inner, rp, err);
	}
}

/* mean/var/std take floating input only (infer), so they skip the integer
 * instantiations. */
template <template <class> class RT>
static int red_run_float(kj_gpu *g, const kj_bnode *n, const void *x, void *out, int reference,
			 kj_rpar rp, struct kj_err *err)
{
	int64_t outer, len, inner;
	int odt = kj_buf_dt(n->out.dtype, reference);
	bool al = kj_aligned16(x);

	kjo_split(&n->in[0].shape, red_dim(n), &outer, &len, &inner);
	if (reference)
		return red_launch<RT<double>>(g, ld_typed<double>{(const double *)x}, al, out, odt,
					      outer, len, inner, rp, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return red_launch<RT<float>>(g, ld_typed<float>{(const float *)x}, al, out, odt,
					     outer, len, inner, rp, err);
	case KJ_F16:
		return red_launch<RT<float>>(g, ld_typed<__half>{(const __half *)x}, al, out, odt,
					     outer, len, inner, rp, err);
	case KJ_BF16:
		return red_launch<RT<float>>(g, ld_typed<__nv_bfloat16>{(const __nv_bfloat16 *)x},
					     al, out, odt, outer, len, inner, rp, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "%s: input dtype %s is not floating point",
				  n->op->name, kj_dtype_name(n->in[0].dtype));
	}
}

#define RED_OP(name, RUN, RT, SETUP) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err) \
	{ \
		kj_rpar rp = {0, 0}; \
		SETUP; \
		return RUN<RT>(g, n, in[0], out, reference, rp, err); \
	}

RED_OP(sum, red_run, R_sum, )
RED_OP(mean, red_run_float, R_mean, )
RED_OP(prod, red_run, R_prod, )
RED_OP(max, red_run, R_max, )
RED_OP(min, red_run, R_min, )
RED_OP(argmax, red_run, R_argmax, )
RED_OP(argmin, red_run, R_argmin, )
RED_OP(logsumexp, red_run, R_lse, )
RED_OP(var, red_run_float, R_var, rp.corr = kjo_attr_i(n, 1, 1))
RED_OP(std, red_run_float, R_var, rp.corr = kjo_attr_i(n, 1, 1); rp.is_std = 1)
