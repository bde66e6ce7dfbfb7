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
 *
 * Table D's losses (kl_div, hinge_embedding_loss, huber_loss, smooth_l1_loss,
 * triplet_margin_loss) and cosine_similarity, mirroring
 * src/ops/cpu/misc_impl.h, run on the row-reduction framework of
 * ops_rowred.cuh; reductions to one value are one row split across the
 * device.  No atomics, so results are deterministic.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/ops_rowred.cuh"

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

/* The smallest row whose target is out of range; all ones when none.  One
 * per device, reset by kj_cuda_cross_entropy and read by its check on the
 * op's stream, as kjm_emb_bad (ops_index.cu): one thread per device. */
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

/* ---- cosine_similarity ---- */

template <class T> struct F_cos {
	typedef typename kjt<T>::acc A;
	struct S {
		A d, a, b, pad;
	};
	const T *x1, *x2;
	A eps;
	static __device__ __forceinline__ S init()
	{
		S s;
		s.d = s.a = s.b = s.pad = 0;
		return s;
	}
	__device__ __forceinline__ S add(S s, int64_t off) const
	{
		A u = kjt<T>::ld(x1[off]), v = kjt<T>::ld(x2[off]);
		s.d += u * v;
		s.a += u * u;
		s.b += v * v;
		return s;
	}
	static __device__ __forceinline__ S merge(S p, S q)
	{
		p.d += q.d;
		p.a += q.a;
		p.b += q.b;
		return p;
	}
	__device__ __forceinline__ A fin(S s, int64_t) const
	{
		A na = m_sqrt(s.a), nb = m_sqrt(s.b);
		return s.d / ((na > eps ? na : eps) * (nb > eps ? nb : eps));
	}
};

template <class T>
static int cosine_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      struct kj_err *err)
{
	int64_t outer, len, inner;
	F_cos<T> f;
	kjm_sink<T> sink;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 0, 1), n->in[0].shape.rank), &outer, &len,
		  &inner);
	f.x1 = (const T *)in[0];
	f.x2 = (const T *)in[1];
	f.eps = (typename kjt<T>::acc)kjo_attr_f(n, 1, 1e-8);
	sink.y = (T *)out;
	return red_run(g, f, sink, outer, len, inner, 0, "cosine_similarity", err);
}

int kj_cuda_cosine_similarity(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			      int reference, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, cosine_run<T>(g, n, in, out, err));
}

/* ---- pointwise losses ---- */

enum { KJM_L_KL, KJM_L_KL_LOG, KJM_L_HINGE, KJM_L_HUBER, KJM_L_SMOOTH };

template <class A> __device__ __forceinline__ A loss_term(int kind, A x, A t, A par)
{
	switch (kind) {
	case KJM_L_KL:
		return t == (A)0 ? (A)0 : t * (m_log(t) - x);
	case KJM_L_KL_LOG:
		return m_exp(t) * (t - x);
	case KJM_L_HINGE: {
		A m = par - x, l = 0;
		if (t != (A)1)
			l += m > (A)0 ? m : (m != m ? m : (A)0);
		if (t != (A)-1)
			l += x;
		return l;
	}
	case KJM_L_HUBER: {
		A d = m_fabs(x - t);
		return d < par ? (A)0.5 * d * d : par * (d - (A)0.5 * par);
	}
	default: {
		A d = m_fabs(x - t);
		return d < par ? (A)0.5 * d * d / par : d - (A)0.5 * par;
	}
	}
}

/* The target is read by its dtype (hinge takes any numeric target). */
template <class T> struct F_loss {
	typedef typename kjt<T>::acc A;
	typedef A S;
	const T *x;
	const void *t;
	int tdt, kind;
	A par, div;
	__device__ __forceinline__ A term(int64_t off) const
	{
		A tv = tdt < 0 ? kjt<T>::ld(((const T *)t)[off]) : (A)kjd_load(tdt, t, (size_t)off);
		return loss_term<A>(kind, kjt<T>::ld(x[off]), tv, par);
	}
	static __device__ __forceinline__ S init() { return 0; }
	__device__ __forceinline__ S add(S s, int64_t off) const { return s + term(off); }
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	/* div < 0: a sum; else a mean (0 / 0 = NaN for an empty input) */
	__device__ __forceinline__ A fin(S s, int64_t) const { return div < 0 ? s : s / div; }
};

template <class T>
__global__ void loss_none_k(F_loss<T> f, T *__restrict__ y, int64_t total)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride)
		y[e] = kjt<T>::st(f.term(e));
}

template <class T>
static int loss_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		    int kind, int red, double par, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	int64_t total = kjo_numel(&n->in[0].shape);
	F_loss<T> f;
	kjm_sink<T> sink;
	f.x = (const T *)in[0];
	f.t = in[1];
	/* a target of the input's dtype is read typed */
	f.tdt = n->in[1].dtype == n->in[0].dtype ? -1 : kj_buf_dt(n->in[1].dtype, reference);
	if (reference)
		f.tdt = -1;
	f.kind = kind;
	f.par = (A)par;
	f.div = -1;
	if (red == KJM_MEAN)
		f.div = (A)total;
	else if (red == KJM_BATCHMEAN)
		f.div = (A)(n->in[0].shape.rank ? n->in[0].shape.d[0] : total);
	sink.y = (T *)out;
	if (red == KJM_NONE) {
		if (total)
			loss_none_k<T><<<kj_blocks(g, total, 256), 256, 0, g->stream>>>(f, (T *)out, total);
		KJM_CHECK(err, n->op->name);
		return 0;
	}
	if (total == 0) {
		/* sum 0, mean NaN (0 / 0) */
		red_parts_k<F_loss<T>, kjm_sink<T>><<<1, 32, 0, g->stream>>>(f, sink, 1, 0, NULL);
		KJM_CHECK(err, n->op->name);
		return 0;
	}
	return red_run(g, f, sink, 1, total, 1, 0, n->op->name, err);
}

static int loss_dispatch(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			 int reference, int kind, int red, double par, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, loss_run<T>(g, n, in, out, reference, kind, red, par, err));
}

int kj_cuda_kl_div(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		   struct kj_err *err)
{
	return loss_dispatch(g, n, in, out, reference, kjo_attr_i(n, 1, 0) ? KJM_L_KL_LOG : KJM_L_KL,
			     kjm_reduction_of(n, 0, 1), 0.0, err);
}

int kj_cuda_hinge_embedding_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
				 int reference, struct kj_err *err)
{
	return loss_dispatch(g, n, in, out, reference, KJM_L_HINGE, kjm_reduction_of(n, 1, 0),
			     kjo_attr_f(n, 0, 1.0), err);
}

int kj_cuda_huber_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return loss_dispatch(g, n, in, out, reference, KJM_L_HUBER, kjm_reduction_of(n, 0, 0),
			     kjo_attr_f(n, 1, 1.0), err);
}

int kj_cuda_smooth_l1_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			   int reference, struct kj_err *err)
{
	double beta = kjo_attr_f(n, 1, 1.0);
	/* beta = 0 is the L1 loss: d < 0 never holds, d - 0 */
	return loss_dispatch(g, n, in, out, reference, KJM_L_SMOOTH, kjm_reduction_of(n, 0, 0), beta,
			     err);
}

/* ---- triplet_margin_loss ---- */

template <class T> struct F_trip {
	typedef typename kjt<T>::acc A;
	struct S {
		A p, n, s, pad;
	};
	const T *a, *pos, *neg;
	int k, swap;
	A p, eps, margin;
	static __device__ __forceinline__ S init()
	{
		S s;
		s.p = s.n = s.s = s.pad = 0;
		return s;
	}
	__device__ __forceinline__ S add(S s, int64_t off) const
	{
		A av = kjt<T>::ld(a[off]), pv = kjt<T>::ld(pos[off]), nv = kjt<T>::ld(neg[off]);
		s.p += pterm_d<A>(av - pv + eps, k, p);
		s.n += pterm_d<A>(av - nv + eps, k, p);
		if (swap)
			s.s += pterm_d<A>(pv - nv + eps, k, p);
		return s;
	}
	static __device__ __forceinline__ S merge(S x, S y)
	{
		x.p += y.p;
		x.n += y.n;
		x.s += y.s;
		return x;
	}
	__device__ __forceinline__ A fin(S s, int64_t) const
	{
		A dp = proot_d<A>(s.p, k, p), dn = proot_d<A>(s.n, k, p);
		if (swap) {
			A ds = proot_d<A>(s.s, k, p);
			dn = ds < dn ? ds : dn;
		}
		A l = dp - dn + margin;
		return l > (A)0 ? l : (l != l ? l : (A)0);
	}
};

/* Sums (or averages) n values of an array. */
template <class T> struct F_arr {
	typedef typename kjt<T>::acc A;
	typedef A S;
	const A *v;
	A div;
	static __device__ __forceinline__ S init() { return 0; }
	__device__ __forceinline__ S add(S s, int64_t off) const { return s + v[off]; }
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	__device__ __forceinline__ A fin(S s, int64_t) const { return div > 0 ? s / div : s; }
};

template <class A> struct kjm_asink {
	A *y;
	__device__ __forceinline__ void put(int64_t row, A v) const { y[row] = v; }
};

template <class T>
static int triplet_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	const kj_shape *s = &n->in[0].shape;
	int64_t D = s->d[s->rank - 1], rows = s->rank == 2 ? s->d[0] : 1;
	int red = kjm_reduction_of(n, 4, 0);
	double p = kjo_attr_f(n, 1, 2.0);
	F_trip<T> f;
	size_t lb = ((size_t)rows * sizeof(A) + 255) & ~(size_t)255;
	int rc;
	f.a = (const T *)in[0];
	f.pos = (const T *)in[1];
	f.neg = (const T *)in[2];
	f.k = (int)kjm_pkind_of(p);
	f.p = (A)p;
	f.eps = (A)kjo_attr_f(n, 2, 1e-6);
	f.margin = (A)kjo_attr_f(n, 0, 1.0);
	f.swap = (int)kjo_attr_i(n, 3, 0);
	if (red == KJM_NONE) {
		kjm_sink<T> sink;
		sink.y = (T *)out;
		return red_run(g, f, sink, rows, D, 1, 0, "triplet_margin_loss", err);
	}
	if (lb > g->workspace_bytes / 2)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "triplet_margin_loss: %lld rows do not fit the %zu-byte workspace",
				  (long long)rows, g->workspace_bytes);
	{
		kjm_asink<A> ls;
		ls.y = (A *)g->workspace;
		rc = red_run(g, f, ls, rows, D, 1, lb, "triplet_margin_loss", err);
		if (rc)
			return rc;
	}
	F_arr<T> fa;
	kjm_sink<T> sink;
	fa.v = (const A *)g->workspace;
	fa.div = red == KJM_MEAN ? (A)rows : (A)0;
	sink.y = (T *)out;
	return red_run(g, fa, sink, 1, rows, 1, lb, "triplet_margin_loss", err);
}

int kj_cuda_triplet_margin_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
				int reference, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, triplet_run<T>(g, n, in, out, err));
}
