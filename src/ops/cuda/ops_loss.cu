/*
 * CUDA losses (mse_loss, cross_entropy) for the eager baseline and the
 * reference, mirroring src/ops/cpu/loss_impl.h.
 *
 * mse_loss "none" is the binary kernel's squared difference; "mean"/"sum"
 * is one pass of per-block partial sums into g->workspace and one block
 * that adds the partials in order (deterministic, no atomics).
 * cross_entropy: one block per row computes logsumexp(row) - row[target]
 * with online (max, sum) statistics; the losses are written ("none") or
 * summed per block and then over blocks.  A target outside [0, C) cannot be
 * reported from the kernel: the kernel records the smallest bad row index in
 * a device variable, and kj_cuda_cross_entropy_check (run by the executor
 * right after the op) reads it back and words the CPU oracle's message.
 */
#include "ops/cuda/ops_common.cuh"

#include <stdio.h>

/* ---- mse_loss ---- */

template <class T>
__global__ void __launch_bounds__(256) sqdiff_part_k(const T *__restrict__ a, const T *__restrict__ b,
						      int64_t n, typename kjt<T>::acc *part, int vec)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const int N = kjv<T>::N;
	__shared__ A red[32];
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, start = 0;
	A s = 0;

	if (vec) {
		int64_t nv = n / N;
		for (int64_t i = tid; i < nv; i += stride) {
			kjv<T> x = ((const kjv<T> *)a)[i], t = ((const kjv<T> *)b)[i];
#pragma unroll
			for (int k = 0; k < N; k++) {
				A d = tt::ld(x.e[k]) - tt::ld(t.e[k]);
				s += d * d;
			}
		}
		start = nv * N;
	}
	for (int64_t i = start + tid; i < n; i += stride) {
		A d = tt::ld(a[i]) - tt::ld(b[i]);
		s += d * d;
	}
	s = kj_block_merge<R_add<A>>(s, red);
	if (threadIdx.x == 0)
		part[blockIdx.x] = s;
}

/* One block: the partials in a fixed order, then / div ("mean") or not. */
template <class A>
__global__ void sum_parts_k(const A *part, int64_t nparts, void *out, int odt, int64_t div)
{
	__shared__ A red[32];
	A s = 0;
	for (int64_t i = threadIdx.x; i < nparts; i += blockDim.x)
		s += part[i];
	s = kj_block_merge<R_add<A>>(s, red);
	if (threadIdx.x == 0)
		kjd_store(odt, out, 0, (double)(div ? s / (A)div : s));
}

template <class T>
static int mse_launch(kj_gpu *g, const void *a, const void *b, void *out, int odt, int64_t n,
		      int red, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	A *part = (A *)g->workspace;
	int64_t nv = n / kjv<T>::N;
	unsigned blocks = kj_blocks(g, nv > 0 ? nv : n, 256);
	int vec = kj_aligned16(a) && kj_aligned16(b);

	if ((size_t)blocks * sizeof(A) > g->workspace_bytes)
		blocks = (unsigned)(g->workspace_bytes / sizeof(A));
	sqdiff_part_k<T><<<blocks, 256, 0, g->stream>>>((const T *)a, (const T *)b, n, part, vec);
	sum_parts_k<A><<<1, 1024, 0, g->stream>>>(part, blocks, out, odt, red == KJB_MEAN ? n : 0);
	KJ_LAUNCH_CHECK(err, "mse_loss");
	return 0;
}

int kj_cuda_mse_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		     int reference, struct kj_err *err)
{
	int red = kjb_reduction_of(n, 0);
	int64_t cnt = kjo_numel(&n->in[0].shape);
	int odt = kj_buf_dt(n->out.dtype, reference);

	if (red == KJB_NONE)
		return kj_cuda_binary(g, KJ_B_SQDIFF, &n->in[0], in[0], &n->in[1], in[1], &n->out, out,
				      reference, err);
	if (reference)
		return mse_launch<double>(g, in[0], in[1], out, odt, cnt, red, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return mse_launch<float>(g, in[0], in[1], out, odt, cnt, red, err);
	case KJ_F16:
		return mse_launch<__half>(g, in[0], in[1], out, odt, cnt, red, err);
	case KJ_BF16:
		return mse_launch<__nv_bfloat16>(g, in[0], in[1], out, odt, cnt, red, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "mse_loss: dtype %s is not floating point",
				  kj_dtype_name(n->in[0].dtype));
	}
}

/* ---- cross_entropy ---- */

/* The smallest row whose target is out of range; all ones when none. */
__device__ unsigned long long kj_ce_bad_row;

template <class T>
__global__ void ce_rows_k(const T *__restrict__ x, const void *target, int tdt, int64_t rows,
			  int64_t C, void *out, int odt, int none, typename kjt<T>::acc *part, int vec)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	typedef kj_smx<A> SM;
	const int N = kjv<T>::N;
	__shared__ typename SM::S red[32];
	int64_t bs = blockDim.x;
	A acc = 0;

	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *xr = x + r * C;
		typename SM::S st = SM::init();
		/* the target and its logit, loaded before the row so that their
		 * latency overlaps the row's loads */
		double t = 0;
		A xt = 0;
		if (threadIdx.x == 0) {
			t = kjd_load(tdt, target, (size_t)r);
			if (t >= 0 && t < (double)C && t == floor(t))
				xt = tt::ld(xr[(int64_t)t]);
		}
		if (vec) {
			for (int64_t v = threadIdx.x; v < C / N; v += bs) {
				kjv<T> e = ((const kjv<T> *)xr)[v];
				A a[N];
#pragma unroll
				for (int k = 0; k < N; k++)
					a[k] = tt::ld(e.e[k]);
				st = SM::template addn<N>(st, a);
			}
		} else {
			for (int64_t j = threadIdx.x; j < C; j += bs)
				st = SM::add(st, tt::ld(xr[j]));
		}
		st = kj_block_merge<SM>(st, red);
		if (threadIdx.x == 0) {
			A loss;
			if (!(t >= 0 && t < (double)C) || t != floor(t)) {
				atomicMin(&kj_ce_bad_row, (unsigned long long)r);
				loss = m_nan<A>();
			} else {
				loss = st.m + m_log(SM::sum(st, C)) - xt;
			}
			if (none)
				kjd_store(odt, out, (size_t)r, (double)loss);
			else
				acc += loss;
		}
	}
	if (!none && threadIdx.x == 0)
		part[blockIdx.x] = acc;
}

template <class T>
static int ce_launch(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		     struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	const kj_shape *xs = &n->in[0].shape;
	int64_t C = xs->d[xs->rank - 1], rows = xs->rank == 2 ? xs->d[0] : 1;
	int red = kjb_reduction_of(n, 0), odt = kj_buf_dt(n->out.dtype, reference);
	int tdt = kj_buf_dt(n->in[1].dtype, reference);
	int threads = C <= 1024 ? 128 : C <= 8192 ? 256 : 512;
	int vec = C % kjv<T>::N == 0 && kj_aligned16(in[0]);
	int64_t blocks = rows < (int64_t)g->info.sm_count * 16 ? rows : (int64_t)g->info.sm_count * 16;
	void *flag = NULL;

	KJ_CUDA_CHECK(err, cudaGetSymbolAddress(&flag, kj_ce_bad_row));
	KJ_CUDA_CHECK(err, cudaMemsetAsync(flag, 0xff, sizeof(unsigned long long), g->stream));
	if (rows == 0) {
		if (red != KJB_NONE)
			sum_parts_k<A><<<1, 32, 0, g->stream>>>((const A *)g->workspace, 0, out, odt,
								red == KJB_MEAN ? rows : 0);
		KJ_LAUNCH_CHECK(err, "cross_entropy");
		return 0;
	}
	if ((size_t)blocks * sizeof(A) > g->workspace_bytes)
		blocks = (int64_t)(g->workspace_bytes / sizeof(A));
	ce_rows_k<T><<<(unsigned)blocks, threads, 0, g->stream>>>(
		(const T *)in[0], in[1], tdt, rows, C, out, odt, red == KJB_NONE, (A *)g->workspace, vec);
	if (red != KJB_NONE)
		sum_parts_k<A><<<1, 1024, 0, g->stream>>>((const A *)g->workspace, blocks, out, odt,
							  red == KJB_MEAN ? rows : 0);
	KJ_LAUNCH_CHECK(err, "cross_entropy");
	return 0;
}

int kj_cuda_cross_entropy(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			  int reference, struct kj_err *err)
{
	if (reference)
		return ce_launch<double>(g, n, in, out, reference, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return ce_launch<float>(g, n, in, out, reference, err);
	case KJ_F16:
		return ce_launch<__half>(g, n, in, out, reference, err);
	case KJ_BF16:
		return ce_launch<__nv_bfloat16>(g, n, in, out, reference, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "cross_entropy: input dtype %s is not floating point",
				  kj_dtype_name(n->in[0].dtype));
	}
}

int kj_cuda_cross_entropy_check(kj_gpu *g, const kj_bnode *n, const void *const *in,
				int reference, char *msg, size_t msglen, struct kj_err *err)
{
	unsigned long long bad = 0;
	const kj_shape *xs = &n->in[0].shape;
	kj_dtype tt = n->in[1].dtype;
	size_t es = reference ? 8 : kj_dtype_size(tt);
	unsigned char raw[8] = {0};
	double t;

	KJ_CUDA_CHECK(err, cudaMemcpyFromSymbolAsync(&bad, kj_ce_bad_row, sizeof(bad), 0,
						     cudaMemcpyDeviceToHost, g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	if (bad == ~0ull)
		return 0;
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(raw, (const unsigned char *)in[1] + bad * es, es,
					   cudaMemcpyDeviceToHost, g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	if (reference)
		memcpy(&t, raw, sizeof(t));
	else
		t = kj_load(tt, raw, 0);
	snprintf(msg, msglen, "cross_entropy: target %.17g out of range [0, %lld) at index %lld", t,
		 (long long)xs->d[xs->rank - 1], (long long)bad);
	return 1;
}
