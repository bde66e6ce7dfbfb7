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
 */
#include "ops/cuda/ops_common.cuh"

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
