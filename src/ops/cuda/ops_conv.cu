/*
 * CUDA convolution and pooling (table C): conv1d/2d/3d,
 * conv_transpose1d/2d/3d, max_pool1d/2d/3d, avg_pool1d/2d/3d and
 * adaptive_avg_pool1d/2d/3d.
 *
 * The eager baseline calls cuDNN's legacy API: cudnnConvolutionForward for
 * a conv and cudnnConvolutionBackwardData for a transposed conv (the
 * adjoint of the conv with the same weight), float compute.  f32 runs with
 * CUDNN_FMA_MATH (no TF32, as torch.backends.cudnn.allow_tf32 = False:
 * PyTorch's default is True, but a TF32 baseline could not meet the f32
 * tolerance; a task that declares `tf32 allowed` gets CUDNN_DEFAULT_MATH
 * and tensor-op algorithms, as PyTorch's default, its plans cached apart)
 * and the algorithm the _v7 heuristics pick, as PyTorch eager
 * with torch.backends.cudnn.benchmark off (measure_f32 measures instead
 * with KJ_CONV_F32_FIND=1, not yet the default: see there); f16/bf16 use
 * tensor-op math and the fastest algorithm cuDNN measures on the
 * geometry's first call (measure_algo).  A bias is added with
 * cudnnAddTensor after the conv (PyTorch adds it after the conv too).  A 1-D
 * op runs as a 2-D one with a unit height, as PyTorch does.  Descriptors,
 * algorithm and workspace size are made once per geometry and cached in the
 * context (struct kj_dnn), so a timed call does no host-side set-up beyond
 * a lookup.  A 16-bit forward conv may instead run in channels-last
 * layout (x and w transposed into NHWC / KRSC copies, y transposed back)
 * where that measured faster on its first call (try_nhwc).  Pooling goes
 * to cudnnPoolingForward where cuDNN's pooling means the same as
 * PyTorch's (no dilation, floor mode) and the input fits
 * its 32-bit strides; dilated or ceil-mode pooling and the adaptive pools
 * use the kernels below (as PyTorch's native pooling kernels).  Before
 * any of that, depthwise 2-D convs of the float baseline go to the direct
 * tile kernel of ops_window2d.cu where it applies; 2-D pools go there only
 * where cuDNN does not take them (pool_other).
 *
 * The reference (double buffers) is computed without cuDNN: a conv by
 * im2col + DGEMM in column chunks (a direct loop when a group's reduction
 * has at most 64 terms), a transposed conv by DGEMM into per-tap columns
 * followed by a gather (col2im) per output, pools by direct loops.
 */
#include "ops/cuda/ops_common.cuh"

#include "ops/cuda/cudnn_check.h"
#include "ops/cuda/ops_window2d.h"
#include <limits.h>
#include <stdlib.h>

extern "C" {
#include "ops/table_c.h"
}

/* Workspace a cuDNN algorithm may take; the heuristics' first choice that
 * fits wins.  Scratch for the reference's im2col columns. */
#define KJ_DNN_WS_CAP ((size_t)1 << 30)
#define KJ_DNN_COL_BYTES ((size_t)256 << 20)
#define KJ_DNN_PLANS 48
/* 1: the baseline pools through cudnnPoolingForward where it applies; 0:
 * always through the own kernels below (as PyTorch's native CUDA pooling). */
#ifndef KJ_POOL_CUDNN
#define KJ_POOL_CUDNN 1
#endif
/* A group reduction of at most this many terms runs as a direct loop in
 * the reference (depthwise and few-channel convs): GEMM would not pay. */
#define KJ_DIRECT_TERMS 64

/* One cached cuDNN set-up: the geometry and dtype it was made for, its
 * descriptors and algorithm. */
struct dnn_plan {
	int used;
	kjc_geom g;
	kj_dtype dt;
	int use_pool;  /* pooling: 1 when cuDNN serves this geometry */
	cudnnTensorDescriptor_t x, y, b;
	cudnnFilterDescriptor_t w;
	cudnnConvolutionDescriptor_t conv;
	cudnnPoolingDescriptor_t pool;
	int algo;
	size_t ws;
	int measured; /* 16-bit convs: algo chosen by timing (measure_algo) */
	/* 16-bit forward convs: 1 when the call runs through channels-last
	 * copies (conv_nhwc), measured faster than the NCHW algo: descriptors
	 * of x, y and w in NHWC / KRSC, their conv descriptor (its own math
	 * type), algorithm and workspace, and the layout of d->tr (x at 0, w
	 * at wo, y at yo, trb bytes in all). */
	int nhwc;
	int tf32; /* f32 with TF32 allowed (g->tf32 when made): CUDNN_DEFAULT_MATH */
	cudnnTensorDescriptor_t xh, yh;
	cudnnFilterDescriptor_t wh;
	cudnnConvolutionDescriptor_t convh;
	int algoh;
	size_t wsh, wo, yo, trb;
	uint64_t last;
};

struct kj_dnn {
	cudnnHandle_t h;
	void *ws;
	size_t ws_bytes;
	double *col;
	void *tr; /* the NHWC copies of x, w and y (conv_nhwc); grown on demand */
	size_t tr_bytes;
	struct dnn_plan plans[KJ_DNN_PLANS];
	uint64_t tick;
};

/* Drops p's NHWC descriptors (p then runs in NCHW). */
static void plan_drop_nhwc(struct dnn_plan *p)
{
	if (p->xh)
		cudnnDestroyTensorDescriptor(p->xh);
	if (p->yh)
		cudnnDestroyTensorDescriptor(p->yh);
	if (p->wh)
		cudnnDestroyFilterDescriptor(p->wh);
	if (p->convh)
		cudnnDestroyConvolutionDescriptor(p->convh);
	p->xh = p->yh = NULL;
	p->wh = NULL;
	p->convh = NULL;
	p->nhwc = 0;
}

static void plan_release(struct dnn_plan *p)
{
	plan_drop_nhwc(p);
	if (p->x)
		cudnnDestroyTensorDescriptor(p->x);
	if (p->y)
		cudnnDestroyTensorDescriptor(p->y);
	if (p->b)
		cudnnDestroyTensorDescriptor(p->b);
	if (p->w)
		cudnnDestroyFilterDescriptor(p->w);
	if (p->conv)
		cudnnDestroyConvolutionDescriptor(p->conv);
	if (p->pool)
		cudnnDestroyPoolingDescriptor(p->pool);
	memset(p, 0, sizeof(*p));
}

void kj_cuda_dnn_release(kj_gpu *g)
{
	struct kj_dnn *d = (struct kj_dnn *)g->dnn;
	if (!d)
		return;
	for (int i = 0; i < KJ_DNN_PLANS; i++)
		plan_release(&d->plans[i]);
	if (d->h)
		cudnnDestroy(d->h);
	if (d->ws)
		cudaFree(d->ws);
	if (d->col)
		cudaFree(d->col);
	if (d->tr)
		cudaFree(d->tr);
	free(d);
	g->dnn = NULL;
}

/* The context's cuDNN state, made on first use. */
static int dnn_get(kj_gpu *g, struct kj_dnn **out, struct kj_err *err)
{
	struct kj_dnn *d = (struct kj_dnn *)g->dnn;
	if (!d) {
		d = (struct kj_dnn *)calloc(1, sizeof(*d));
		if (!d)
			return kj_err_set(err, KJ_E_NOMEM, "out of memory for the cuDNN state");
		g->dnn = d;
		KJ_CUDNN_CHECK(err, cudnnCreate(&d->h));
	}
	KJ_CUDNN_CHECK(err, cudnnSetStream(d->h, g->stream));
	*out = d;
	return 0;
}

static int dnn_workspace(kj_gpu *g, struct kj_dnn *d, size_t bytes, struct kj_err *err)
{
	if (bytes <= d->ws_bytes)
		return 0;
	if (d->ws) {
		KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
		cudaFree(d->ws);
		d->ws = NULL;
		d->ws_bytes = 0;
	}
	KJ_CUDA_CHECK(err, cudaMalloc(&d->ws, bytes));
	d->ws_bytes = bytes;
	return 0;
}

static int dnn_col(struct kj_dnn *d, struct kj_err *err)
{
	if (!d->col)
		KJ_CUDA_CHECK(err, cudaMalloc((void **)&d->col, KJ_DNN_COL_BYTES));
	return 0;
}

/* d->tr of at least `bytes`: *ok = 1, or 0 when cudaMalloc refused (the
 * caller runs in NCHW then; the error is cleared). */
static int tr_grow(kj_gpu *g, struct kj_dnn *d, size_t bytes, int *ok, struct kj_err *err)
{
	int rc = kj_gpu_grow(g, &d->tr, &d->tr_bytes, bytes);
	*ok = rc == 0;
	if (rc > 0) {
		/* the stream failed before the old copies could be freed */
		cudaError_t stream_status = (cudaError_t)rc;
		KJ_CUDA_CHECK(err, stream_status);
	}
	return 0;
}

static void tr_free(kj_gpu *g, struct kj_dnn *d)
{
	if (!d->tr)
		return;
	(void)cudaStreamSynchronize(g->stream);
	cudaFree(d->tr);
	d->tr = NULL;
	d->tr_bytes = 0;
}

static cudnnDataType_t dnn_type(kj_dtype t)
{
	return t == KJ_F16 ? CUDNN_DATA_HALF : t == KJ_BF16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_FLOAT;
}

/* cuDNN's view of a tensor [N, C, spatial...]: 1-D ops as 2-D with H = 1. */
static int dnn_tensor(cudnnTensorDescriptor_t *t, kj_dtype dt, int nd, int64_t N, int64_t C,
		      const int64_t sp[3], struct kj_err *err)
{
	int ndc = nd < 2 ? 2 : nd, dims[5], strides[5];
	int64_t st = 1, all[5];
	all[0] = N;
	all[1] = C;
	for (int i = 0; i < ndc; i++)
		all[2 + i] = sp[3 - ndc + i];
	for (int i = ndc + 1; i >= 0; i--) {
		if (all[i] > INT_MAX || st > INT_MAX)
			return kj_err_set(err, KJ_E_UNSUPPORTED,
					  "cuDNN: tensor with %lld elements or more exceeds its 32-bit strides",
					  (long long)st);
		dims[i] = (int)all[i];
		strides[i] = (int)st;
		st *= all[i];
	}
	if (st > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "cuDNN: tensor of %lld elements exceeds its 32-bit strides", (long long)st);
	KJ_CUDNN_CHECK(err, cudnnCreateTensorDescriptor(t));
	KJ_CUDNN_CHECK(err, cudnnSetTensorNdDescriptor(*t, dnn_type(dt), ndc + 2, dims, strides));
	return 0;
}

/* cuDNN's view of a tensor [N, C, spatial...] stored channels-last
 * ([N, spatial..., C]); 1-D as 2-D with H = 1.  Every dim is at least 1. */
static int dnn_tensor_nhwc(cudnnTensorDescriptor_t *t, kj_dtype dt, int nd, int64_t N, int64_t C,
			   const int64_t sp[3], struct kj_err *err)
{
	int ndc = nd < 2 ? 2 : nd, dims[5], strides[5];
	int64_t st = C, tot = N * C * sp[0] * sp[1] * sp[2];
	if (tot > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "cuDNN: channels-last tensor of %lld elements exceeds its 32-bit strides",
				  (long long)tot);
	for (int i = ndc - 1; i >= 0; i--) {
		dims[2 + i] = (int)sp[3 - ndc + i];
		strides[2 + i] = (int)st;
		st *= sp[3 - ndc + i];
	}
	dims[0] = (int)N;
	dims[1] = (int)C;
	strides[0] = (int)st;
	strides[1] = 1;
	KJ_CUDNN_CHECK(err, cudnnCreateTensorDescriptor(t));
	KJ_CUDNN_CHECK(err, cudnnSetTensorNdDescriptor(*t, dnn_type(dt), ndc + 2, dims, strides));
	return 0;
}

/* A conv descriptor for geometry ge (padding, stride, dilation, groups)
 * with math type math. */
static int conv_desc(const kjc_geom *ge, cudnnConvolutionDescriptor_t *c, cudnnMathType_t math,
		     struct kj_err *err)
{
	int ndc = ge->nd < 2 ? 2 : ge->nd, pad[3], str[3], dil[3];
	for (int i = 0; i < ndc; i++) {
		int j = 3 - ndc + i;
		pad[i] = (int)ge->p[j];
		str[i] = (int)ge->s[j];
		dil[i] = (int)ge->d[j];
	}
	KJ_CUDNN_CHECK(err, cudnnCreateConvolutionDescriptor(c));
	KJ_CUDNN_CHECK(err, cudnnSetConvolutionNdDescriptor(*c, ndc, pad, str, dil,
							    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	KJ_CUDNN_CHECK(err, cudnnSetConvolutionGroupCount(*c, (int)ge->groups));
	KJ_CUDNN_CHECK(err, cudnnSetConvolutionMathType(*c, math));
	return 0;
}

/* The FFT and Winograd algorithms: their f32 results are off by more than
 * the f32 tolerance on inputs with outliers (H200, 2026-11-30: measured
 * first, they failed the judge's outlier or uniform seed on 11 of 144 conv
 * bench shapes, all of the 3x3, 32-channel N=64 H=W=128 geometry), so a
 * candidate could not match such a baseline and still pass. */
static bool transform_algo(cudnnConvolutionFwdAlgo_t a)
{
	return a == CUDNN_CONVOLUTION_FWD_ALGO_FFT || a == CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING ||
	       a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD || a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED;
}
static bool transform_algo(cudnnConvolutionBwdDataAlgo_t a)
{
	return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING ||
	       a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD ||
	       a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED;
}

/* Takes the first of the cnt results (heuristic or measured order; forward
 * or backward-data) that succeeded, fits KJ_DNN_WS_CAP and, for f32 unless
 * tf32 (the task allows TF32), uses no tensor ops and, with `exact` and where another qualifies, no FFT or
 * Winograd (transform_algo): sets *algo and, for f16/bf16, the math type of
 * conv it asks for.  Returns 0, or an error "cuDNN offers no <kind>
 * algorithm for <what>". */
template <class Perf>
static int take_algo(kj_dtype dt, bool tf32, cudnnConvolutionDescriptor_t conv, int *algo, const Perf *perf,
		     int cnt, const char *kind, const char *what, struct kj_err *err, bool exact = false)
{
	int found = -1;
	for (int pass = exact ? 0 : 1; pass < 2 && found < 0; pass++)
		for (int i = 0; i < cnt && found < 0; i++)
			if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= KJ_DNN_WS_CAP &&
			    (pass || !transform_algo(perf[i].algo)) &&
			    (dt != KJ_F32 || tf32 ||
			     (perf[i].mathType != CUDNN_TENSOR_OP_MATH &&
			      perf[i].mathType != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)))
				found = i;
	if (found < 0)
		return kj_err_set(err, KJ_E_CUDA, "cuDNN offers no %s algorithm for %s", kind, what);
	*algo = (int)perf[found].algo;
	if (dt != KJ_F32 || tf32)
		KJ_CUDNN_CHECK(err, cudnnSetConvolutionMathType(conv, perf[found].mathType));
	return 0;
}

static int plan_conv(kj_gpu *g, struct kj_dnn *d, struct dnn_plan *p, struct kj_err *err)
{
	const kjc_geom *ge = &p->g;
	int ndc = ge->nd < 2 ? 2 : ge->nd, convt = ge->kind == KJC_CONVT;
	int wd[5], cnt = 0, rc;
	int64_t wdim0 = convt ? ge->cin : ge->cout, wdim1 = convt ? ge->cout / ge->groups
								 : ge->cin / ge->groups;
	cudnnMathType_t math = p->dt != KJ_F32 ? CUDNN_TENSOR_OP_MATH
			       : p->tf32      ? CUDNN_DEFAULT_MATH
					      : CUDNN_FMA_MATH;

	/* cuDNN finds the transposed conv's size from the forward conv, which
	 * an output_padding of stride or more (allowed below the dilation)
	 * would contradict */
	for (int i = 0; convt && i < 3; i++)
		if (ge->op[i] >= ge->s[i])
			return kj_err_set(err, KJ_E_UNSUPPORTED,
					  "conv_transpose: output_padding %lld >= stride %lld is not supported "
					  "by the cuDNN baseline",
					  (long long)ge->op[i], (long long)ge->s[i]);
	if (dnn_tensor(&p->x, p->dt, ge->nd, ge->N, ge->cin, ge->in, err) ||
	    dnn_tensor(&p->y, p->dt, ge->nd, ge->N, ge->cout, ge->out, err))
		return err ? err->code : KJ_E_CUDA;
	if (ge->bias) {
		int64_t one[3] = {1, 1, 1};
		if (dnn_tensor(&p->b, p->dt, ge->nd, 1, ge->cout, one, err))
			return err ? err->code : KJ_E_CUDA;
	}
	wd[0] = (int)wdim0;
	wd[1] = (int)wdim1;
	for (int i = 0; i < ndc; i++)
		wd[2 + i] = (int)ge->k[3 - ndc + i];
	KJ_CUDNN_CHECK(err, cudnnCreateFilterDescriptor(&p->w));
	KJ_CUDNN_CHECK(err, cudnnSetFilterNdDescriptor(p->w, dnn_type(p->dt), CUDNN_TENSOR_NCHW,
						       ndc + 2, wd));
	if ((rc = conv_desc(ge, &p->conv, math, err)))
		return rc;
	if (!convt) {
		cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
		KJ_CUDNN_CHECK(err, cudnnGetConvolutionForwardAlgorithm_v7(
					    d->h, p->x, p->w, p->conv, p->y,
					    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &cnt, perf));
		if ((rc = take_algo(p->dt, p->tf32, p->conv, &p->algo, perf, cnt, "forward", "this convolution", err)))
			return rc;
		KJ_CUDNN_CHECK(err, cudnnGetConvolutionForwardWorkspaceSize(
					    d->h, p->x, p->w, p->conv, p->y,
					    (cudnnConvolutionFwdAlgo_t)p->algo, &p->ws));
	} else {
		cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
		/* the transposed conv's input is the gradient dy of the conv whose
		 * input gradient dx is the transposed conv's output */
		KJ_CUDNN_CHECK(err, cudnnGetConvolutionBackwardDataAlgorithm_v7(
					    d->h, p->w, p->x, p->conv, p->y,
					    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &cnt, perf));
		if ((rc = take_algo(p->dt, p->tf32, p->conv, &p->algo, perf, cnt, "backward-data",
				    "this transposed convolution", err)))
			return rc;
		KJ_CUDNN_CHECK(err, cudnnGetConvolutionBackwardDataWorkspaceSize(
					    d->h, p->w, p->x, p->conv, p->y,
					    (cudnnConvolutionBwdDataAlgo_t)p->algo, &p->ws));
	}
	return dnn_workspace(g, d, p->ws, err);
}

/* Whether cuDNN's pooling computes what the op means: no dilation, floor
 * mode, and cuDNN's output extents equal ours. */
static int plan_pool(struct dnn_plan *p, struct kj_err *err)
{
	const kjc_geom *ge = &p->g;
	int ndc = ge->nd < 2 ? 2 : ge->nd, win[3], pad[3], str[3], od[5];
	cudnnPoolingMode_t mode = ge->kind == KJC_MAXPOOL ? CUDNN_POOLING_MAX
				  : ge->count_include_pad ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
							  : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
	p->use_pool = 0;
	if (ge->ceil_mode)
		return 0;
	for (int i = 0; i < 3; i++)
		if (ge->d[i] != 1)
			return 0;
	if (dnn_tensor(&p->x, p->dt, ge->nd, ge->N, ge->cin, ge->in, err) ||
	    dnn_tensor(&p->y, p->dt, ge->nd, ge->N, ge->cout, ge->out, err))
		return err ? err->code : KJ_E_CUDA;
	for (int i = 0; i < ndc; i++) {
		int j = 3 - ndc + i;
		win[i] = (int)ge->k[j];
		pad[i] = (int)ge->p[j];
		str[i] = (int)ge->s[j];
	}
	KJ_CUDNN_CHECK(err, cudnnCreatePoolingDescriptor(&p->pool));
	KJ_CUDNN_CHECK(err, cudnnSetPoolingNdDescriptor(p->pool, mode, CUDNN_PROPAGATE_NAN, ndc, win,
							pad, str));
	KJ_CUDNN_CHECK(err, cudnnGetPoolingNdForwardOutputDim(p->pool, p->x, ndc + 2, od));
	for (int i = 0; i < ndc; i++)
		if (od[2 + i] != ge->out[3 - ndc + i])
			return 0;
	p->use_pool = 1;
	return 0;
}

/* The cached plan for geometry ge and dtype dt, made on a miss (the least
 * recently used entry makes room). */
static int plan_get(kj_gpu *g, struct kj_dnn *d, const kjc_geom *ge, kj_dtype dt,
		    struct dnn_plan **out, struct kj_err *err)
{
	struct dnn_plan *p = NULL;
	int rc;
	for (int i = 0; i < KJ_DNN_PLANS; i++) {
		struct dnn_plan *q = &d->plans[i];
		if (q->used && q->dt == dt && q->tf32 == (dt == KJ_F32 && g->tf32) &&
		    memcmp(&q->g, ge, sizeof(*ge)) == 0) {
			q->last = ++d->tick;
			*out = q;
			return 0;
		}
		if (!p || !q->used || (p->used && q->last < p->last))
			p = q;
	}
	plan_release(p);
	memcpy(&p->g, ge, sizeof(*ge));
	p->dt = dt;
	p->tf32 = dt == KJ_F32 && g->tf32;
	rc = ge->kind == KJC_CONV || ge->kind == KJC_CONVT ? plan_conv(g, d, p, err) : plan_pool(p, err);
	if (rc) {
		plan_release(p);
		return rc;
	}
	p->used = 1;
	p->last = ++d->tick;
	*out = p;
	return 0;
}

/* ---- direct kernels: pools (baseline and reference), convs (reference) ---- */

/* Output index -> (nc, o0, o1, o2). */
__device__ __forceinline__ void split_out(const kjc_geom &g, int64_t idx, int64_t *nc, int64_t o[3])
{
	o[2] = idx % g.out[2];
	idx /= g.out[2];
	o[1] = idx % g.out[1];
	idx /= g.out[1];
	o[0] = idx % g.out[0];
	*nc = idx / g.out[0];
}

/* A pool's geometry in index type I: 32-bit when every offset fits (the
 * divisions of the index split are much cheaper), else 64-bit. */
template <class I> struct pool_g {
	I in[3], out[3], k[3], s[3], p[3], d[3];
	int cip;
};

template <class I> static pool_g<I> pool_geom(const kjc_geom &g)
{
	pool_g<I> r;
	for (int i = 0; i < 3; i++) {
		r.in[i] = (I)g.in[i];
		r.out[i] = (I)g.out[i];
		r.k[i] = (I)g.k[i];
		r.s[i] = (I)g.s[i];
		r.p[i] = (I)g.p[i];
		r.d[i] = (I)g.d[i];
	}
	r.cip = g.count_include_pad;
	return r;
}

template <class T, class I>
__global__ void max_pool_k(pool_g<I> g, const T *__restrict__ x, T *__restrict__ y, I n)
{
	typedef typename kjt<T>::acc A;
	I stride = (I)gridDim.x * (I)blockDim.x, ivol = g.in[0] * g.in[1] * g.in[2];
	for (I idx = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; idx < n; idx += stride) {
		I o2 = idx % g.out[2], t = idx / g.out[2], o1 = t % g.out[1];
		t /= g.out[1];
		I o0 = t % g.out[0], nc = t / g.out[0];
		A m = -m_inf<A>();
		const T *xc = x + nc * ivol;
		for (I k0 = 0; k0 < g.k[0]; k0++) {
			I i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
			if (i0 < 0 || i0 >= g.in[0])
				continue;
			for (I k1 = 0; k1 < g.k[1]; k1++) {
				I i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
				if (i1 < 0 || i1 >= g.in[1])
					continue;
				const T *xr = xc + (i0 * g.in[1] + i1) * g.in[2];
				for (I k2 = 0; k2 < g.k[2]; k2++) {
					I i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
					if (i2 < 0 || i2 >= g.in[2])
						continue;
					A v = kjt<T>::ld(xr[i2]);
					if (v > m || v != v)
						m = v;
				}
			}
		}
		y[idx] = kjt<T>::st(m);
	}
}

/* ADAPTIVE = 0: avg_pool's windows (as kjc_avg_window); 1: adaptive ones
 * (as kjc_adaptive_window, in 64 bits: o * in may pass 2^31). */
template <class T, class I, int ADAPTIVE>
__global__ void avg_pool_k(pool_g<I> g, const T *__restrict__ x, T *__restrict__ y, I n)
{
	typedef typename kjt<T>::acc A;
	I stride = (I)gridDim.x * (I)blockDim.x, ivol = g.in[0] * g.in[1] * g.in[2];
	for (I idx = (I)blockIdx.x * (I)blockDim.x + (I)threadIdx.x; idx < n; idx += stride) {
		I o[3], lo[3], hi[3], cnt[3];
		I t = idx / g.out[2];
		o[2] = idx % g.out[2];
		o[1] = t % g.out[1];
		t /= g.out[1];
		o[0] = t % g.out[0];
		I nc = t / g.out[0];
		A acc = 0;
#pragma unroll
		for (int i = 0; i < 3; i++) {
			if (ADAPTIVE) {
				lo[i] = (I)((int64_t)o[i] * g.in[i] / g.out[i]);
				hi[i] = (I)((((int64_t)o[i] + 1) * g.in[i] + g.out[i] - 1) / g.out[i]);
				cnt[i] = hi[i] - lo[i];
			} else {
				I a = o[i] * g.s[i] - g.p[i], b = a + g.k[i];
				if (b > g.in[i] + g.p[i])
					b = g.in[i] + g.p[i];
				cnt[i] = b - a;
				a = a < 0 ? 0 : a;
				b = b > g.in[i] ? g.in[i] : b;
				lo[i] = a;
				hi[i] = b;
				if (!g.cip)
					cnt[i] = b - a;
			}
		}
		const T *xc = x + nc * ivol;
		for (I i0 = lo[0]; i0 < hi[0]; i0++)
			for (I i1 = lo[1]; i1 < hi[1]; i1++) {
				const T *xr = xc + (i0 * g.in[1] + i1) * g.in[2];
				for (I i2 = lo[2]; i2 < hi[2]; i2++)
					acc += kjt<T>::ld(xr[i2]);
			}
		y[idx] = kjt<T>::st(acc / (A)(cnt[0] * cnt[1] * cnt[2]));
	}
}

/* The reference's direct conv: one output per thread, the CPU oracle's
 * loop order. */
__global__ void conv_direct_k(kjc_geom g, const double *__restrict__ x,
			      const double *__restrict__ w, const double *__restrict__ b,
			      double *__restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x, ivol = kjc_vol(g.in), kvol = kjc_vol(g.k);
	int64_t cig = g.cin / g.groups, cog = g.cout / g.groups;
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride) {
		int64_t nc, o[3];
		double acc = 0;
		split_out(g, idx, &nc, o);
		int64_t bn = nc / g.cout, co = nc % g.cout, grp = co / cog;
		for (int64_t c = 0; c < cig; c++) {
			const double *xc = x + (bn * g.cin + grp * cig + c) * ivol;
			const double *wk = w + (co * cig + c) * kvol;
			for (int64_t k0 = 0; k0 < g.k[0]; k0++) {
				int64_t i0 = o[0] * g.s[0] - g.p[0] + k0 * g.d[0];
				if (i0 < 0 || i0 >= g.in[0])
					continue;
				for (int64_t k1 = 0; k1 < g.k[1]; k1++) {
					int64_t i1 = o[1] * g.s[1] - g.p[1] + k1 * g.d[1];
					if (i1 < 0 || i1 >= g.in[1])
						continue;
					for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
						int64_t i2 = o[2] * g.s[2] - g.p[2] + k2 * g.d[2];
						if (i2 < 0 || i2 >= g.in[2])
							continue;
						acc += xc[(i0 * g.in[1] + i1) * g.in[2] + i2] *
						       wk[(k0 * g.k[1] + k1) * g.k[2] + k2];
					}
				}
			}
		}
		y[idx] = b ? acc + b[co] : acc;
	}
}

__device__ __forceinline__ int64_t convt_src_d(int64_t o, int64_t k, int64_t s, int64_t p, int64_t d,
					       int64_t in)
{
	int64_t t = o + p - k * d;
	if (t < 0 || t % s)
		return -1;
	t /= s;
	return t < in ? t : -1;
}

/* The reference's direct transposed conv (gather form, the oracle's order). */
__global__ void convt_direct_k(kjc_geom g, const double *__restrict__ x,
			       const double *__restrict__ w, const double *__restrict__ b,
			       double *__restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x, ivol = kjc_vol(g.in), kvol = kjc_vol(g.k);
	int64_t cig = g.cin / g.groups, cog = g.cout / g.groups;
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride) {
		int64_t nc, o[3];
		double acc = 0;
		split_out(g, idx, &nc, o);
		int64_t bn = nc / g.cout, co = nc % g.cout, grp = co / cog, col = co % cog;
		for (int64_t c = 0; c < cig; c++) {
			int64_t ci = grp * cig + c;
			const double *xc = x + (bn * g.cin + ci) * ivol;
			const double *wk = w + (ci * cog + col) * kvol;
			for (int64_t k0 = 0; k0 < g.k[0]; k0++) {
				int64_t i0 = convt_src_d(o[0], k0, g.s[0], g.p[0], g.d[0], g.in[0]);
				if (i0 < 0)
					continue;
				for (int64_t k1 = 0; k1 < g.k[1]; k1++) {
					int64_t i1 = convt_src_d(o[1], k1, g.s[1], g.p[1], g.d[1], g.in[1]);
					if (i1 < 0)
						continue;
					for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
						int64_t i2 = convt_src_d(o[2], k2, g.s[2], g.p[2], g.d[2], g.in[2]);
						if (i2 < 0)
							continue;
						acc += xc[(i0 * g.in[1] + i1) * g.in[2] + i2] *
						       wk[(k0 * g.k[1] + k1) * g.k[2] + k2];
					}
				}
			}
		}
		y[idx] = b ? acc + b[co] : acc;
	}
}

/* col[r, j - j0] for r = c*kvol + tap over the group's channels and output
 * positions j0 <= j < j0 + cn: the input value tap meets at output j, or 0
 * in the padding. */
__global__ void im2col_k(kjc_geom g, const double *__restrict__ xg, double *__restrict__ col,
			 int64_t K, int64_t j0, int64_t cn)
{
	int64_t n = K * cn, stride = (int64_t)gridDim.x * blockDim.x;
	int64_t ivol = kjc_vol(g.in), kvol = kjc_vol(g.k);
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride) {
		int64_t r = idx / cn, j = j0 + idx % cn, c = r / kvol, t = r % kvol;
		int64_t k2 = t % g.k[2], k1 = (t / g.k[2]) % g.k[1], k0 = t / (g.k[2] * g.k[1]);
		int64_t o2 = j % g.out[2], o1 = (j / g.out[2]) % g.out[1], o0 = j / (g.out[2] * g.out[1]);
		int64_t i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
		int64_t i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
		int64_t i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
		double v = 0;
		if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2])
			v = xg[c * ivol + (i0 * g.in[1] + i1) * g.in[2] + i2];
		col[idx] = v;
	}
}

/* out[co0 + cc, o] (channels of one image and group) = sum over taps t of
 * cols[cc*kvol + t, i(o, t)] (+ bias): the gather of a transposed conv's
 * per-tap products. */
__global__ void col2im_k(kjc_geom g, const double *__restrict__ cols, const double *__restrict__ b,
			 double *__restrict__ yg, int64_t co0, int64_t ncc, int64_t bias_off)
{
	int64_t ovol = kjc_vol(g.out), ivol = kjc_vol(g.in), kvol = kjc_vol(g.k);
	int64_t n = ncc * ovol, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride) {
		int64_t cc = idx / ovol, j = idx % ovol;
		int64_t o2 = j % g.out[2], o1 = (j / g.out[2]) % g.out[1], o0 = j / (g.out[2] * g.out[1]);
		double acc = 0;
		for (int64_t k0 = 0; k0 < g.k[0]; k0++) {
			int64_t i0 = convt_src_d(o0, k0, g.s[0], g.p[0], g.d[0], g.in[0]);
			if (i0 < 0)
				continue;
			for (int64_t k1 = 0; k1 < g.k[1]; k1++) {
				int64_t i1 = convt_src_d(o1, k1, g.s[1], g.p[1], g.d[1], g.in[1]);
				if (i1 < 0)
					continue;
				for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
					int64_t i2 = convt_src_d(o2, k2, g.s[2], g.p[2], g.d[2], g.in[2]);
					if (i2 < 0)
						continue;
					int64_t t = (k0 * g.k[1] + k1) * g.k[2] + k2;
					acc += cols[(cc * kvol + t) * ivol + (i0 * g.in[1] + i1) * g.in[2] + i2];
				}
			}
		}
		if (b)
			acc += b[bias_off + co0 + cc];
		yg[(co0 + cc) * ovol + j] = acc;
	}
}

/* y[n, c, :] += b[c] over [N, C, vol]. */
__global__ void bias_nc_k(double *__restrict__ y, const double *__restrict__ b, int64_t C,
			  int64_t vol, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride)
		y[idx] += b[(idx / vol) % C];
}

/* ---- i8 convs (the baseline): exact int32 sums ---- */

/* Tile edge of conv_i8_k; the i8 GEMM route pads the reduction to a
 * multiple of KJ_I8_KPAD (cuBLAS's int8 path wants leading dims that are
 * multiples of 4; 16 keeps every column row 16-byte aligned). */
#define KJ_I8_T 16
#define KJ_I8_KPAD 16

/* y[n, co, j] (i32) = sum over r = c*kvol + tap of w[co, r] * the input
 * value that tap meets at output position j (0 in the padding), + b[co]:
 * one implicit GEMM per (image, group) with the group's output channels as
 * rows, output positions as columns and r as the reduction; 16 x 16 tiles
 * of w and of the gathered input (im2col done on the fly) through shared
 * memory, int32 accumulation (exact: |sum| < 2^31 for K <= 131072).  Tile
 * loops are uniform across a block, so the barriers are safe. */
__global__ void conv_i8_k(kjc_geom g, const int8_t *__restrict__ x, const int8_t *__restrict__ w,
			  const int32_t *__restrict__ b, int32_t *__restrict__ y)
{
	__shared__ int32_t tw[KJ_I8_T][KJ_I8_T + 1], tx[KJ_I8_T][KJ_I8_T + 1];
	int lx = threadIdx.x, ly = threadIdx.y;
	int64_t cig = g.cin / g.groups, cog = g.cout / g.groups, kvol = kjc_vol(g.k);
	int64_t ivol = kjc_vol(g.in), P = kjc_vol(g.out), K = cig * kvol;
	int64_t j = (int64_t)blockIdx.x * KJ_I8_T + lx;
	int64_t o2 = j % g.out[2], o1 = (j / g.out[2]) % g.out[1], o0 = j / (g.out[2] * g.out[1]);
	int64_t b0 = o0 * g.s[0] - g.p[0], b1 = o1 * g.s[1] - g.p[1], b2 = o2 * g.s[2] - g.p[2];

	for (int64_t z = blockIdx.z; z < g.N * g.groups; z += gridDim.z) {
		int64_t bn = z / g.groups, gr = z % g.groups;
		const int8_t *xg = x + (bn * g.cin + gr * cig) * ivol;
		const int8_t *wg = w + gr * cog * K;
		for (int64_t r0 = (int64_t)blockIdx.y * KJ_I8_T; r0 < cog;
		     r0 += (int64_t)gridDim.y * KJ_I8_T) {
			int64_t row = r0 + ly;
			int32_t acc = 0;
			for (int64_t k0 = 0; k0 < K; k0 += KJ_I8_T) {
				int64_t kw = k0 + lx, kx = k0 + ly;
				int32_t v = 0;
				tw[ly][lx] = row < cog && kw < K ? (int32_t)wg[row * K + kw] : 0;
				if (j < P && kx < K) {
					int64_t c = kx / kvol, t = kx % kvol;
					int64_t i0 = b0 + t / (g.k[2] * g.k[1]) * g.d[0];
					int64_t i1 = b1 + (t / g.k[2]) % g.k[1] * g.d[1];
					int64_t i2 = b2 + t % g.k[2] * g.d[2];
					if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 &&
					    i2 < g.in[2])
						v = xg[c * ivol + (i0 * g.in[1] + i1) * g.in[2] + i2];
				}
				tx[ly][lx] = v;
				__syncthreads();
#pragma unroll
				for (int k = 0; k < KJ_I8_T; k++)
					acc += tw[ly][k] * tx[k][lx];
				__syncthreads();
			}
			if (row < cog && j < P)
				y[(bn * g.cout + gr * cog + row) * P + j] = acc + (b ? b[gr * cog + row] : 0);
		}
	}
}

/* wp[co, r] = w[co, r] for r < K, 0 for K <= r < Kp: the weight with its
 * reduction padded for cuBLAS. */
__global__ void wpad_i8_k(const int8_t *__restrict__ w, int8_t *__restrict__ wp, int64_t K,
			  int64_t Kp, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride) {
		int64_t co = idx / Kp, r = idx % Kp;
		wp[idx] = r < K ? w[co * K + r] : (int8_t)0;
	}
}

/* The i8 columns of images n0 <= n < n0 + nb, group gr: col[(b*P + j)*Kp
 * + c*kvol + tap] = the input value that tap of channel c meets at output
 * position j (0 in the padding), and 0 for reductions K <= r < Kp.  One
 * thread per (image, position, channel) writes that channel's kvol taps;
 * channels run fastest, so a warp writes one contiguous run.  The caller
 * keeps nb * P * Kp below 2^31, so 32-bit index arithmetic serves. */
__global__ void im2col_i8_k(kjc_geom g, const int8_t *__restrict__ x, int8_t *__restrict__ col,
			    int64_t n0, int64_t gr, unsigned nb, unsigned Kp)
{
	unsigned cig = (unsigned)(g.cin / g.groups), P = (unsigned)kjc_vol(g.out);
	unsigned kvol = (unsigned)kjc_vol(g.k), K = cig * kvol, total = nb * P * cig;
	unsigned out1 = (unsigned)g.out[1], out2 = (unsigned)g.out[2];
	int64_t ivol = kjc_vol(g.in);
	for (unsigned idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total;
	     idx += gridDim.x * blockDim.x) {
		unsigned c = idx % cig, rj = idx / cig, j = rj % P, bi = rj / P;
		unsigned o2 = j % out2, o1 = (j / out2) % out1, o0 = j / (out2 * out1);
		const int8_t *xc = x + ((n0 + bi) * g.cin + gr * cig + c) * ivol;
		int8_t *dst = col + (size_t)rj * Kp + (size_t)c * kvol;
		for (int64_t k0 = 0; k0 < g.k[0]; k0++) {
			int64_t i0 = (int64_t)o0 * g.s[0] - g.p[0] + k0 * g.d[0];
			int ok0 = i0 >= 0 && i0 < g.in[0];
			for (int64_t k1 = 0; k1 < g.k[1]; k1++) {
				int64_t i1 = (int64_t)o1 * g.s[1] - g.p[1] + k1 * g.d[1];
				int ok1 = ok0 && i1 >= 0 && i1 < g.in[1];
				for (int64_t k2 = 0; k2 < g.k[2]; k2++) {
					int64_t i2 = (int64_t)o2 * g.s[2] - g.p[2] + k2 * g.d[2];
					*dst++ = ok1 && i2 >= 0 && i2 < g.in[2]
							 ? xc[(i0 * g.in[1] + i1) * g.in[2] + i2]
							 : (int8_t)0;
				}
			}
		}
		if (c == cig - 1)
			for (unsigned r = K; r < Kp; r++)
				col[(size_t)rj * Kp + r] = 0;
	}
}

/* y[n, c, :] += b[c] over [N, C, vol] of i32. */
__global__ void bias_i32_k(int32_t *__restrict__ y, const int32_t *__restrict__ b, int64_t C,
			   int64_t vol, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < n; idx += stride)
		y[idx] += b[(idx / vol) % C];
}

static int conv_i8_direct(kj_gpu *g, const kjc_geom &ge, const int8_t *x, const int8_t *w,
			  const int32_t *b, int32_t *y, struct kj_err *err)
{
	int64_t cog = ge.cout / ge.groups, P = kjc_vol(ge.out), z = ge.N * ge.groups;
	int64_t gx = (P + KJ_I8_T - 1) / KJ_I8_T, gy = (cog + KJ_I8_T - 1) / KJ_I8_T;
	if (gx > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "conv (i8): %lld output positions are too many",
				  (long long)P);
	dim3 grid((unsigned)gx, (unsigned)(gy < 65535 ? gy : 65535), (unsigned)(z < 65535 ? z : 65535)),
		block(KJ_I8_T, KJ_I8_T);
	conv_i8_k<<<grid, block, 0, g->stream>>>(ge, x, w, b, y);
	KJ_LAUNCH_CHECK(err, "conv (i8)");
	return 0;
}

/* The i8 GEMM route of conv_i8: *done = 1 when it computed y (without the
 * bias), 0 when cuBLAS refused the shape (nothing to undo: the caller
 * rewrites every output).  Per group and chunk of nb images: the columns
 * [nb, P, Kp] into d->col after the padded weight [C_out, Kp], then one
 * cublasGemmStridedBatchedEx (CUDA_R_8I in, CUDA_R_32I out,
 * CUBLAS_COMPUTE_32I): in column-major terms y_img^T [P, cog] = col^T (op
 * T, ld Kp) x wp_group (ld Kp), written straight into y's [cog, P] block
 * of each image (ldc P, stride C_out * P). */
static int conv_i8_gemm(kj_gpu *g, struct kj_dnn *d, const kjc_geom &ge, const int8_t *x,
			const int8_t *w, int32_t *y, int *done, struct kj_err *err)
{
	int64_t cig = ge.cin / ge.groups, cog = ge.cout / ge.groups, kvol = kjc_vol(ge.k);
	int64_t K = cig * kvol, Kp = (K + KJ_I8_KPAD - 1) / KJ_I8_KPAD * KJ_I8_KPAD;
	int64_t P = kjc_vol(ge.out);
	size_t wpb = ((size_t)(ge.cout * Kp) + 255) & ~(size_t)255;
	int8_t *wp = (int8_t *)d->col, *col = (int8_t *)d->col + wpb;
	int64_t nb = (int64_t)((KJ_DNN_COL_BYTES - wpb) / (size_t)(P * Kp));
	const int32_t one = 1, zero = 0;

	*done = 0;
	if (nb > ge.N)
		nb = ge.N;
	wpad_i8_k<<<kj_blocks(g, ge.cout * Kp, 256), 256, 0, g->stream>>>(w, wp, K, Kp, ge.cout * Kp);
	KJ_LAUNCH_CHECK(err, "conv (i8) weight padding");
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	for (int64_t gr = 0; gr < ge.groups; gr++)
		for (int64_t n0 = 0; n0 < ge.N; n0 += nb) {
			int64_t m = ge.N - n0 < nb ? ge.N - n0 : nb;
			cublasStatus_t st;
			im2col_i8_k<<<kj_blocks(g, m * P * cig, 256), 256, 0, g->stream>>>(
				ge, x, col, n0, gr, (unsigned)m, (unsigned)Kp);
			KJ_LAUNCH_CHECK(err, "conv (i8) im2col");
			st = cublasGemmStridedBatchedEx(g->blas, CUBLAS_OP_T, CUBLAS_OP_N, (int)P, (int)cog,
							(int)Kp, &one, col, CUDA_R_8I, (int)Kp, P * Kp,
							wp + gr * cog * Kp, CUDA_R_8I, (int)Kp, 0, &zero,
							y + (n0 * ge.cout + gr * cog) * P, CUDA_R_32I, (int)P,
							ge.cout * P, (int)m, CUBLAS_COMPUTE_32I,
							CUBLAS_GEMM_DEFAULT);
			if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_INVALID_VALUE)
				return 0;
			if (st != CUBLAS_STATUS_SUCCESS)
				return kj_err_set(err, KJ_E_CUDA, "conv (i8): cublasGemmStridedBatchedEx failed: %s",
						  cublasGetStatusString(st));
		}
	*done = 1;
	return 0;
}

/* The i8 conv route KJ_CONV_I8 forces, for tests: 0 none (auto), 1
 * "direct" (conv_i8_k always), 2 "gemm" (the cuBLAS route or an error). */
static int i8_route_forced(void)
{
	const char *v = kj_knob_str("KJ_CONV_I8");
	if (!strcmp(v, "direct"))
		return 1;
	if (!strcmp(v, "gemm"))
		return 2;
	return 0;
}

/* y (i32) = conv(x, w) + b on i8 x and w (b i32 or NULL), exactly: the
 * cuBLAS int8 GEMM route (conv_i8_gemm) where its rules hold and the shape
 * is GEMM-sized (P, the output positions per image, a multiple of 4 so
 * that each image's rows start 16-byte aligned; at least 8 output channels
 * and 32 reduction terms per group; one image's columns and the padded
 * weight within the column scratch), else, or when cuBLAS refuses, the
 * implicit-GEMM kernel conv_i8_k.  A bias is added after the GEMM. */
static int conv_i8(kj_gpu *g, const kjc_geom &ge, const int8_t *x, const int8_t *w,
		   const int32_t *b, int32_t *y, struct kj_err *err)
{
	int64_t cig = ge.cin / ge.groups, cog = ge.cout / ge.groups, kvol = kjc_vol(ge.k);
	int64_t K = cig * kvol, Kp = (K + KJ_I8_KPAD - 1) / KJ_I8_KPAD * KJ_I8_KPAD;
	int64_t P = kjc_vol(ge.out), ny = ge.N * ge.cout * P;
	size_t wpb = ((size_t)(ge.cout * Kp) + 255) & ~(size_t)255;
	int force = i8_route_forced(), rc, done = 0;
	int fits = P % 4 == 0 && cog >= 8 && K >= 32 && P <= INT_MAX && cog <= INT_MAX &&
		   wpb < KJ_DNN_COL_BYTES && (size_t)(P * Kp) <= KJ_DNN_COL_BYTES - wpb;
	struct kj_dnn *d;

	if (fits && force != 1) {
		if ((rc = dnn_get(g, &d, err)) || (rc = dnn_col(d, err)) ||
		    (rc = conv_i8_gemm(g, d, ge, x, w, y, &done, err)))
			return rc;
	}
	if (!done && force == 2)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "conv (i8): KJ_CONV_I8=gemm, but %s",
				  fits ? "cuBLAS refused the int8 GEMM"
				       : "the cuBLAS route does not apply to this shape");
	if (!done)
		return conv_i8_direct(g, ge, x, w, b, y, err);
	if (b) {
		bias_i32_k<<<kj_blocks(g, ny, 256), 256, 0, g->stream>>>(y, b, ge.cout, P, ny);
		KJ_LAUNCH_CHECK(err, "conv (i8) bias");
	}
	return 0;
}

/* ---- the reference ---- */

static int ref_conv(kj_gpu *g, const kjc_geom &ge, const double *x, const double *w,
		    const double *b, double *y, struct kj_err *err)
{
	int64_t cig = ge.cin / ge.groups, cog = ge.cout / ge.groups, kvol = kjc_vol(ge.k);
	int64_t K = cig * kvol, ovol = kjc_vol(ge.out), ivol = kjc_vol(ge.in);
	int64_t n = ge.N * ge.cout * ovol, cap = (int64_t)(KJ_DNN_COL_BYTES / sizeof(double));
	struct kj_dnn *d;
	int rc;

	if (K <= KJ_DIRECT_TERMS || K > cap || K > INT_MAX || ovol > INT_MAX || cog > INT_MAX) {
		conv_direct_k<<<kj_blocks(g, n, 256), 256, 0, g->stream>>>(ge, x, w, b, y, n);
		KJ_LAUNCH_CHECK(err, "conv reference");
		return 0;
	}
	if ((rc = dnn_get(g, &d, err)) || (rc = dnn_col(d, err)))
		return rc;
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	int64_t cn = cap / K < ovol ? cap / K : ovol;
	const double one = 1.0, zero = 0.0;
	for (int64_t bn = 0; bn < ge.N; bn++)
		for (int64_t gr = 0; gr < ge.groups; gr++) {
			const double *xg = x + (bn * ge.cin + gr * cig) * ivol;
			const double *wg = w + gr * cog * K;
			double *yg = y + (bn * ge.cout + gr * cog) * ovol;
			for (int64_t j0 = 0; j0 < ovol; j0 += cn) {
				int64_t m = ovol - j0 < cn ? ovol - j0 : cn;
				im2col_k<<<kj_blocks(g, K * m, 256), 256, 0, g->stream>>>(ge, xg, d->col, K,
											  j0, m);
				KJ_LAUNCH_CHECK(err, "conv reference im2col");
				KJ_CUBLAS_CHECK(err, cublasDgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)m,
								 (int)cog, (int)K, &one, d->col, (int)m, wg,
								 (int)K, &zero, yg + j0, (int)ovol));
			}
		}
	if (b) {
		bias_nc_k<<<kj_blocks(g, n, 256), 256, 0, g->stream>>>(y, b, ge.cout, ovol, n);
		KJ_LAUNCH_CHECK(err, "conv reference bias");
	}
	return 0;
}

static int ref_convt(kj_gpu *g, const kjc_geom &ge, const double *x, const double *w,
		     const double *b, double *y, struct kj_err *err)
{
	int64_t cig = ge.cin / ge.groups, cog = ge.cout / ge.groups, kvol = kjc_vol(ge.k);
	int64_t ovol = kjc_vol(ge.out), ivol = kjc_vol(ge.in), R = cog * kvol;
	int64_t n = ge.N * ge.cout * ovol, cap = (int64_t)(KJ_DNN_COL_BYTES / sizeof(double));
	struct kj_dnn *d;
	int rc;

	if (cig * kvol <= KJ_DIRECT_TERMS || kvol * ivol > cap || ivol > INT_MAX || R > INT_MAX ||
	    cig > INT_MAX) {
		convt_direct_k<<<kj_blocks(g, n, 256), 256, 0, g->stream>>>(ge, x, w, b, y, n);
		KJ_LAUNCH_CHECK(err, "conv_transpose reference");
		return 0;
	}
	if ((rc = dnn_get(g, &d, err)) || (rc = dnn_col(d, err)))
		return rc;
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	int64_t cc = cap / (kvol * ivol) < cog ? cap / (kvol * ivol) : cog;
	const double one = 1.0, zero = 0.0;
	for (int64_t bn = 0; bn < ge.N; bn++)
		for (int64_t gr = 0; gr < ge.groups; gr++) {
			const double *xg = x + (bn * ge.cin + gr * cig) * ivol;
			const double *wg = w + gr * cig * R;
			double *yg = y + (bn * ge.cout + gr * cog) * ovol;
			for (int64_t co0 = 0; co0 < cog; co0 += cc) {
				int64_t m = cog - co0 < cc ? cog - co0 : cc;
				KJ_CUBLAS_CHECK(err, cublasDgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_T, (int)ivol,
								 (int)(m * kvol), (int)cig, &one, xg,
								 (int)ivol, wg + co0 * kvol, (int)R, &zero,
								 d->col, (int)ivol));
				col2im_k<<<kj_blocks(g, m * ovol, 256), 256, 0, g->stream>>>(
					ge, d->col, b, yg, co0, m, gr * cog);
				KJ_LAUNCH_CHECK(err, "conv_transpose reference col2im");
			}
		}
	return 0;
}

/* ---- the op functions ---- */

/* Adaptive average pooling to one element per plane (global average
 * pooling): a block per plane sums it with 16-byte loads where the plane
 * allows, instead of a thread per output walking its whole window (5.9x
 * slower than PyTorch inside a level-2 task on the H200). */
template <class T>
__global__ void __launch_bounds__(256) global_avg_k(const T *__restrict__ x, T *__restrict__ y,
						     int64_t planes, int64_t len)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	__shared__ A red[32];
	const int per = 16 / (int)sizeof(T);
	for (int64_t p = blockIdx.x; p < planes; p += gridDim.x) {
		const T *xp = x + p * len;
		A acc = 0;
		int64_t head = 0;
		if (per > 1 && ((uintptr_t)xp & 15) == 0) {
			int64_t nv = len / per;
			const uint4 *v = (const uint4 *)xp;
			for (int64_t i = threadIdx.x; i < nv; i += blockDim.x) {
				uint4 q = v[i];
				const T *e = (const T *)&q;
				for (int k = 0; k < per; k++)
					acc += tt::ld(e[k]);
			}
			head = nv * per;
		}
		for (int64_t i = head + threadIdx.x; i < len; i += blockDim.x)
			acc += tt::ld(xp[i]);
		acc = kj_block_merge<R_add<A>>(acc, red);
		if (threadIdx.x == 0)
			y[p] = tt::st(acc / (A)len);
	}
}

static int global_avg(kj_gpu *g, const kjc_geom &ge, kj_dtype dt, int reference, const void *x,
		      void *y, struct kj_err *err)
{
	int64_t planes = ge.N * ge.cin, len = kjc_vol(ge.in);
	unsigned blocks = (unsigned)(planes < (int64_t)g->info.sm_count * 16 ? planes
									   : (int64_t)g->info.sm_count * 16);
	if (reference)
		global_avg_k<double><<<blocks, 256, 0, g->stream>>>((const double *)x, (double *)y, planes, len);
	else if (dt == KJ_F16)
		global_avg_k<__half><<<blocks, 256, 0, g->stream>>>((const __half *)x, (__half *)y, planes, len);
	else if (dt == KJ_BF16)
		global_avg_k<__nv_bfloat16><<<blocks, 256, 0, g->stream>>>(
			(const __nv_bfloat16 *)x, (__nv_bfloat16 *)y, planes, len);
	else
		global_avg_k<float><<<blocks, 256, 0, g->stream>>>((const float *)x, (float *)y, planes, len);
	KJ_LAUNCH_CHECK(err, "global average pooling");
	return 0;
}

static int pool_kernel(kj_gpu *g, const kjc_geom &ge, kj_dtype dt, int reference, const void *x,
		       void *y, struct kj_err *err)
{
	int64_t n = ge.N * ge.cout * kjc_vol(ge.out), nin = ge.N * ge.cin * kjc_vol(ge.in);
	unsigned blocks = kj_blocks(g, n, 256);
	/* 32-bit indices when no index, nor one grid stride past the last, can
	 * pass INT_MAX */
	int narrow = n < (int64_t)INT_MAX - ((int64_t)1 << 26) && nin < (int64_t)INT_MAX - ((int64_t)1 << 26);
#define KJ_POOL_LAUNCH_I(T, I)                                                               \
	do {                                                                                 \
		pool_g<I> pg = pool_geom<I>(ge);                                             \
		if (ge.kind == KJC_MAXPOOL)                                                  \
			max_pool_k<T, I><<<blocks, 256, 0, g->stream>>>(pg, (const T *)x, (T *)y, (I)n); \
		else if (ge.kind == KJC_AVGPOOL)                                             \
			avg_pool_k<T, I, 0><<<blocks, 256, 0, g->stream>>>(pg, (const T *)x, (T *)y, (I)n); \
		else                                                                         \
			avg_pool_k<T, I, 1><<<blocks, 256, 0, g->stream>>>(pg, (const T *)x, (T *)y, (I)n); \
	} while (0)
#define KJ_POOL_LAUNCH(T)                                                                    \
	do {                                                                                 \
		if (narrow)                                                                  \
			KJ_POOL_LAUNCH_I(T, int);                                            \
		else                                                                         \
			KJ_POOL_LAUNCH_I(T, int64_t);                                        \
	} while (0)
	if (reference)
		KJ_POOL_LAUNCH(double);
	else if (dt == KJ_F16)
		KJ_POOL_LAUNCH(__half);
	else if (dt == KJ_BF16)
		KJ_POOL_LAUNCH(__nv_bfloat16);
	else
		KJ_POOL_LAUNCH(float);
#undef KJ_POOL_LAUNCH
#undef KJ_POOL_LAUNCH_I
	KJ_LAUNCH_CHECK(err, "pooling");
	return 0;
}

/* Images per cuDNN call for a batch of N images of per elements (the
 * larger of input and output): all of them unless the batch passes
 * KJ_CUDNN_SLICE elements (cuDNN's 32-bit limit by default) and one image
 * fits. */
static int64_t cudnn_slice(int64_t N, int64_t per)
{
	int64_t lim = kj_knob_int("KJ_CUDNN_SLICE");
	return per > 0 && per <= lim && N * per > lim ? lim / per : N;
}

/* A pool cuDNN does not take (one image past 32-bit sizes, dilation, ceil
 * mode, the adaptive pools, the reference): a 2-D float pool of the
 * baseline goes to the direct kernel of ops_window2d.cu where it applies
 * (measured on the H200 at N=16 C=64 2048x2048, 3x3: 1.36x PyTorch's time
 * against the generic kernel's 1.49x; where cuDNN takes a pool, it stays
 * faster: 1.50x for the direct kernel at N=64 C=64 512x512), else the
 * generic kernel. */
static int pool_other(kj_gpu *g, kjc_geom *ge, kj_dtype dt, int reference, int kind, const void *x, void *y,
		      struct kj_err *err)
{
	if (!reference && kind != KJC_ADAPTIVE) {
		int done, rc;
		if ((rc = kj_window2d(g, ge, dt, x, NULL, NULL, y, &done, err)) || done)
			return rc;
	}
	return pool_kernel(g, *ge, dt, reference, x, y, err);
}

static int pools(kj_gpu *g, const kj_bnode *nd, int kind, const void *const *in, void *out,
		 int reference, struct kj_err *err)
{
	kjc_geom ge;
	struct kj_dnn *d;
	struct dnn_plan *p;
	kj_dtype dt = nd->in[0].dtype;
	int rc;

	kjc_geom_of(nd, kind, 0, &ge, NULL, 0);
	if (ge.N * ge.cout * kjc_vol(ge.out) == 0)
		return 0;
	if (kind == KJC_ADAPTIVE && kjc_vol(ge.out) == 1 && ge.cin == ge.cout && kjc_vol(ge.in) > 1)
		return global_avg(g, ge, dt, reference, in[0], out, err);
	/* cuDNN's descriptors take 32-bit strides: a tensor past INT_MAX
	 * elements goes to cuDNN in slices of whole images that fit (measured
	 * on the H200 at N=16 C=64 2048x2048, 3x3, 4.3e9 elements: the direct
	 * kernel ran 1.37x PyTorch's time, its bandwidth 47% of the copy's) */
	int64_t img_in = ge.cin * kjc_vol(ge.in), img_out = ge.cout * kjc_vol(ge.out);
	int64_t per = img_in > img_out ? img_in : img_out;
	if (reference || kind == KJC_ADAPTIVE || !KJ_POOL_CUDNN || per > INT_MAX)
		return pool_other(g, &ge, dt, reference, kind, in[0], out, err);
	int64_t slice = cudnn_slice(ge.N, per); /* images per cuDNN call */
	if ((rc = dnn_get(g, &d, err)))
		return rc;
	size_t es = kj_dtype_size(dt);
	for (int64_t n0 = 0; n0 < ge.N; n0 += slice) {
		kjc_geom gs = ge;
		gs.N = ge.N - n0 < slice ? ge.N - n0 : slice;
		const char *x = (const char *)in[0] + (size_t)(n0 * img_in) * es;
		char *y = (char *)out + (size_t)(n0 * img_out) * es;
		if ((rc = plan_get(g, d, &gs, dt, &p, err)))
			return rc;
		if (!p->use_pool) {
			if ((rc = pool_other(g, &gs, dt, 0, kind, x, y, err)))
				return rc;
			continue;
		}
		const float one = 1.0f, zero = 0.0f;
		/* cuDNN 9 can refuse a shape whose descriptors it accepted
		 * (LeNet's batch of 65536 on the H200); such a plan keeps our
		 * kernel from then on, which writes every output. */
		if (cudnnPoolingForward(d->h, p->pool, &one, p->x, x, &zero, p->y, y) != CUDNN_STATUS_SUCCESS) {
			p->use_pool = 0;
			if ((rc = pool_kernel(g, gs, dt, 0, x, y, err)))
				return rc;
		}
	}
	return 0;
}

/* ---- channels-last route of 16-bit forward convs ---- */

/* cuDNN's fast tensor-core kernels for f16/bf16 take channels-last data:
 * in NCHW it offered only legacy algorithms for conv2d_f16 (x [128, 64,
 * 256, 256], 3x3), 14.8 ms against PyTorch's 4.8 ms on the H200.  So the
 * first call of a 16-bit forward conv also times the sequence x NCHW ->
 * NHWC, w KCRS -> KRSC, cudnnConvolutionForward in NHWC (its algorithm
 * found by cudnnFindConvolutionForwardAlgorithmEx on the copies), y NHWC ->
 * NCHW, and the plan keeps it when it beats the NCHW algorithm (both timed
 * with events on the stream, transposes included).  KJ_CONV_LAYOUT=nchw
 * or nhwc in the environment skips the timing and takes that layout
 * (nhwc where cuDNN accepts it), for tests. */

#define KJ_TR_TILE 64

/* out[b, c, r] = in[b, r, c] over [B, R, C] of 16-bit elements: a 64x64
 * tile per block through shared memory, both sides read and written along
 * their contiguous dim; a full tile's 16 loads per thread are issued before
 * the first store (as the transpose of ops_shape.cu); the row pitch of 66
 * halves (33 words) keeps the column reads free of bank conflicts.  Blocks
 * stride over the tiles. */
__global__ void __launch_bounds__(256) transpose16_k(const uint16_t *__restrict__ in,
						       uint16_t *__restrict__ out, int64_t R,
						       int64_t C, int64_t tr, int64_t tc, int64_t ntile)
{
	__shared__ uint16_t tile[KJ_TR_TILE][KJ_TR_TILE + 2];
	int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
	for (int64_t t = blockIdx.x; t < ntile; t += gridDim.x) {
		int64_t b = t / (tr * tc), rem = t % (tr * tc);
		int64_t r0 = rem / tc * KJ_TR_TILE, c0 = rem % tc * KJ_TR_TILE;
		const uint16_t *src = in + b * R * C + r0 * C + c0;
		uint16_t *dst = out + b * R * C + c0 * R + r0;
		if (r0 + KJ_TR_TILE <= R && c0 + KJ_TR_TILE <= C) {
			uint16_t v[16];
#pragma unroll
			for (int k = 0; k < 16; k++)
				v[k] = src[(int64_t)(ty + 8 * (k >> 1)) * C + tx + 32 * (k & 1)];
#pragma unroll
			for (int k = 0; k < 16; k++)
				tile[ty + 8 * (k >> 1)][tx + 32 * (k & 1)] = v[k];
		} else {
			for (int i = ty; i < KJ_TR_TILE && r0 + i < R; i += 8)
				for (int j = tx; j < KJ_TR_TILE && c0 + j < C; j += 32)
					tile[i][j] = src[(int64_t)i * C + j];
		}
		__syncthreads();
		for (int i = ty; i < KJ_TR_TILE && c0 + i < C; i += 8)
			for (int j = tx; j < KJ_TR_TILE && r0 + j < R; j += 32)
				dst[(int64_t)i * R + j] = tile[j][i];
		__syncthreads();
	}
}

/* [B, R, C] -> [B, C, R] of 16-bit elements (a copy when R or C is 1). */
static int transpose16(kj_gpu *g, const void *in, void *out, int64_t B, int64_t R, int64_t C,
		       struct kj_err *err)
{
	if (R == 1 || C == 1) {
		KJ_CUDA_CHECK(err, cudaMemcpyAsync(out, in, (size_t)(B * R * C) * sizeof(uint16_t),
						   cudaMemcpyDeviceToDevice, g->stream));
		return 0;
	}
	int64_t tr = (R + KJ_TR_TILE - 1) / KJ_TR_TILE, tc = (C + KJ_TR_TILE - 1) / KJ_TR_TILE;
	int64_t ntile = B * tr * tc, cap = (int64_t)g->info.sm_count * 8;
	if (cap < 1)
		cap = 1;
	transpose16_k<<<(unsigned)(ntile < cap ? ntile : cap), 256, 0, g->stream>>>(
		(const uint16_t *)in, (uint16_t *)out, R, C, tr, tc, ntile);
	KJ_LAUNCH_CHECK(err, "conv layout transpose");
	return 0;
}

/* 0: time both layouts; 1: NCHW; 2: NHWC where cuDNN takes it. */
static int layout_forced(void)
{
	const char *v = kj_knob_str("KJ_CONV_LAYOUT");
	if (!strcmp(v, "nchw"))
		return 1;
	if (!strcmp(v, "nhwc"))
		return 2;
	return 0;
}

/* p's NHWC descriptors and the layout of d->tr. */
static int plan_nhwc(struct dnn_plan *p, struct kj_err *err)
{
	const kjc_geom *ge = &p->g;
	int ndc = ge->nd < 2 ? 2 : ge->nd, wd[5], rc;
	int64_t cig = ge->cin / ge->groups;
	size_t nx = (size_t)(ge->N * ge->cin * kjc_vol(ge->in)),
	       nw = (size_t)(ge->cout * cig * kjc_vol(ge->k)),
	       ny = (size_t)(ge->N * ge->cout * kjc_vol(ge->out)), al = 255;

	if ((rc = dnn_tensor_nhwc(&p->xh, p->dt, ge->nd, ge->N, ge->cin, ge->in, err)) ||
	    (rc = dnn_tensor_nhwc(&p->yh, p->dt, ge->nd, ge->N, ge->cout, ge->out, err)))
		return rc;
	if (ge->cout > INT_MAX || cig > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "cuDNN: filter dims exceed 32 bits");
	wd[0] = (int)ge->cout;
	wd[1] = (int)cig;
	for (int i = 0; i < ndc; i++)
		wd[2 + i] = (int)ge->k[3 - ndc + i];
	KJ_CUDNN_CHECK(err, cudnnCreateFilterDescriptor(&p->wh));
	KJ_CUDNN_CHECK(err, cudnnSetFilterNdDescriptor(p->wh, dnn_type(p->dt), CUDNN_TENSOR_NHWC,
						       ndc + 2, wd));
	if ((rc = conv_desc(ge, &p->convh, CUDNN_TENSOR_OP_MATH, err)))
		return rc;
	p->wo = (nx * sizeof(uint16_t) + al) & ~al;
	p->yo = p->wo + ((nw * sizeof(uint16_t) + al) & ~al);
	p->trb = p->yo + ny * sizeof(uint16_t);
	return 0;
}

/* y = conv(x, w) through the NHWC copies in d->tr (of p->trb bytes or
 * more): x and w transposed in, the conv, y transposed out. */
static int conv_nhwc(kj_gpu *g, struct kj_dnn *d, struct dnn_plan *p, const void *x, const void *w,
		     void *y, struct kj_err *err)
{
	const kjc_geom *ge = &p->g;
	char *xh = (char *)d->tr, *wh = xh + p->wo, *yh = xh + p->yo;
	const float one = 1.0f, zero = 0.0f;
	int rc;

	if ((rc = transpose16(g, x, xh, ge->N, ge->cin, kjc_vol(ge->in), err)) ||
	    (rc = transpose16(g, w, wh, ge->cout, ge->cin / ge->groups, kjc_vol(ge->k), err)))
		return rc;
	KJ_CUDNN_CHECK(err, cudnnConvolutionForward(d->h, &one, p->xh, xh, p->wh, wh, p->convh,
						    (cudnnConvolutionFwdAlgo_t)p->algoh, d->ws, p->wsh,
						    &zero, p->yh, yh));
	return transpose16(g, yh, y, ge->N, kjc_vol(ge->out), ge->cout, err);
}

/* *ms = the mean time of reps calls in NCHW (nhwc 0, p->algo: forward, or
 * backward-data for a transposed conv) or through conv_nhwc (nhwc 1), after
 * one untimed call. */
static int time_conv(kj_gpu *g, struct kj_dnn *d, struct dnn_plan *p, int nhwc,
		     const void *const *in, void *out, int reps, cudaEvent_t e0, cudaEvent_t e1,
		     float *ms, struct kj_err *err)
{
	const float one = 1.0f, zero = 0.0f;
	int rc;
	for (int i = -1; i < reps; i++) {
		if (i == 0)
			KJ_CUDA_CHECK(err, cudaEventRecord(e0, g->stream));
		if (nhwc) {
			if ((rc = conv_nhwc(g, d, p, in[0], in[1], out, err)))
				return rc;
		} else if (p->g.kind != KJC_CONV) {
			KJ_CUDNN_CHECK(err, cudnnConvolutionBackwardData(
						    d->h, &one, p->w, in[1], p->x, in[0], p->conv,
						    (cudnnConvolutionBwdDataAlgo_t)p->algo, d->ws, p->ws, &zero,
						    p->y, out));
		} else {
			KJ_CUDNN_CHECK(err, cudnnConvolutionForward(
						    d->h, &one, p->x, in[0], p->w, in[1], p->conv,
						    (cudnnConvolutionFwdAlgo_t)p->algo, d->ws, p->ws, &zero,
						    p->y, out));
		}
	}
	KJ_CUDA_CHECK(err, cudaEventRecord(e1, g->stream));
	KJ_CUDA_CHECK(err, cudaEventSynchronize(e1));
	KJ_CUDA_CHECK(err, cudaEventElapsedTime(ms, e0, e1));
	*ms /= (float)reps;
	return 0;
}

/* Called by measure_algo once p's NCHW algorithm is chosen (d->ws holds
 * KJ_DNN_WS_CAP bytes; t_find: that algorithm's time in ms as FindEx
 * measured it): sets p->nhwc when the NHWC route is faster, else leaves p
 * in NCHW and gives back the NHWC buffers this grew.  Only CUDA failures
 * are errors; cuDNN refusing NHWC, or no memory for the copies, means
 * NCHW. */
static int try_nhwc(kj_gpu *g, struct kj_dnn *d, struct dnn_plan *p, const void *const *in,
		    void *out, float t_find, struct kj_err *err)
{
	int force = layout_forced(), ok = 0, cnt = 0, rc = 0, reps = t_find < 1.0f ? 10 : 3;
	size_t had = d->tr_bytes;
	float t_nchw = 0, t_nhwc = 0;
	cudaEvent_t e0 = NULL, e1 = NULL;
	cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
	char *xh, *wh, *yh;

	if (force == 1 || p->dt == KJ_F32 || p->g.kind != KJC_CONV)
		return 0;
	if (plan_nhwc(p, NULL))
		goto drop;
	if ((rc = tr_grow(g, d, p->trb, &ok, err)) || !ok)
		goto drop;
	xh = (char *)d->tr;
	wh = xh + p->wo;
	yh = xh + p->yo;
	if ((rc = transpose16(g, in[0], xh, p->g.N, p->g.cin, kjc_vol(p->g.in), err)) ||
	    (rc = transpose16(g, in[1], wh, p->g.cout, p->g.cin / p->g.groups, kjc_vol(p->g.k), err)))
		goto drop;
	if (cudnnFindConvolutionForwardAlgorithmEx(d->h, p->xh, xh, p->wh, wh, p->convh, p->yh, yh,
						   CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &cnt, perf, d->ws,
						   d->ws_bytes) != CUDNN_STATUS_SUCCESS ||
	    take_algo(p->dt, p->tf32, p->convh, &p->algoh, perf, cnt, "forward", "", NULL) ||
	    cudnnGetConvolutionForwardWorkspaceSize(d->h, p->xh, p->wh, p->convh, p->yh,
						    (cudnnConvolutionFwdAlgo_t)p->algoh,
						    &p->wsh) != CUDNN_STATUS_SUCCESS ||
	    p->wsh > d->ws_bytes)
		goto drop;
	if (force == 2) {
		p->nhwc = 1;
		return 0;
	}
	if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
		rc = kj_err_set(err, KJ_E_CUDA, "cudaEventCreate failed for the conv layout timing");
		goto drop;
	}
	if ((rc = time_conv(g, d, p, 0, in, out, reps, e0, e1, &t_nchw, err)))
		goto drop;
	if (time_conv(g, d, p, 1, in, out, reps, e0, e1, &t_nhwc, NULL)) {
		/* cuDNN refused to run what FindEx ran: NCHW, unless CUDA failed */
		cudaError_t ce = cudaStreamSynchronize(g->stream);
		if (ce != cudaSuccess)
			rc = kj_err_set(err, KJ_E_CUDA, "conv layout timing: %s", cudaGetErrorString(ce));
		goto drop;
	}
	if (t_nhwc < t_nchw) {
		p->nhwc = 1;
		cudaEventDestroy(e0);
		cudaEventDestroy(e1);
		return 0;
	}
drop:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	plan_drop_nhwc(p);
	if (d->tr_bytes > had)
		tr_free(g, d);
	return rc;
}

/* Times cuDNN's algorithms for p on the call's own buffers (cudnnFind...Ex
 * forward or backward-data, within d->ws) and sets p->algo and p->ws to the
 * first that take_algo allows (`exact`: no FFT or Winograd where another
 * qualifies); *t_find: FindEx's time of that algorithm in ms (0 if none). */
static int find_algo(struct kj_dnn *d, struct dnn_plan *p, const void *const *in, void *out, bool exact,
		     float *t_find, struct kj_err *err)
{
	int cnt = 0, rc;
	*t_find = 0;
	if (p->g.kind == KJC_CONV) {
		cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
		KJ_CUDNN_CHECK(err, cudnnFindConvolutionForwardAlgorithmEx(
					    d->h, p->x, in[0], p->w, in[1], p->conv, p->y, out,
					    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &cnt, perf, d->ws, d->ws_bytes));
		if ((rc = take_algo(p->dt, p->tf32, p->conv, &p->algo, perf, cnt, "forward", "this convolution", err,
				    exact)))
			return rc;
		KJ_CUDNN_CHECK(err, cudnnGetConvolutionForwardWorkspaceSize(
					    d->h, p->x, p->w, p->conv, p->y,
					    (cudnnConvolutionFwdAlgo_t)p->algo, &p->ws));
		for (int i = 0; i < cnt; i++)
			if ((int)perf[i].algo == p->algo && perf[i].status == CUDNN_STATUS_SUCCESS) {
				*t_find = perf[i].time;
				break;
			}
		return 0;
	}
	cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
	KJ_CUDNN_CHECK(err, cudnnFindConvolutionBackwardDataAlgorithmEx(
				    d->h, p->w, in[1], p->x, in[0], p->conv, p->y, out,
				    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, &cnt, perf, d->ws, d->ws_bytes));
	if ((rc = take_algo(p->dt, p->tf32, p->conv, &p->algo, perf, cnt, "backward-data", "this transposed convolution",
			    err, exact)))
		return rc;
	KJ_CUDNN_CHECK(err, cudnnGetConvolutionBackwardDataWorkspaceSize(
				    d->h, p->w, p->x, p->conv, p->y, (cudnnConvolutionBwdDataAlgo_t)p->algo,
				    &p->ws));
	for (int i = 0; i < cnt; i++)
		if ((int)perf[i].algo == p->algo && perf[i].status == CUDNN_STATUS_SUCCESS) {
			*t_find = perf[i].time;
			break;
		}
	return 0;
}

/* f32 with KJ_CONV_F32_FIND=1: the fastest GEMM-family algorithm cuDNN
 * measures (FindEx, FMA math, no FFT or Winograd) against the heuristic's
 * choice (p->algo, from plan_conv), timed here on the call's buffers, 3
 * calls each after a warm-up; the faster stays.  H200, 2026-11-30, with
 * FindEx's pick alone: conv_transpose3d 12.6 -> 4.6 ms, vgg_block's
 * 256-channel shape 4.56 -> 4.11, but conv_transpose2d N=16 CI=64 H=W=256
 * 2.23 -> 3.54 (1.6x PyTorch), hence this timing against the heuristic's
 * algorithm; it has not run on the GPU yet, so the default stays the
 * heuristic.  With FFT and Winograd allowed, the baseline failed the f32
 * tolerance on the outlier seed on 11 of 144 conv bench shapes. */
static int measure_f32(kj_gpu *g, struct kj_dnn *d, struct dnn_plan *p, const void *const *in,
		       void *out, struct kj_err *err)
{
	int rc = 0, heur = p->algo;
	size_t heur_ws = p->ws;
	float t_found = 0, t_heur = 0, t_find;
	cudaEvent_t e0 = NULL, e1 = NULL;
	if ((rc = find_algo(d, p, in, out, true, &t_find, err)))
		return rc;
	if (p->algo == heur)
		return 0;
	if (cudaEventCreate(&e0) != cudaSuccess || cudaEventCreate(&e1) != cudaSuccess) {
		rc = kj_err_set(err, KJ_E_CUDA, "cudaEventCreate failed for the conv algorithm timing");
		goto out;
	}
	if ((rc = time_conv(g, d, p, 0, in, out, 3, e0, e1, &t_found, err)))
		goto out;
	{
		int found = p->algo;
		size_t found_ws = p->ws;
		p->algo = heur;
		p->ws = heur_ws;
		if ((rc = time_conv(g, d, p, 0, in, out, 3, e0, e1, &t_heur, err)))
			goto out;
		if (t_found < t_heur) {
			p->algo = found;
			p->ws = found_ws;
		}
	}
out:
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	return rc;
}

/* The first call of a plan times cuDNN's algorithms on the call's own
 * buffers (cudnnFind...Ex, which writes the output, rewritten by the call)
 * and keeps the fastest that take_algo allows.  The legacy heuristics
 * (cudnnGet...Algorithm_v7) chose a 41 ms algorithm for a 16-bit conv that
 * PyTorch's cuDNN front end ran in 4.7 ms on the H200.  f32 keeps the
 * heuristic's choice unless KJ_CONV_F32_FIND=1 (measure_f32). */
static int measure_algo(kj_gpu *g, struct kj_dnn *d, struct dnn_plan *p, const void *const *in,
			void *out, struct kj_err *err)
{
	int rc;
	float t_find = 0;
	p->measured = 1;
	if (p->dt == KJ_F32 && !kj_knob_int("KJ_CONV_F32_FIND"))
		return 0;
	if ((rc = dnn_workspace(g, d, KJ_DNN_WS_CAP, err)))
		return rc;
	if (p->dt == KJ_F32) {
		if ((rc = measure_f32(g, d, p, in, out, err)))
			return rc;
		return dnn_workspace(g, d, p->ws, err);
	}
	KJ_CUDNN_CHECK(err, cudnnSetConvolutionMathType(p->conv, CUDNN_TENSOR_OP_MATH));
	if ((rc = find_algo(d, p, in, out, false, &t_find, err)))
		return rc;
	if (p->g.kind == KJC_CONV && (rc = try_nhwc(g, d, p, in, out, t_find, err)))
		return rc;
	return dnn_workspace(g, d, p->ws, err);
}

static int conv_cudnn(kj_gpu *g, const kjc_geom *ge, kj_dtype dt, int kind, const void *const *in,
		      const void *bias, void *out, struct kj_err *err);

static int convs(kj_gpu *g, const kj_bnode *nd, int kind, const void *const *in, void *out,
		 int reference, struct kj_err *err)
{
	kjc_geom ge;
	kj_dtype dt = nd->in[0].dtype;
	const void *bias = nd->present[2] ? in[2] : NULL;
	size_t es = reference ? 8 : kj_dtype_size(nd->out.dtype);
	int64_t ny;
	int rc;

	kjc_geom_of(nd, kind, 0, &ge, NULL, 0);
	ny = ge.N * ge.cout * kjc_vol(ge.out);
	if (ny == 0)
		return 0;
	if (ge.cin == 0 || kjc_vol(ge.in) == 0) {
		/* no term reaches any output: zero (or the bias), as the oracle */
		KJ_CUDA_CHECK(err, cudaMemsetAsync(out, 0, (size_t)ny * es, g->stream));
		if (!bias)
			return 0;
		if (!reference)
			return kj_err_set(err, KJ_E_UNSUPPORTED,
					  "%s: a bias over an empty input is not supported by the baseline",
					  nd->op->name);
		bias_nc_k<<<kj_blocks(g, ny, 256), 256, 0, g->stream>>>(
			(double *)out, (const double *)bias, ge.cout, kjc_vol(ge.out), ny);
		KJ_LAUNCH_CHECK(err, "conv bias");
		return 0;
	}
	if (!reference && dt == KJ_I8)
		return conv_i8(g, ge, (const int8_t *)in[0], (const int8_t *)in[1],
			       (const int32_t *)bias, (int32_t *)out, err);
	if (!reference && kind == KJC_CONV) {
		/* depthwise 2-D: the direct kernel (ops_window2d.cu) */
		int done;
		if ((rc = kj_window2d(g, &ge, dt, in[0], in[1], bias, out, &done, err)) || done)
			return rc;
	}
	if (reference) {
		if (kind == KJC_CONV)
			return ref_conv(g, ge, (const double *)in[0], (const double *)in[1],
					(const double *)bias, (double *)out, err);
		return ref_convt(g, ge, (const double *)in[0], (const double *)in[1],
				 (const double *)bias, (double *)out, err);
	}
	/* cuDNN's descriptors take 32-bit strides: a batch past INT_MAX
	 * elements goes to it in slices of whole images that fit (KernelBench's
	 * conv2d_pointwise, N=16 CI=64 1024x1024 CO=128, has 2^31 outputs) */
	{
		int64_t img_in = ge.cin * kjc_vol(ge.in), img_out = ge.cout * kjc_vol(ge.out);
		int64_t per = img_in > img_out ? img_in : img_out;
		int64_t slice = cudnn_slice(ge.N, per);
		size_t esi = kj_dtype_size(dt);
		for (int64_t n0 = 0; n0 < ge.N; n0 += slice) {
			kjc_geom gs = ge;
			const void *sin[3] = { (const char *)in[0] + (size_t)(n0 * img_in) * esi, in[1], bias };
			gs.N = ge.N - n0 < slice ? ge.N - n0 : slice;
			if ((rc = conv_cudnn(g, &gs, dt, kind, sin, bias, (char *)out + (size_t)(n0 * img_out) * es,
					     err)))
				return rc;
		}
	}
	return 0;
}

/* One cuDNN forward conv (kind KJC_CONV) or transposed conv (KJC_CONVT)
 * of the float baseline: x, w, bias (or NULL) into y, its plan (algorithm
 * measured at its first call) kept per geometry. */
static int conv_cudnn(kj_gpu *g, const kjc_geom *ge, kj_dtype dt, int kind, const void *const *in,
		      const void *bias, void *out, struct kj_err *err)
{
	struct kj_dnn *d;
	struct dnn_plan *p;
	int rc;
	if ((rc = dnn_get(g, &d, err)) || (rc = plan_get(g, d, ge, dt, &p, err)))
		return rc;
	if (!p->measured) {
		if ((rc = measure_algo(g, d, p, in, out, err)))
			return rc;
		/* KJ_CONV_LOG=1: each geometry's algorithm on stderr, for measurements */
		if (kj_knob_int("KJ_CONV_LOG"))
			fprintf(stderr, "kjudge conv: %s N=%lld cin=%lld cout=%lld %s algo %d ws %zu%s\n",
				kind == KJC_CONV ? "conv" : "convt", (long long)ge->N, (long long)ge->cin,
				(long long)ge->cout, kj_dtype_name(dt), p->nhwc ? p->algoh : p->algo,
				p->nhwc ? p->wsh : p->ws, p->nhwc ? " nhwc" : "");
	}
	const float one = 1.0f, zero = 0.0f;
	if (p->nhwc) {
		int ok = 0;
		if ((rc = tr_grow(g, d, p->trb, &ok, err)) || (rc = dnn_workspace(g, d, p->wsh, err)))
			return rc;
		if (!ok)
			plan_drop_nhwc(p); /* no memory for the copies now: NCHW from now on */
	}
	if (p->nhwc) {
		if ((rc = conv_nhwc(g, d, p, in[0], in[1], out, err)))
			return rc;
	} else if (kind == KJC_CONV) {
		KJ_CUDNN_CHECK(err, cudnnConvolutionForward(d->h, &one, p->x, in[0], p->w, in[1], p->conv,
							    (cudnnConvolutionFwdAlgo_t)p->algo, d->ws,
							    p->ws, &zero, p->y, out));
	} else {
		KJ_CUDNN_CHECK(err, cudnnConvolutionBackwardData(d->h, &one, p->w, in[1], p->x, in[0],
								 p->conv,
								 (cudnnConvolutionBwdDataAlgo_t)p->algo,
								 d->ws, p->ws, &zero, p->y, out));
	}
	if (bias)
		KJ_CUDNN_CHECK(err, cudnnAddTensor(d->h, &one, p->b, bias, &one, p->y, out));
	return 0;
}

int kj_cuda_conv(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	return convs(g, n, KJC_CONV, in, out, reference, err);
}

int kj_cuda_conv_transpose(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			   int reference, struct kj_err *err)
{
	return convs(g, n, KJC_CONVT, in, out, reference, err);
}

int kj_cuda_max_pool(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		     int reference, struct kj_err *err)
{
	return pools(g, n, KJC_MAXPOOL, in, out, reference, err);
}

int kj_cuda_avg_pool(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		     int reference, struct kj_err *err)
{
	return pools(g, n, KJC_AVGPOOL, in, out, reference, err);
}

int kj_cuda_adaptive_avg_pool(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			      int reference, struct kj_err *err)
{
	return pools(g, n, KJC_ADAPTIVE, in, out, reference, err);
}
