/*
 * CUDA baseline and fp64 reference of table F (src/ops/table_f.h):
 * linalg_solve_triangular, linalg_cholesky and interpolate.
 *
 * linalg_solve_triangular: B copied into the output, then cuBLAS's TRSM in
 * place there, as PyTorch eager does (cublasStrsm per matrix for a batch of
 * at most 8, cublasStrsmBatched beyond; Dtrsm for the reference).  cuBLAS is
 * column-major: a row-major n x k X is the column-major X^T, so A X = B is
 * solved as X^T A^T = B^T (side right) and X A = B as A^T X^T = B^T (side
 * left), with A^T's triangle the other one.  The batched call's pointer
 * arrays are written by a small kernel into g->workspace (in chunks that
 * fit it).
 *
 * linalg_cholesky: one thread block per matrix, left-looking by column in
 * the output buffer: column j's entries l_ij = a_ij - sum_k<j l_ik l_jk for
 * i >= j, then the square root of the pivot and the division; a
 * non-positive pivot gives NaN (the CPU kernels report it).  Float
 * accumulation for the baseline, double for the reference.
 *
 * interpolate: one thread per output element (grid-stride), source indices
 * and weights from table_f.h's float formulas (so the nearest index equals
 * the CPU's bit for bit), the blend in float (baseline, any float dtype) or
 * double (reference).  Nothing here allocates.
 */
#include <limits.h>

#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_f.h"
}

/* ---- linalg_solve_triangular ---- */

template <class T>
__global__ void trsm_ptrs_k(const T *a, T *x, int64_t sa, int64_t sx, int64_t cnt,
			    const T **pa, T **px)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += stride) {
		pa[i] = a + i * sa;
		px[i] = x + i * sx;
	}
}

static cublasStatus_t trsm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
			       cublasDiagType_t diag, int m, int nn, const float *a, int lda,
			       float *x, int ldx)
{
	const float one = 1.0f;
	return cublasStrsm(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx);
}

static cublasStatus_t trsm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
			       cublasDiagType_t diag, int m, int nn, const double *a, int lda,
			       double *x, int ldx)
{
	const double one = 1.0;
	return cublasDtrsm(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx);
}

static cublasStatus_t trsm_many(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
				cublasDiagType_t diag, int m, int nn, const float **a, int lda,
				float **x, int ldx, int cnt)
{
	const float one = 1.0f;
	return cublasStrsmBatched(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx,
				  cnt);
}

static cublasStatus_t trsm_many(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
				cublasDiagType_t diag, int m, int nn, const double **a, int lda,
				double **x, int ldx, int cnt)
{
	const double one = 1.0;
	return cublasDtrsmBatched(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx,
				  cnt);
}

template <class T>
static int trsm_run(kj_gpu *g, const kjf_trsm_geom *gm, const T *a, const T *b, T *x,
		    struct kj_err *err)
{
	int64_t sa = gm->n * gm->n, sx = gm->n * gm->k;
	/* row-major A's lower triangle is column-major A^T's upper one */
	cublasFillMode_t fill = gm->upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
	cublasSideMode_t side = gm->left ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
	cublasDiagType_t diag = gm->unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
	int m = (int)(gm->left ? gm->k : gm->n), nn = (int)(gm->left ? gm->n : gm->k);
	int ldx = m;
	if (gm->batch == 0 || sx == 0)
		return 0;
	if (gm->n > INT_MAX || gm->k > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_solve_triangular: n=%lld k=%lld "
				  "exceed cuBLAS's 32-bit sizes", (long long)gm->n, (long long)gm->k);
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(x, b, (size_t)(gm->batch * sx) * sizeof(T),
					   cudaMemcpyDeviceToDevice, g->stream));
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	KJ_CUBLAS_CHECK(err, cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
	if (gm->batch <= 8) {
		for (int64_t q = 0; q < gm->batch; q++)
			KJ_CUBLAS_CHECK(err, trsm_one(g->blas, side, fill, diag, m, nn, a + q * sa,
						      (int)gm->n, x + q * sx, ldx));
		return 0;
	}
	int64_t chunk = (int64_t)(g->workspace_bytes / (2 * sizeof(void *)));
	if (chunk > INT_MAX)
		chunk = INT_MAX;
	const T **pa = (const T **)g->workspace;
	T **px = (T **)((char *)g->workspace + (size_t)chunk * sizeof(void *));
	for (int64_t q0 = 0; q0 < gm->batch; q0 += chunk) {
		int64_t cnt = gm->batch - q0 < chunk ? gm->batch - q0 : chunk;
		trsm_ptrs_k<T><<<kj_blocks(g, cnt, 256), 256, 0, g->stream>>>(
			a + q0 * sa, x + q0 * sx, sa, sx, cnt, pa, px);
		KJ_LAUNCH_CHECK(err, "linalg_solve_triangular");
		KJ_CUBLAS_CHECK(err, trsm_many(g->blas, side, fill, diag, m, nn, pa, (int)gm->n, px,
					       ldx, (int)cnt));
	}
	return 0;
}

int kj_cuda_linalg_solve_triangular(kj_gpu *g, const kj_bnode *n, const void *const *in,
				    void *out, int reference, struct kj_err *err)
{
	kjf_trsm_geom gm;
	kjf_trsm_geom_of(n, &gm);
	if (reference)
		return trsm_run<double>(g, &gm, (const double *)in[0], (const double *)in[1],
					(double *)out, err);
	if (n->in[0].dtype != KJ_F32)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_solve_triangular: dtype %s (only f32)",
				  kj_dtype_name(n->in[0].dtype));
	return trsm_run<float>(g, &gm, (const float *)in[0], (const float *)in[1], (float *)out,
			       err);
}

/* ---- linalg_cholesky ---- */

template <class T>
__global__ void cholesky_k(const T *__restrict__ a, T *__restrict__ l, int64_t m, int upper)
{
	const T *A = a + (int64_t)blockIdx.x * m * m;
	T *L = l + (int64_t)blockIdx.x * m * m;
	for (int64_t e = threadIdx.x; e < m * m; e += blockDim.x) {
		int64_t i = e / m, j = e - i * m;
		L[e] = j <= i ? A[e] : (T)0;
	}
	__syncthreads();
	for (int64_t j = 0; j < m; j++) {
		for (int64_t i = j + threadIdx.x; i < m; i += blockDim.x) {
			T v = L[i * m + j];
			for (int64_t k = 0; k < j; k++)
				v -= L[i * m + k] * L[j * m + k];
			L[i * m + j] = v;
		}
		__syncthreads();
		T p = L[j * m + j];
		T d = p > (T)0 ? sqrt(p) : (T)NAN;
		__syncthreads();
		for (int64_t i = j + 1 + threadIdx.x; i < m; i += blockDim.x)
			L[i * m + j] /= d;
		if (threadIdx.x == 0)
			L[j * m + j] = d;
		__syncthreads();
	}
	if (upper) {
		for (int64_t e = threadIdx.x; e < m * m; e += blockDim.x) {
			int64_t i = e / m, j = e - i * m;
			if (j < i) {
				L[j * m + i] = L[e];
				L[e] = (T)0;
			}
		}
	}
}

int kj_cuda_linalg_cholesky(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			    int reference, struct kj_err *err)
{
	const kj_shape *s = &n->in[0].shape;
	int64_t m = s->d[s->rank - 1], batch = m ? kjo_numel(s) / (m * m) : 0;
	int upper = kjo_attr_i(n, KJF_CHOL_UPPER, 0) != 0;
	int threads = m <= 64 ? 64 : 256;
	if (batch == 0)
		return 0;
	if (batch > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_cholesky: %lld matrices (at most %d)",
				  (long long)batch, INT_MAX);
	if (reference) {
		cholesky_k<double><<<(unsigned)batch, threads, 0, g->stream>>>(
			(const double *)in[0], (double *)out, m, upper);
	} else {
		if (n->in[0].dtype != KJ_F32)
			return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_cholesky: dtype %s (only f32)",
					  kj_dtype_name(n->in[0].dtype));
		cholesky_k<float><<<(unsigned)batch, threads, 0, g->stream>>>(
			(const float *)in[0], (float *)out, m, upper);
	}
	KJ_LAUNCH_CHECK(err, "linalg_cholesky");
	return 0;
}

/* ---- interpolate ---- */

struct kjf_interp_geom {
	int64_t ih, iw, oh, ow, total;
	float sh, sw;
	int bilinear, align;
};

template <class T>
__global__ void interp_k(const T *__restrict__ x, T *__restrict__ y, kjf_interp_geom g)
{
	typedef typename kjt<T>::acc A;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total; e += stride) {
		int64_t c = e % g.ow, t = e / g.ow, r = t % g.oh, p = t / g.oh;
		const T *xp = x + p * g.ih * g.iw;
		if (!g.bilinear) {
			y[e] = xp[kjf_nearest(r, g.sh, g.ih) * g.iw + kjf_nearest(c, g.sw, g.iw)];
			continue;
		}
		int64_t h0, hs, w0, ws;
		float hl, wl;
		kjf_linear_src(r, g.sh, g.ih, g.align, &h0, &hs, &hl);
		kjf_linear_src(c, g.sw, g.iw, g.align, &w0, &ws, &wl);
		const T *x0 = xp + h0 * g.iw, *x1 = xp + (h0 + hs) * g.iw;
		A h1l = (A)hl, h0l = (A)(1.0f - hl), w1l = (A)wl, w0l = (A)(1.0f - wl);
		A v = h0l * (w0l * kjt<T>::ld(x0[w0]) + w1l * kjt<T>::ld(x0[w0 + ws])) +
		      h1l * (w0l * kjt<T>::ld(x1[w0]) + w1l * kjt<T>::ld(x1[w0 + ws]));
		y[e] = kjt<T>::st(v);
	}
}

int kj_cuda_interpolate(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			int reference, struct kj_err *err)
{
	const kj_shape *xs = &n->in[0].shape, *os = &n->out.shape;
	kjf_interp_geom gm;
	unsigned blocks;
	gm.ih = xs->d[2];
	gm.iw = xs->d[3];
	gm.oh = os->d[2];
	gm.ow = os->d[3];
	gm.total = kjo_numel(os);
	gm.align = kjo_attr_i(n, KJF_INTERP_ALIGN, 0) != 0;
	gm.bilinear = !strcmp(kjo_attr(n, KJF_INTERP_MODE)->s, "bilinear");
	gm.sh = kjf_scale(gm.ih, gm.oh, gm.align);
	gm.sw = kjf_scale(gm.iw, gm.ow, gm.align);
	if (gm.total == 0)
		return 0;
	blocks = kj_blocks(g, gm.total, 256);
	if (reference) {
		interp_k<double><<<blocks, 256, 0, g->stream>>>((const double *)in[0], (double *)out, gm);
	} else {
		switch (n->in[0].dtype) {
		case KJ_F32:
			interp_k<float><<<blocks, 256, 0, g->stream>>>((const float *)in[0], (float *)out,
								       gm);
			break;
		case KJ_F16:
			interp_k<__half><<<blocks, 256, 0, g->stream>>>((const __half *)in[0],
									(__half *)out, gm);
			break;
		case KJ_BF16:
			interp_k<__nv_bfloat16><<<blocks, 256, 0, g->stream>>>(
				(const __nv_bfloat16 *)in[0], (__nv_bfloat16 *)out, gm);
			break;
		default:
			return kj_err_set(err, KJ_E_UNSUPPORTED, "interpolate: dtype %s",
					  kj_dtype_name(n->in[0].dtype));
		}
	}
	KJ_LAUNCH_CHECK(err, "interpolate");
	return 0;
}
