/*
 * CUDA layer_norm and rms_norm (table B) for the eager baseline and the
 * reference, mirroring src/ops/cpu/norm_impl.h: layer_norm takes the mean,
 * then the biased variance from a second pass over (x - mean), then writes
 * (x - mean) * rstd * w + b; rms_norm writes x * rr * w with rr =
 * 1 / sqrt(mean(x^2) + eps).  One block per row of the normalised trailing
 * dims; the row stays in shared memory between passes when it fits (as
 * PyTorch's kernels keep it on chip); a longer layer_norm row gets its
 * mean and variance in one pass (shifted sums merged with Chan's formula)
 * and is read once more to write (1.36x PyTorch with three reads).
 *
 * Table D's normalisations, mirroring src/ops/cpu/misc_impl.h:
 * - batch_norm / instance_norm / group_norm: statistics of each segment
 *   (channel, instance or group) as (count, mean, m2): per thread from sums
 *   shifted by the thread's first value, merged across threads and blocks
 *   with Chan's formula in a fixed order; then one elementwise pass
 *   (x - mean) * invstd * w[c] + b[c].
 * - norm and normalize: the row-reduction framework of ops_rowred.cuh (a
 *   block per (row, split) for inner == 1, partials in g->workspace merged
 *   in order when a row is split, a thread per column otherwise).  The
 *   float baseline's norm over a middle dim has its own column kernel
 *   (pnorm_col_k: 16-byte loads, rows split across threads and blocks),
 *   over the last dim its own row kernel (pnorm_rows_k: red_rows_k's order,
 *   loads unrolled; unsplit rows of >= 1024 elements, and normalize's
 *   division of them, in ops_norm_rows.cu, whose one-kernel normalize takes
 *   rows of 16 KB to 1 MB first).  No atomics, so results are deterministic.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/ops_norm_rows.h"
#include "ops/cuda/ops_rowred.cuh"

#define KJ_NORM_CACHE_BYTES (96 * 1024)

template <class T, bool LN>
__global__ void norm_k(const T *__restrict__ x, const T *__restrict__ w, const T *__restrict__ b,
		       T *__restrict__ y, int64_t rows, int64_t D, typename kjt<T>::acc eps,
		       int use_cache, int vec)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const int N = kjv<T>::N;
	extern __shared__ int4 dsm[];
	__shared__ A red[32];
	__shared__ kj_chan_ss<A> cred[32];
	T *cache = (T *)dsm;
	int64_t bs = blockDim.x, nv = D / N;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *xr = x + r * D;
		T *yr = y + r * D;
		A s1 = 0, mean = 0, scale;
		/* uncached layer_norm: one pass of sums shifted by the thread's
		 * first value (cnt, sk, q1, q2), so the row is read twice, not 3x */
		const bool one = LN && !use_cache;
		A sk = 0, q1 = 0, q2 = 0;
		int64_t cnt = 0;

		if (vec) {
#pragma unroll 4 /* a thread's loads in flight together */
			for (int64_t v = threadIdx.x; v < nv; v += bs) {
				kjv<T> e = ((const kjv<T> *)xr)[v];
				if (use_cache)
					((kjv<T> *)cache)[v] = e;
#pragma unroll
				for (int k = 0; k < N; k++) {
					A u = tt::ld(e.e[k]);
					s1 += LN ? u : u * u;
					if (one) {
						if (cnt++ == 0)
							sk = u;
						q1 += u - sk;
						q2 += (u - sk) * (u - sk);
					}
				}
			}
		} else {
			for (int64_t j = threadIdx.x; j < D; j += bs) {
				T e = xr[j];
				if (use_cache)
					cache[j] = e;
				A u = tt::ld(e);
				s1 += LN ? u : u * u;
				if (one) {
					if (cnt++ == 0)
						sk = u;
					q1 += u - sk;
					q2 += (u - sk) * (u - sk);
				}
			}
		}
		if (one) {
			kj_chan_ss<A> st = kj_block_merge<R_chan<A>>(kj_chan_shifted<A>(cnt, sk, q1, q2), cred);
			mean = st.mean;
			scale = (A)1 / m_sqrt(st.m2 / (A)D + eps);
		} else {
			s1 = kj_block_merge<R_add<A>>(s1, red);
		}
		/* the merge's barriers make the whole cached row visible */
		const T *src = use_cache ? cache : xr;
		if (LN && !one) {
			A s2 = 0;
			mean = s1 / (A)D;
			if (vec) {
				/* the vectors this thread cached (or loaded) itself */
				for (int64_t v = threadIdx.x; v < nv; v += bs) {
					kjv<T> e = ((const kjv<T> *)src)[v];
#pragma unroll
					for (int k = 0; k < N; k++) {
						A d = tt::ld(e.e[k]) - mean;
						s2 += d * d;
					}
				}
			} else {
				for (int64_t j = threadIdx.x; j < D; j += bs) {
					A d = tt::ld(src[j]) - mean;
					s2 += d * d;
				}
			}
			s2 = kj_block_merge<R_add<A>>(s2, red);
			scale = (A)1 / m_sqrt(s2 / (A)D + eps);
		} else if (!LN) {
			scale = (A)1 / m_sqrt(s1 / (A)D + eps);
		}
		if (vec) {
			for (int64_t v = threadIdx.x; v < nv; v += bs) {
				kjv<T> e = ((const kjv<T> *)src)[v], wv, bv;
				if (w)
					wv = ((const kjv<T> *)w)[v];
				if (LN && b)
					bv = ((const kjv<T> *)b)[v];
#pragma unroll
				for (int k = 0; k < N; k++) {
					A u;
					if (LN) {
						u = (tt::ld(e.e[k]) - mean) * scale;
						if (w)
							u *= tt::ld(wv.e[k]);
						if (b)
							u += tt::ld(bv.e[k]);
					} else {
						u = tt::ld(e.e[k]) * scale;
						if (w)
							u = u * tt::ld(wv.e[k]);
					}
					e.e[k] = tt::st(u);
				}
				((kjv<T> *)yr)[v] = e;
			}
		} else {
			for (int64_t j = threadIdx.x; j < D; j += bs) {
				A u;
				if (LN) {
					u = (tt::ld(src[j]) - mean) * scale;
					if (w)
						u *= tt::ld(w[j]);
					if (b)
						u += tt::ld(b[j]);
				} else {
					u = tt::ld(src[j]) * scale;
					if (w)
						u = u * tt::ld(w[j]);
				}
				yr[j] = tt::st(u);
			}
		}
		__syncthreads();
	}
}

template <class T, bool LN>
static int norm_launch(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       double eps, struct kj_err *err)
{
	const int64_t *ns;
	int k = kjb_ints(&n->attr[0], &ns);
	int64_t D = 1, rows;
	const T *w = n->present[1] ? (const T *)in[1] : NULL;
	const T *b = LN && n->present[2] ? (const T *)in[2] : NULL;
	int threads, vec, cache;
	size_t bytes;

	for (int i = 0; i < k; i++)
		D *= ns[i];
	rows = D ? kjo_numel(&n->in[0].shape) / D : 0;
	if (rows == 0 || D == 0)
		return 0;
	threads = D <= 512 ? 64 : D <= 2048 ? 128 : D <= 8192 ? 256 : 512;
	vec = D % kjv<T>::N == 0 && kj_aligned16(in[0]) && kj_aligned16(out) &&
	      (!w || kj_aligned16(w)) && (!b || kj_aligned16(b));
	if (vec) {
		/* about vpt 16-byte vectors per thread (KJ_NORM_VPT, default 8):
		 * the same for every dtype, so a 16-bit row gets half the threads
		 * of a float row of the same length.  H200, 2026-11-30, 2 / 4 / 8:
		 * layer_norm_bf16 B=64 S=4096 D=4096 1.65 / 1.32 / 1.24 ms (256
		 * threads by D before: 1.81, PyTorch 1.53); 8 was best on 8 of the
		 * 12 large shapes of the six norm tasks measured */
		int64_t vpt = kj_knob_int("KJ_NORM_VPT"), nv = D / kjv<T>::N;
		int64_t t = (nv + vpt - 1) / vpt;
		t = (t + 31) / 32 * 32;
		threads = (int)(t < 64 ? 64 : t > 512 ? 512 : t);
	}
	bytes = (size_t)D * sizeof(T);
	cache = bytes <= KJ_NORM_CACHE_BYTES;
	if (cache && bytes > 48 * 1024)
		KJ_CUDA_CHECK(err, cudaFuncSetAttribute(norm_k<T, LN>,
							cudaFuncAttributeMaxDynamicSharedMemorySize,
							KJ_NORM_CACHE_BYTES));
	/* a block per row (the block scheduler starts the next row as soon as
	 * one ends) up to 2^31 - 1 blocks; KJ_NORM_GRID=N caps the grid at N
	 * blocks per SM instead, each looping over rows (for measurements) */
	int64_t cap = kj_knob_int("KJ_NORM_GRID") * (int64_t)g->info.sm_count;
	if (cap <= 0)
		cap = INT32_MAX;
	int64_t grid = rows < cap ? rows : cap;
	norm_k<T, LN><<<(unsigned)grid, threads, cache ? bytes : 0, g->stream>>>(
		(const T *)in[0], w, b, (T *)out, rows, D, (typename kjt<T>::acc)eps, cache, vec);
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

template <bool LN>
static int norm_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		    int reference, double eps, struct kj_err *err)
{
	if (reference)
		return norm_launch<double, LN>(g, n, in, out, eps, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return norm_launch<float, LN>(g, n, in, out, eps, err);
	case KJ_F16:
		return norm_launch<__half, LN>(g, n, in, out, eps, err);
	case KJ_BF16:
		return norm_launch<__nv_bfloat16, LN>(g, n, in, out, eps, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "%s: input dtype %s is not floating point",
				  n->op->name, kj_dtype_name(n->in[0].dtype));
	}
}

int kj_cuda_layer_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return norm_run<true>(g, n, in, out, reference, kjo_attr_f(n, 1, 1e-5), err);
}

int kj_cuda_rms_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		     int reference, struct kj_err *err)
{
	return norm_run<false>(g, n, in, out, reference,
			       kjo_attr_f(n, 1, kjb_finfo_eps(n->in[0].dtype)), err);
}

/* ================= channel normalisations ================= */

/* Segment s: `nrun` runs of `run` elements, run k at s * sstep + k * rstep. */
struct kjm_seg {
	int64_t nseg, nrun, run, sstep, rstep;
	int64_t chunk, nchunk; /* a unit of work: one chunk of one run */
	int splits;
};

/* Statistics of a segment: kj_chan_ss (ops_common.cuh). */
template <class A> using kjm_ss = kj_chan_ss<A>;

/* Partial statistics of segment s's units b, b + splits, ...  Each thread
 * sums x - k and (x - k)^2 with k its own first value (cheap, and a shift
 * close to its data), turns them into (n, mean, m2), and the block merges
 * the threads' statistics with Chan's formula.  V: elements per load, 1 or
 * kjv<T>::N (16 bytes; the launch checks that runs, steps and chunks are
 * multiples of it and x is aligned), two loads in flight per thread. */
/* s1 += x - k, s2 += (x - k)^2 over V elements. */
template <class T, int V>
__device__ __forceinline__ void seg_acc(const T *e, typename kjt<T>::acc k, typename kjt<T>::acc &s1,
					typename kjt<T>::acc &s2)
{
#pragma unroll
	for (int i = 0; i < V; i++) {
		typename kjt<T>::acc d = kjt<T>::ld(e[i]) - k;
		s1 += d;
		s2 += d * d;
	}
}

template <class T, int V>
__global__ void seg_stats_k(const T *__restrict__ x, kjm_seg sg, kjm_ss<typename kjt<T>::acc> *part)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	struct alignas(V * sizeof(T)) vec_t {
		T e[V];
	};
	__shared__ kjm_ss<A> red[32];
	const int bd = blockDim.x;
	for (int64_t u = blockIdx.x; u < sg.nseg * sg.splits; u += gridDim.x) {
		int64_t s = u / sg.splits, b = u - s * sg.splits, cnt = 0;
		const T *base = x + s * sg.sstep;
		A k = 0, s1 = 0, s2 = 0;
		for (int64_t w = b; w < sg.nrun * sg.nchunk; w += sg.splits) {
			int64_t r = w / sg.nchunk, c = w - r * sg.nchunk;
			const vec_t *p = (const vec_t *)(base + r * sg.rstep);
			int64_t j1 = ((c + 1) * sg.chunk < sg.run ? (c + 1) * sg.chunk : sg.run) / V;
			for (int64_t j = c * sg.chunk / V + threadIdx.x; j < j1; j += 2 * bd) {
				vec_t a = p[j], z;
				const int two = j + bd < j1;
				if (two)
					z = p[j + bd];
				if (cnt == 0)
					k = tt::ld(a.e[0]);
				seg_acc<T, V>(a.e, k, s1, s2);
				cnt += V;
				if (two) {
					seg_acc<T, V>(z.e, k, s1, s2);
					cnt += V;
				}
			}
		}
		kjm_ss<A> st = kj_chan_shifted<A>(cnt, k, s1, s2);
		st = kj_block_merge<R_chan<A>>(st, red);
		if (threadIdx.x == 0)
			part[u] = st;
	}
}

/* Per segment: merges the partials in order; stats[2s] = mean, stats[2s+1]
 * = invstd.  Or, from running statistics (rm, rv given), the same. */
template <class T>
__global__ void seg_final_k(kjm_seg sg, const kjm_ss<typename kjt<T>::acc> *part, const T *rm,
			    const T *rv, typename kjt<T>::acc eps, typename kjt<T>::acc *stats)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (s >= sg.nseg)
		return;
	if (rm) {
		stats[2 * s] = tt::ld(rm[s]);
		stats[2 * s + 1] = (A)1 / m_sqrt(tt::ld(rv[s]) + eps);
		return;
	}
	kjm_ss<A> st = R_chan<A>::init();
	for (int b = 0; b < sg.splits; b++)
		st = R_chan<A>::merge(st, part[s * sg.splits + b]);
	stats[2 * s] = st.mean;
	stats[2 * s + 1] = (A)1 / m_sqrt(st.m2 / st.n + eps);
}

/* y = (x - mean) * invstd * w[c] + b[c] over planes (n, c) of `inner`
 * elements, in units of one chunk of one plane: the plane's statistics
 * segment is p / pdiv (modulo segmod when segmod), its channel p % C.
 * V: elements per load and store, as in seg_stats_k (inner and chunk
 * multiples of it, x and y aligned). */
template <class T, int V>
__global__ void seg_apply_k(const T *__restrict__ x, T *__restrict__ y, int64_t planes,
			    int64_t inner, int64_t chunk, int64_t C, int64_t pdiv, int64_t segmod,
			    const typename kjt<T>::acc *__restrict__ stats, const T *__restrict__ w,
			    const T *__restrict__ b)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	struct alignas(V * sizeof(T)) vec_t {
		T e[V];
	};
	int64_t nchunk = (inner + chunk - 1) / chunk;
	for (int64_t u = blockIdx.x; u < planes * nchunk; u += gridDim.x) {
		int64_t p = u / nchunk, c0 = (u - p * nchunk) * chunk, c = p % C, s = p / pdiv;
		int64_t c1 = c0 + chunk < inner ? c0 + chunk : inner;
		if (segmod)
			s %= segmod;
		A mean = stats[2 * s], scale = stats[2 * s + 1], shift;
		if (w)
			scale *= tt::ld(w[c]);
		shift = b ? tt::ld(b[c]) : (A)0;
		const vec_t *xp = (const vec_t *)(x + p * inner);
		vec_t *yp = (vec_t *)(y + p * inner);
		for (int64_t j = c0 / V + threadIdx.x; j < c1 / V; j += blockDim.x) {
			vec_t v = xp[j];
#pragma unroll
			for (int e = 0; e < V; e++)
				v.e[e] = tt::st((tt::ld(v.e[e]) - mean) * scale + shift);
			yp[j] = v;
		}
	}
}

/* seg_apply_k over single elements, for planes too short to give a block
 * (2-D [N, C] inputs have planes of one element: a block per element ran
 * 16x slower than PyTorch inside a level-2 task on the H200). */
template <class T>
__global__ void seg_apply_flat_k(const T *__restrict__ x, T *__restrict__ y, int64_t total,
				 int64_t inner, int64_t C, int64_t pdiv, int64_t segmod,
				 const typename kjt<T>::acc *__restrict__ stats, const T *__restrict__ w,
				 const T *__restrict__ b)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
	     i += (int64_t)gridDim.x * blockDim.x) {
		int64_t p = inner == 1 ? i : i / inner, c = p % C, s = p / pdiv;
		if (segmod)
			s %= segmod;
		A scale = stats[2 * s + 1];
		if (w)
			scale *= tt::ld(w[c]);
		y[i] = tt::st((tt::ld(x[i]) - stats[2 * s]) * scale + (b ? tt::ld(b[c]) : (A)0));
	}
}

/* Batch statistics of the channels of an [N, C] input (inner 1): thread c
 * of block column blockIdx.x takes channel c over rows b*rows .. of split
 * b = blockIdx.y, so a warp reads 32 neighbouring channels of one row; the
 * partials land where seg_final_k merges them (part[c * splits + b]). */
template <class T>
__global__ void col_stats_k(const T *__restrict__ x, int64_t N, int64_t C, int64_t rows,
			    kjm_ss<typename kjt<T>::acc> *part)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, r0 = (int64_t)blockIdx.y * rows;
	int64_t r1 = r0 + rows < N ? r0 + rows : N;
	if (c >= C)
		return;
	A k = 0, s1 = 0, s2 = 0;
	if (r0 < r1)
		k = tt::ld(x[r0 * C + c]);
	for (int64_t r = r0; r < r1; r++) {
		A d = tt::ld(x[r * C + c]) - k;
		s1 += d;
		s2 += d * d;
	}
	part[c * gridDim.y + blockIdx.y] = kj_chan_shifted<A>(r1 > r0 ? r1 - r0 : 0, k, s1, s2);
}

/* kind 0: batch_norm (segments = channels), 1: instance_norm (segments =
 * (n, c)), 2: group_norm (segments = (n, g)).  stats: batch statistics;
 * else the running ones (in[1], in[2]).  w, b: the affine operands. */
template <class T>
static int chan_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int kind,
		     int stats, const void *w, const void *b, double eps, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	int64_t N, C, inner, total = kjo_numel(&n->in[0].shape), G = 1;
	kjm_seg sg;
	A *st;
	kjm_ss<A> *part;
	int64_t segdiv, segmod = 0;
	kjm_nc(&n->in[0].shape, &N, &C, &inner);
	if (total == 0)
		return 0;
	memset(&sg, 0, sizeof(sg));
	if (kind == 0) {
		sg.nseg = C;
		sg.nrun = N;
		sg.run = inner;
		sg.sstep = inner;
		sg.rstep = C * inner;
		segdiv = inner;
		segmod = C;
	} else if (kind == 1) {
		sg.nseg = N * C;
		sg.nrun = 1;
		sg.run = inner;
		sg.sstep = inner;
		segdiv = inner;
	} else {
		G = kjo_attr_i(n, 0, 1);
		sg.nseg = N * G;
		sg.nrun = 1;
		sg.run = C / G * inner;
		sg.sstep = sg.run;
		segdiv = sg.run;
	}
	int64_t nstat = stats ? sg.nseg : C, col_rows = 0;
	const int cols = kind == 0 && inner == 1; /* [N, C]: col_stats_k */
	sg.chunk = 8192;
	sg.nchunk = (sg.run + sg.chunk - 1) / sg.chunk;
	/* 16-byte loads when every run starts on a 16-byte boundary: runs,
	 * their steps (multiples of inner) and the chunks are whole vectors
	 * (KJ_BN_VEC=0 turns it off, for measurements) */
	const int vec = kj_knob_int("KJ_BN_VEC") && inner % kjv<T>::N == 0 &&
			sg.run % kjv<T>::N == 0 && kj_aligned16(in[0]);
	if (cols) {
		/* enough (channel block, row split) blocks to fill the device */
		int64_t cb = (C + 255) / 256, want = (int64_t)g->info.sm_count * 8;
		int64_t sp = (want + cb - 1) / cb;
		sp = sp < 1 ? 1 : sp > N ? N : sp > 65535 ? 65535 : sp;
		col_rows = (N + sp - 1) / sp;
		sg.splits = (int)((N + col_rows - 1) / col_rows);
	} else {
		int64_t units = sg.nrun * sg.nchunk, want = (int64_t)g->info.sm_count * 8;
		int64_t sp = (want + sg.nseg - 1) / sg.nseg;
		sg.splits = (int)(sp < 1 ? 1 : sp > units ? units : sp);
	}
	size_t need = (size_t)nstat * 2 * sizeof(A) + (stats ? (size_t)sg.nseg * sg.splits * sizeof(kjm_ss<A>) : 0);
	if (need > g->workspace_bytes)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "%s: %lld segments need %zu bytes of workspace, more than %zu",
				  n->op->name, (long long)sg.nseg, need, g->workspace_bytes);
	st = (A *)g->workspace;
	part = (kjm_ss<A> *)(st + 2 * nstat);
	if (stats) {
		if (cols)
			col_stats_k<T><<<dim3((unsigned)((C + 255) / 256), (unsigned)sg.splits), 256, 0,
					 g->stream>>>((const T *)in[0], N, C, col_rows, part);
		else if (vec)
			seg_stats_k<T, kjv<T>::N><<<grid_cap(sg.nseg * sg.splits,
							     (int64_t)g->info.sm_count * 16),
						    256, 0, g->stream>>>((const T *)in[0], sg, part);
		else
			seg_stats_k<T, 1><<<grid_cap(sg.nseg * sg.splits, (int64_t)g->info.sm_count * 16),
					    256, 0, g->stream>>>((const T *)in[0], sg, part);
		seg_final_k<T><<<grid_cap((sg.nseg + 127) / 128, 1 << 30), 128, 0, g->stream>>>(
			sg, part, NULL, NULL, (A)eps, st);
	} else {
		kjm_seg cs = sg;
		cs.nseg = C;
		seg_final_k<T><<<grid_cap((C + 127) / 128, 1 << 30), 128, 0, g->stream>>>(
			cs, part, (const T *)in[1], (const T *)in[2], (A)eps, st);
		segdiv = inner;
		segmod = C;
	}
	if (inner < 512) {
		seg_apply_flat_k<T><<<kj_blocks(g, total, 256), 256, 0, g->stream>>>(
			(const T *)in[0], (T *)out, total, inner, C, segdiv / inner, segmod, st,
			(const T *)w, (const T *)b);
	} else {
		int64_t chunk = 4096, units = N * C * ((inner + chunk - 1) / chunk);
		unsigned grid = grid_cap(units, (int64_t)g->info.sm_count * 16);
		if (vec && kj_aligned16(out))
			seg_apply_k<T, kjv<T>::N><<<grid, 256, 0, g->stream>>>(
				(const T *)in[0], (T *)out, N * C, inner, chunk, C, segdiv / inner, segmod,
				st, (const T *)w, (const T *)b);
		else
			seg_apply_k<T, 1><<<grid, 256, 0, g->stream>>>(
				(const T *)in[0], (T *)out, N * C, inner, chunk, C, segdiv / inner, segmod,
				st, (const T *)w, (const T *)b);
	}
	KJM_CHECK(err, n->op->name);
	return 0;
}

static int chan_norm_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			 int reference, int kind, int stats, const void *w, const void *b, double eps,
			 struct kj_err *err)
{
	if (reference)
		return chan_norm<double>(g, n, in, out, kind, stats, w, b, eps, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return chan_norm<float>(g, n, in, out, kind, stats, w, b, eps, err);
	case KJ_F16:
		return chan_norm<__half>(g, n, in, out, kind, stats, w, b, eps, err);
	case KJ_BF16:
		return chan_norm<__nv_bfloat16>(g, n, in, out, kind, stats, w, b, eps, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "%s: dtype %s is not floating point", n->op->name,
				  kj_dtype_name(n->in[0].dtype));
	}
}

int kj_cuda_batch_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return chan_norm_run(g, n, in, out, reference, 0, (int)kjo_attr_i(n, 0, 0),
			     n->present[3] ? in[3] : NULL, n->present[4] ? in[4] : NULL,
			     kjo_attr_f(n, 2, 1e-5), err);
}

int kj_cuda_instance_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			  int reference, struct kj_err *err)
{
	return chan_norm_run(g, n, in, out, reference, 1, (int)kjo_attr_i(n, 0, 1),
			     n->present[3] ? in[3] : NULL, n->present[4] ? in[4] : NULL,
			     kjo_attr_f(n, 2, 1e-5), err);
}

int kj_cuda_group_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return chan_norm_run(g, n, in, out, reference, 2, 1, n->present[1] ? in[1] : NULL,
			     n->present[2] ? in[2] : NULL, kjo_attr_f(n, 1, 1e-5), err);
}

/* ---- norm, normalize ---- */

template <class T> struct F_pnorm {
	typedef typename kjt<T>::acc A;
	typedef A S;
	const T *x;
	int k;
	A p;
	static __device__ __forceinline__ S init() { return 0; }
	__device__ __forceinline__ S add(S s, int64_t off) const
	{
		return s + pterm_d<A>(kjt<T>::ld(x[off]), k, p);
	}
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	__device__ __forceinline__ A fin(S s, int64_t) const { return proot_d<A>(s, k, p); }
};

/* ---- the middle-dim norm of the float baseline ----
 *
 * x [outer, len, inner] with inner > 1, arithmetic in float (f32, f16,
 * bf16 input; the reference keeps red_cols_k in double).  A thread owns V
 * consecutive columns of one outer index and reads them with one 16-byte
 * load per row (V = 16 / sizeof(T)) when inner % V == 0 and x is 16-byte
 * aligned, else one element per row (V = 1).  A block is bx column groups
 * (threadIdx.x) by by row phases (threadIdx.y, bx * by = 256): phase ty
 * takes rows j0 + ty, j0 + ty + by, ... of its chunk [j0, j1), U rows
 * loaded before they are added, so that several loads are in flight per
 * thread (64 bytes for 16-byte words).  The phases merge in order in shared
 * memory.  blockIdx.y walks the outer index, blockIdx.z the chunks of the
 * run: with one chunk the block writes the norms, else the partial sums
 * part[c * nout + oi], which pnorm_fin_k adds in chunk order (deterministic,
 * no atomics).  |x|^p is chosen at compile time (KIND): red_cols_k's
 * runtime choice put the pow branch between its unrolled loads, so each
 * thread had one 4-byte load in flight, 60% of copy bandwidth on norm_dim. */
struct kjm_pcol {
	int64_t outer, len, inner, chunks, clen;
};

/* V elements of T; a 16-byte word when V * sizeof(T) == 16. */
template <class T, int V> struct alignas(sizeof(T) * V) kjm_pword {
	T e[V];
};

template <class T, int V, int KIND>
__global__ void __launch_bounds__(256)
	pnorm_col_k(const T *__restrict__ x, T *__restrict__ y, typename kjt<T>::acc *__restrict__ part,
		    kjm_pcol gm, typename kjt<T>::acc p)
{
	typedef typename kjt<T>::acc A;
	typedef kjm_pword<T, V> W;
	const int U = V == 1 ? 8 : 4;
	__shared__ A sm[256 * V];
	int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
	int64_t col = ((int64_t)blockIdx.x * bx + tx) * V, c = blockIdx.z;
	int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;
	int64_t nout = gm.outer * gm.inner, step = (int64_t)by * gm.inner;
	/* V > 1 only when inner % V == 0: a live group has all V columns */
	bool live = col < gm.inner;

	for (int64_t o = blockIdx.y; o < gm.outer; o += gridDim.y) {
		A s[V];
#pragma unroll
		for (int k = 0; k < V; k++)
			s[k] = 0;
		if (live) {
			int64_t j = j0 + ty;
			const T *q = x + (o * gm.len + j) * gm.inner + col;
			for (; j + (int64_t)(U - 1) * by < j1; j += (int64_t)U * by, q += U * step) {
				W w[U];
#pragma unroll
				for (int u = 0; u < U; u++)
					w[u] = *(const W *)(q + u * step);
#pragma unroll
				for (int u = 0; u < U; u++)
#pragma unroll
					for (int k = 0; k < V; k++)
						s[k] += pterm_d<A>(kjt<T>::ld(w[u].e[k]), KIND, p);
			}
			for (; j < j1; j += by, q += step) {
				W w = *(const W *)q;
#pragma unroll
				for (int k = 0; k < V; k++)
					s[k] += pterm_d<A>(kjt<T>::ld(w.e[k]), KIND, p);
			}
		}
		if (by > 1) {
			/* sm[(ty * V + k) * bx + tx]: consecutive lanes, consecutive banks */
#pragma unroll
			for (int k = 0; k < V; k++)
				sm[(ty * V + k) * bx + tx] = s[k];
			__syncthreads();
			if (ty == 0)
				for (int t = 1; t < by; t++)
#pragma unroll
					for (int k = 0; k < V; k++)
						s[k] += sm[(t * V + k) * bx + tx];
			__syncthreads();
		}
		if (ty == 0 && live) {
			int64_t oi = o * gm.inner + col;
#pragma unroll
			for (int k = 0; k < V; k++) {
				if (gm.chunks == 1)
					y[oi + k] = kjt<T>::st(proot_d<A>(s[k], KIND, p));
				else
					part[c * nout + oi + k] = s[k];
			}
		}
	}
}

/* y[oi] = the root of the sum of its chunks' partials, in chunk order. */
template <class T, int KIND>
__global__ void pnorm_fin_k(const typename kjt<T>::acc *__restrict__ part, T *__restrict__ y,
			    int64_t nout, int64_t chunks, typename kjt<T>::acc p)
{
	typedef typename kjt<T>::acc A;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		A s = part[oi];
		for (int64_t c = 1; c < chunks; c++)
			s += part[c * nout + oi];
		y[oi] = kjt<T>::st(proot_d<A>(s, KIND, p));
	}
}

/* The launch geometry: bx column groups of 32 or 64 (the narrower when
 * one warp covers the row), chunks so that the grid has about 64 blocks per
 * SM (the last, partial wave of blocks then costs a few percent whatever
 * the number of resident blocks: norm_dim's first shape has 1024 blocks of
 * (column block, outer), one wave at 8 blocks per SM but 1.3 at 6), each
 * chunk at least 128 rows, and the partials within the workspace from byte
 * offset woff. */
template <class T, int KIND>
static int pnorm_cols(kj_gpu *g, const T *x, T *y, int64_t outer, int64_t len, int64_t inner,
		      typename kjt<T>::acc p, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	const int VW = (int)(16 / sizeof(T));
	bool vec = kj_aligned16(x) && inner % VW == 0;
	int64_t ncol = vec ? inner / VW : inner, sms = g->info.sm_count, nout = outer * inner;
	int bx = ncol <= 32 ? 32 : 64, by = 256 / bx;
	int64_t gx = (ncol + bx - 1) / bx, gy = outer < 65535 ? outer : 65535, chunks = 1;
	int64_t want = sms * 64;
	size_t avail = g->workspace_bytes > woff ? g->workspace_bytes - woff : 0;
	kjm_pcol gm;
	A *part = (A *)((char *)g->workspace + woff);

	if (gx * gy < want) {
		int64_t fit = (int64_t)(avail / sizeof(A)) / nout;
		chunks = (want + gx * gy - 1) / (gx * gy);
		if (chunks > len / 128)
			chunks = len / 128;
		if (chunks > fit)
			chunks = fit;
		if (chunks > 65535)
			chunks = 65535;
		if (chunks < 1)
			chunks = 1;
	}
	gm.outer = outer;
	gm.len = len;
	gm.inner = inner;
	gm.clen = (len + chunks - 1) / chunks;
	if (gm.clen < 1)
		gm.clen = 1;
	gm.chunks = (len + gm.clen - 1) / gm.clen;
	if (gm.chunks < 1)
		gm.chunks = 1;
	dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gm.chunks), block((unsigned)bx, (unsigned)by);
	if (vec)
		pnorm_col_k<T, 16 / sizeof(T), KIND><<<grid, block, 0, g->stream>>>(x, y, part, gm, p);
	else
		pnorm_col_k<T, 1, KIND><<<grid, block, 0, g->stream>>>(x, y, part, gm, p);
	if (gm.chunks > 1)
		pnorm_fin_k<T, KIND><<<kj_blocks(g, nout, 256), 256, 0, g->stream>>>(part, y, nout,
										    gm.chunks, p);
	KJM_CHECK(err, what);
	return 0;
}

/* ---- the last-dim norm of the float baseline ----
 *
 * Rows of len contiguous elements (inner == 1) with the blocks, splits and
 * per-thread order of red_rows_k over F_pnorm: thread t adds elements
 * j0 + t, j0 + t + bd, ... of its (row, split) in that order, then the block
 * merges (kj_block_merge), so the sums are red_rows_k's.  But |x|^p is
 * chosen at compile time and U loads are issued before they are added:
 * F_pnorm's runtime choice of p branches between the loads, which kept one
 * 4-byte load in flight per thread (KernelBench's l2 normalize, 32768 rows
 * of 65535, ran at 2.09x PyTorch's time). */
template <class T, int KIND>
__global__ void pnorm_rows_k(const T *__restrict__ x, T *__restrict__ y,
			     typename kjt<T>::acc *__restrict__ part, int64_t rows, int64_t len,
			     int splits, typename kjt<T>::acc p)
{
	typedef typename kjt<T>::acc A;
	const int U = 8;
	__shared__ A red[32];
	int64_t bd = blockDim.x;

	for (int64_t u = blockIdx.x; u < rows * splits; u += gridDim.x) {
		int64_t r = u / splits, b = u - r * splits;
		int64_t j0 = len * b / splits, j1 = len * (b + 1) / splits;
		const T *q = x + r * len;
		int64_t j = j0 + threadIdx.x;
		A s = 0;
		for (; j + (U - 1) * bd < j1; j += U * bd) {
			A v[U];
#pragma unroll
			for (int k = 0; k < U; k++)
				v[k] = kjt<T>::ld(q[j + k * bd]);
#pragma unroll
			for (int k = 0; k < U; k++)
				s = s + pterm_d<A>(v[k], KIND, p);
		}
		for (; j < j1; j += bd)
			s = s + pterm_d<A>(kjt<T>::ld(q[j]), KIND, p);
		s = kj_block_merge<R_add<A> >(s, red);
		if (threadIdx.x == 0) {
			if (splits == 1)
				y[r] = kjt<T>::st(proot_d<A>(s, KIND, p));
			else
				part[u] = s;
		}
	}
}

/* red_run's geometry for inner == 1 (splits of very long rows when there
 * are few, threads by row length), with pnorm_rows_k; the partials of split
 * rows merge in red_parts_k as there.  Unsplit rows of >= 1024 elements go
 * to kj_rows_pnorm instead (16-byte words, its own order of additions). */
template <class T, int KIND>
static int pnorm_rows(kj_gpu *g, const T *x, T *y, int64_t rows, int64_t len,
		      typename kjt<T>::acc p, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	int sms = g->info.sm_count;
	int splits = 1;
	if (rows == 0)
		return 0;
	if (rows < (int64_t)sms * 2 && len >= 16384) {
		int64_t want = ((int64_t)sms * 4 + rows - 1) / rows, maxs = len / 4096;
		splits = (int)(want < maxs ? want : maxs);
		if (splits < 1)
			splits = 1;
	}
	if (splits > 1 && woff + (size_t)rows * splits * sizeof(A) > g->workspace_bytes)
		splits = 1;
	if (splits == 1) {
		/* long rows: 16-byte words at any alignment (ops_norm_rows.cu) */
		int done, rc = kj_rows_pnorm(g, x, y, rows, len, KIND, (float)p, &done, err);
		if (rc || done)
			return rc;
	}
	int threads = len >= 2048 ? 512 : len >= 256 ? 256 : 128;
	A *part = (A *)((char *)g->workspace + woff);
	pnorm_rows_k<T, KIND><<<grid_cap(rows * splits, (int64_t)sms * 32), threads, 0, g->stream>>>(
		x, y, part, rows, len, splits, p);
	if (splits > 1) {
		F_pnorm<T> f;
		kjm_sink<T> sink;
		f.x = x;
		f.k = KIND;
		f.p = p;
		sink.y = y;
		red_parts_k<F_pnorm<T>, kjm_sink<T> >
			<<<grid_cap(rows, (int64_t)sms * 32), 256, 0, g->stream>>>(f, sink, rows, splits,
										   part);
	}
	KJM_CHECK(err, what);
	return 0;
}

/* x [outer, len, inner] reads as F_pnorm over offsets o*len*inner + i +
 * j*inner; red_cols_k forms exactly those offsets, red_rows_k needs inner
 * == 1.  The float baseline's last dim goes to pnorm_rows, its middle dim
 * to pnorm_cols. */
template <class T>
static int pnorm_run(kj_gpu *g, const void *x, void *y, int64_t outer, int64_t len, int64_t inner,
		     double p, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	F_pnorm<T> f;
	kjm_sink<T> sink;
	int k = (int)kjm_pkind_of(p);
	if constexpr (sizeof(A) == sizeof(float)) {
		if (inner == 1) {
			const T *xt = (const T *)x;
			T *yt = (T *)y;
			if (k == KJM_P2)
				return pnorm_rows<T, KJM_P2>(g, xt, yt, outer, len, (A)p, woff, what, err);
			if (k == KJM_P1)
				return pnorm_rows<T, KJM_P1>(g, xt, yt, outer, len, (A)p, woff, what, err);
			return pnorm_rows<T, KJM_PANY>(g, xt, yt, outer, len, (A)p, woff, what, err);
		}
		if (inner > 1 && outer * inner > 0 && len > 0) {
			const T *xt = (const T *)x;
			T *yt = (T *)y;
			if (k == KJM_P2)
				return pnorm_cols<T, KJM_P2>(g, xt, yt, outer, len, inner, (A)p, woff,
							    what, err);
			if (k == KJM_P1)
				return pnorm_cols<T, KJM_P1>(g, xt, yt, outer, len, inner, (A)p, woff,
							    what, err);
			return pnorm_cols<T, KJM_PANY>(g, xt, yt, outer, len, inner, (A)p, woff, what,
						       err);
		}
	}
	f.x = (const T *)x;
	f.k = k;
	f.p = (A)p;
	sink.y = (T *)y;
	return red_run(g, f, sink, outer, len, inner, woff, what, err);
}

int kj_cuda_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	int64_t outer, len, inner;
	kjo_split(&n->in[0].shape, kjm_red_dim(n, 1), &outer, &len, &inner);
	KJM_FLOAT_DISPATCH(n, reference,
			   pnorm_run<T>(g, in[0], out, outer, len, inner, kjo_attr_f(n, 0, 2.0), 0,
					"norm", err));
}

/* y = x / max(nrm[o*inner + i], eps) over x [outer, len, inner], a block
 * per row: for inner == 1 a row is one run of len (norm o), else a row (o,
 * j) holds inner elements with norms o*inner + i. */
template <class T>
__global__ void div_norm_k(const T *__restrict__ x, T *__restrict__ y, const T *__restrict__ nrm,
			   int64_t outer, int64_t len, int64_t inner, typename kjt<T>::acc eps)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	int64_t rows = inner == 1 ? outer : outer * len, W = inner == 1 ? len : inner;
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		const T *np = inner == 1 ? nrm + row : nrm + row / len * inner;
		for (int64_t j = threadIdx.x; j < W; j += blockDim.x) {
			A d = tt::ld(np[inner == 1 ? 0 : j]);
			if (!(d >= eps))
				d = d != d ? d : eps;
			y[row * W + j] = tt::st(tt::ld(x[row * W + j]) / d);
		}
	}
}

/* div_norm_k for inner == 1: U elements of the row loaded before they are
 * divided and stored (the same division), so that several loads are in
 * flight per thread at every row length. */
template <class T>
__global__ void div_rows_k(const T *__restrict__ x, T *__restrict__ y, const T *__restrict__ nrm,
			   int64_t rows, int64_t len, typename kjt<T>::acc eps)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const int U = 8;
	int64_t bd = blockDim.x;
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		const T *xr = x + row * len;
		T *yr = y + row * len;
		A d = tt::ld(nrm[row]);
		if (!(d >= eps))
			d = d != d ? d : eps;
		int64_t j = threadIdx.x;
		for (; j + (U - 1) * bd < len; j += U * bd) {
			A v[U];
#pragma unroll
			for (int k = 0; k < U; k++)
				v[k] = tt::ld(xr[j + k * bd]);
#pragma unroll
			for (int k = 0; k < U; k++)
				yr[j + k * bd] = tt::st(v[k] / d);
		}
		for (; j < len; j += bd)
			yr[j] = tt::st(tt::ld(xr[j]) / d);
	}
}

template <class T>
static int normalize_run(kj_gpu *g, const kj_bnode *n, const void *x, void *y, struct kj_err *err)
{
	int64_t outer, len, inner, total = kjo_numel(&n->in[0].shape);
	size_t nb;
	int rc;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 1, 1), n->in[0].shape.rank), &outer, &len,
		  &inner);
	nb = ((size_t)(outer * inner) * sizeof(T) + 255) & ~(size_t)255;
	if (total == 0)
		return 0;
	if constexpr (sizeof(typename kjt<T>::acc) == sizeof(float)) {
		if (inner == 1) {
			/* rows of 16 KB to 1 MB: one kernel, x read once
			 * (ops_norm_rows.cu) */
			int done;
			double p = kjo_attr_f(n, 0, 2.0);
			rc = kj_rows_normalize(g, (const T *)x, (T *)y, outer, len, (int)kjm_pkind_of(p),
					       (float)p, (float)kjo_attr_f(n, 2, 1e-12), &done, err);
			if (rc || done)
				return rc;
		}
	}
	if (nb > g->workspace_bytes / 2)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "normalize: %lld norms do not fit the %zu-byte workspace",
				  (long long)(outer * inner), g->workspace_bytes);
	rc = pnorm_run<T>(g, x, g->workspace, outer, len, inner, kjo_attr_f(n, 0, 2.0), nb,
			  "normalize", err);
	if (rc)
		return rc;
	if constexpr (sizeof(typename kjt<T>::acc) == sizeof(float)) {
		if (inner == 1) {
			/* long rows: 16-byte words at any alignment (ops_norm_rows.cu) */
			int done;
			rc = kj_rows_div(g, (const T *)x, (T *)y, (const T *)g->workspace, outer, len,
					 (float)kjo_attr_f(n, 2, 1e-12), &done, err);
			if (rc || done)
				return rc;
		}
	}
	if (inner == 1)
		div_rows_k<T><<<row_blocks(g, outer), 256, 0, g->stream>>>(
			(const T *)x, (T *)y, (const T *)g->workspace, outer, len,
			(typename kjt<T>::acc)kjo_attr_f(n, 2, 1e-12));
	else
		div_norm_k<T><<<row_blocks(g, outer * len), 256, 0, g->stream>>>(
			(const T *)x, (T *)y, (const T *)g->workspace, outer, len, inner,
			(typename kjt<T>::acc)kjo_attr_f(n, 2, 1e-12));
	KJM_CHECK(err, "normalize");
	return 0;
}

int kj_cuda_normalize(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      int reference, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, normalize_run<T>(g, n, in[0], out, err));
}
