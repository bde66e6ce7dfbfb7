/*
 * CUDA linear algebra: matmul, bmm and linear (table B), and below them
 * table F's linalg_solve_triangular and linalg_cholesky.
 *
 * matmul, bmm, linear: the baseline calls cuBLAS in the task dtype with
 * float accumulation (CUBLAS_COMPUTE_32F under the default math mode, so
 * never TF32), as PyTorch eager does with TF32 off, unless the task allows
 * TF32 (`tf32 allowed`: CUBLAS_COMPUTE_32F_FAST_TF32 for f32,
 * kj_f32_compute); linear with a bias uses cuBLASLt's bias epilogue as
 * PyTorch's addmm does (a separate bias kernel if Lt offers no algorithm).  The reference calls
 * DGEMM on the double buffers and adds a bias afterwards, as the CPU adds
 * it after the dot product.
 *
 * Row-major C[M, N] = A[M, K] B[K, N] is computed as the column-major
 * product C^T = B^T A^T, so no operand is copied.  Batched matmul: a batch
 * broadcast over a 2-D right operand folds into M (one GEMM, as PyTorch
 * folds it); batch dims that are either full or entirely broadcast become a
 * strided-batched call (stride 0 for the broadcast side); any other
 * broadcast pattern loops over the batch.
 *
 * i8 @ i8 -> i32 (torch._int_mm): cublasGemmEx with CUDA_R_8I inputs, a
 * CUDA_R_32I result and CUBLAS_COMPUTE_32I where cuBLAS documents that path
 * (alpha/beta 1/0, 32-bit aligned operands, leading dims multiples of 4:
 * here every dim, stride and base is checked, and a NOT_SUPPORTED answer
 * also falls back); otherwise an own tiled kernel with int32 accumulation.
 * Both are exact (int32 wraps only past K = 131072 of -128 * -128).  The
 * reference runs the same DGEMM as for floats: i8 products and their sums
 * are exact in double.
 *
 * Table F's linear algebra (src/ops/table_f.h):
 * linalg_solve_triangular: B copied into the output, then cuBLAS's TRSM in
 * place there, as PyTorch eager does (cublasStrsm per matrix for a batch of
 * at most 8, cublasStrsmBatched beyond; Dtrsm for the reference).  cuBLAS is
 * column-major: a row-major n x k X is the column-major X^T, so A X = B is
 * solved as X^T A^T = B^T (side right) and X A = B as A^T X^T = B^T (side
 * left), with A^T's triangle the other one.  The batched call's pointer
 * arrays are written by a small kernel into g->workspace (in chunks that
 * fit it).
 *
 * linalg_cholesky: the f32 baseline for m <= 64 (chol_small_k) runs one
 * warp per matrix, 4 a block for m <= 32 and 2 for m <= 64: the matrix is
 * staged through shared memory (coalesced 16-byte loads when m % 4 == 0,
 * row stride m | 1 so that per-row and per-column accesses are free of bank
 * conflicts), lane r keeps rows r and r + 32 in registers (fully unrolled,
 * padded to 32 or 64), and the factorisation is right-looking: per column
 * a shuffle brings the pivot, each row divides by its square root, the
 * column is broadcast through a double-buffered shared vector (one
 * __syncwarp a column) and every row subtracts l_ij l_kj from its entries
 * k > j; the rows go back through the tile (transposed for upper) to a
 * coalesced store with zeros in the other triangle.  Shared memory: 17.5 KiB
 * a block for m <= 32, 33.5 KiB for m <= 64.  The reference (double) and
 * m > 64 use cholesky_k: one thread block per matrix, left-looking by
 * column in the output buffer: column j's entries l_ij = a_ij - sum_k<j
 * l_ik l_jk for i >= j, then the square root of the pivot and the division.
 * Both read only A's lower triangle, subtract in the CPU kernel's order,
 * and give NaN at a non-positive pivot (the CPU kernels report it), which
 * then spreads to the later columns.  Float accumulation for the baseline,
 * double for the reference.
 */
#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_f.h"
}

#include <limits.h>

static cudaDataType cuda_type(kj_dtype t)
{
	return t == KJ_F16 ? CUDA_R_16F : t == KJ_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

#define IMM_T 16

/* C[z] (i32, [M, N]) = A[z] ([M, K]) @ op(B[z]) for z < batch, exactly in
 * int32: one thread per output, 16 x 16 tiles of A and op(B) through
 * shared memory.  Tile loops are uniform across a block, so the barriers
 * are safe. */
__global__ void imm_k(const int8_t *__restrict__ A, int64_t sA, const int8_t *__restrict__ B,
		      int64_t sB, int32_t *__restrict__ C, int64_t sC, int64_t M, int64_t N,
		      int64_t K, int bt, int64_t batch)
{
	__shared__ int32_t ta[IMM_T][IMM_T + 1], tb[IMM_T][IMM_T + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int64_t col = (int64_t)blockIdx.x * IMM_T + tx;

	for (int64_t z = blockIdx.z; z < batch; z += gridDim.z) {
		const int8_t *a = A + z * sA, *b = B + z * sB;
		for (int64_t r0 = (int64_t)blockIdx.y * IMM_T; r0 < M;
		     r0 += (int64_t)gridDim.y * IMM_T) {
			int64_t row = r0 + ty;
			int32_t acc = 0;
			for (int64_t k0 = 0; k0 < K; k0 += IMM_T) {
				int64_t ka = k0 + tx, kb = k0 + ty;
				ta[ty][tx] = row < M && ka < K ? (int32_t)a[row * K + ka] : 0;
				tb[ty][tx] = col < N && kb < K
						     ? (int32_t)(bt ? b[col * K + kb] : b[kb * N + col])
						     : 0;
				__syncthreads();
#pragma unroll
				for (int k = 0; k < IMM_T; k++)
					acc += ta[ty][k] * tb[k][tx];
				__syncthreads();
			}
			if (row < M && col < N)
				C[z * sC + row * N + col] = acc;
		}
	}
}

/* Row-major C = A @ op(B) on i8 operands into i32 (see the header).  Same
 * argument meaning as gemm_rm; the baseline only. */
static int gemm_i8(kj_gpu *g, int bt, int64_t M, int64_t N, int64_t K, const void *A, int64_t sA,
		   const void *B, int64_t sB, void *C, int64_t sC, int64_t batch,
		   struct kj_err *err)
{
	int ldb = (int)(bt ? K : N);
	int blas_ok = K % 4 == 0 && N % 4 == 0 && sA % 4 == 0 && sB % 4 == 0 &&
		      (uintptr_t)A % 4 == 0 && (uintptr_t)B % 4 == 0 && kj_aligned16(C);

	if (blas_ok) {
		const int32_t one = 1, zero = 0;
		cublasOperation_t opb = bt ? CUBLAS_OP_T : CUBLAS_OP_N;
		cublasStatus_t st;
		KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
		if (batch == 1)
			st = cublasGemmEx(g->blas, opb, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, B,
					  CUDA_R_8I, ldb, A, CUDA_R_8I, (int)K, &zero, C, CUDA_R_32I,
					  (int)N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
		else
			st = cublasGemmStridedBatchedEx(g->blas, opb, CUBLAS_OP_N, (int)N, (int)M,
							(int)K, &one, B, CUDA_R_8I, ldb, sB, A,
							CUDA_R_8I, (int)K, sA, &zero, C, CUDA_R_32I,
							(int)N, sC, (int)batch, CUBLAS_COMPUTE_32I,
							CUBLAS_GEMM_DEFAULT);
		if (st == CUBLAS_STATUS_SUCCESS)
			return 0;
		if (st != CUBLAS_STATUS_NOT_SUPPORTED && st != CUBLAS_STATUS_INVALID_VALUE)
			return kj_err_set(err, KJ_E_CUDA, "matmul: cublasGemmEx (i8) failed: %s",
					  cublasGetStatusString(st));
	}
	int64_t gy = (M + IMM_T - 1) / IMM_T, gx = (N + IMM_T - 1) / IMM_T;
	if (gx > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "matmul: N=%lld too large", (long long)N);
	dim3 grid((unsigned)gx, (unsigned)(gy < 65535 ? gy : 65535),
		  (unsigned)(batch < 65535 ? batch : 65535)),
		block(IMM_T, IMM_T);
	imm_k<<<grid, block, 0, g->stream>>>((const int8_t *)A, sA, (const int8_t *)B, sB,
					     (int32_t *)C, sC, M, N, K, bt, batch);
	KJ_LAUNCH_CHECK(err, "matmul (i8)");
	return 0;
}

/* Row-major C = A @ op(B) for `batch` matrices at element strides sA, sB,
 * sC; op(B) = B ([K, N]) or, with bt, B^T for a B given as [N, K].  i8
 * operands give an i32 C (gemm_i8) outside the reference. */
static int gemm_rm(kj_gpu *g, int reference, kj_dtype dt, int bt, int64_t M, int64_t N,
		   int64_t K, const void *A, int64_t sA, const void *B, int64_t sB, void *C,
		   int64_t sC, int64_t batch, struct kj_err *err)
{
	size_t es = reference ? 8 : kj_dtype_size(dt == KJ_I8 ? KJ_I32 : dt);
	cublasOperation_t opb = bt ? CUBLAS_OP_T : CUBLAS_OP_N;
	int ldb = (int)(bt ? K : N);

	if (M == 0 || N == 0 || batch == 0)
		return 0;
	if (K == 0) {
		KJ_CUDA_CHECK(err, cudaMemsetAsync(C, 0, (size_t)(batch * M * N) * es, g->stream));
		return 0;
	}
	if (M > INT_MAX || N > INT_MAX || K > INT_MAX || batch > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "matmul: dims M=%lld N=%lld K=%lld exceed cuBLAS's 32-bit sizes",
				  (long long)M, (long long)N, (long long)K);
	if (!reference && dt == KJ_I8)
		return gemm_i8(g, bt, M, N, K, A, sA, B, sB, C, sC, batch, err);
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	if (reference) {
		const double one = 1.0, zero = 0.0;
		if (batch == 1)
			KJ_CUBLAS_CHECK(err, cublasDgemm(g->blas, opb, CUBLAS_OP_N, (int)N, (int)M, (int)K,
							 &one, (const double *)B, ldb, (const double *)A,
							 (int)K, &zero, (double *)C, (int)N));
		else
			KJ_CUBLAS_CHECK(err, cublasDgemmStridedBatched(
						     g->blas, opb, CUBLAS_OP_N, (int)N, (int)M, (int)K,
						     &one, (const double *)B, ldb, sB, (const double *)A,
						     (int)K, sA, &zero, (double *)C, (int)N, sC, (int)batch));
		return 0;
	}
	const float one = 1.0f, zero = 0.0f;
	cudaDataType ty = cuda_type(dt);
	KJ_CUBLAS_CHECK(err, cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
	if (batch == 1)
		KJ_CUBLAS_CHECK(err, cublasGemmEx(g->blas, opb, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one,
						  B, ty, ldb, A, ty, (int)K, &zero, C, ty, (int)N,
						  kj_f32_compute(g, dt), CUBLAS_GEMM_DEFAULT));
	else
		KJ_CUBLAS_CHECK(err, cublasGemmStridedBatchedEx(
					     g->blas, opb, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, B, ty,
					     ldb, sB, A, ty, (int)K, sA, &zero, C, ty, (int)N, sC,
					     (int)batch, kj_f32_compute(g, dt), CUBLAS_GEMM_DEFAULT));
	return 0;
}

int kj_cuda_matmul(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		   int reference, struct kj_err *err)
{
	kjb_mm gm;
	kj_dtype dt = n->in[0].dtype;
	size_t es = reference ? 8 : kj_dtype_size(dt);
	size_t oes = reference ? 8 : kj_dtype_size(n->out.dtype);
	int64_t s = 1, idx[KJ_MAX_RANK] = {0};
	int a_full = 1, a_zero = 1, b_full = 1, b_zero = 1;

	kjb_mm_geom(&n->in[0].shape, &n->in[1].shape, &gm);
	for (int i = gm.brank - 1; i >= 0; i--) {
		if (gm.bshape[i] == 1)
			continue;
		a_full &= gm.astr[i] == s;
		a_zero &= gm.astr[i] == 0;
		b_full &= gm.bstr[i] == s;
		b_zero &= gm.bstr[i] == 0;
		s *= gm.bshape[i];
	}
	if (gm.batch == 1)
		return gemm_rm(g, reference, dt, 0, gm.M, gm.N, gm.K, in[0], 0, in[1], 0, out, 0, 1, err);
	if (a_full && b_zero)
		return gemm_rm(g, reference, dt, 0, gm.batch * gm.M, gm.N, gm.K, in[0], 0, in[1], 0,
			       out, 0, 1, err);
	if ((a_full || a_zero) && (b_full || b_zero))
		return gemm_rm(g, reference, dt, 0, gm.M, gm.N, gm.K, in[0], a_full ? gm.M * gm.K : 0,
			       in[1], b_full ? gm.K * gm.N : 0, out, gm.M * gm.N, gm.batch, err);
	/* Otherwise the batch dims split into an outer part that is looped over
	 * and the longest inner run of dims in which each operand is full or
	 * broadcast: one strided-batched call per outer index ([B, H, M, K] @
	 * [H, K, N]: B calls of H products). */
	int p = gm.brank;
	int64_t inner = 1;
	a_full = a_zero = b_full = b_zero = 1;
	s = 1;
	while (p > 0) {
		int i = p - 1, af = a_full, az = a_zero, bf = b_full, bz = b_zero;
		if (gm.bshape[i] != 1) {
			af &= gm.astr[i] == s;
			az &= gm.astr[i] == 0;
			bf &= gm.bstr[i] == s;
			bz &= gm.bstr[i] == 0;
			if (!(af || az) || !(bf || bz))
				break;
			s *= gm.bshape[i];
		}
		a_full = af;
		a_zero = az;
		b_full = bf;
		b_zero = bz;
		inner = s;
		p = i;
	}
	for (int64_t t = 0; t < gm.batch; t += inner) {
		int64_t ao = 0, bo = 0;
		int rc;
		for (int i = 0; i < p; i++) {
			ao += idx[i] * gm.astr[i];
			bo += idx[i] * gm.bstr[i];
		}
		rc = gemm_rm(g, reference, dt, 0, gm.M, gm.N, gm.K,
			     (const char *)in[0] + (size_t)(ao * gm.M * gm.K) * es,
			     a_full ? gm.M * gm.K : 0,
			     (const char *)in[1] + (size_t)(bo * gm.K * gm.N) * es,
			     b_full ? gm.K * gm.N : 0, (char *)out + (size_t)(t * gm.M * gm.N) * oes,
			     gm.M * gm.N, inner, err);
		if (rc)
			return rc;
		for (int i = p - 1; i >= 0; i--) {
			if (++idx[i] < gm.bshape[i])
				break;
			idx[i] = 0;
		}
	}
	return 0;
}

/* y[m, o] += bias[o] over [M, O]. */
template <class T>
__global__ void bias_rows_k(T *__restrict__ y, const T *__restrict__ bias, int64_t M, int64_t O)
{
	int64_t n = M * O, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = kjt<T>::st(kjt<T>::ld(y[i]) + kjt<T>::ld(bias[i % O]));
}

template <class T>
static int bias_launch(kj_gpu *g, void *y, const void *bias, int64_t M, int64_t O,
		       struct kj_err *err)
{
	if (M * O == 0)
		return 0;
	bias_rows_k<T><<<kj_blocks(g, M * O, 256), 256, 0, g->stream>>>((T *)y, (const T *)bias, M, O);
	KJ_LAUNCH_CHECK(err, "linear bias");
	return 0;
}

#define LT_TRY(call) \
	do { \
		if (st == CUBLAS_STATUS_SUCCESS) \
			st = (call); \
	} while (0)

/* y = x @ w^T + bias through cuBLASLt's bias epilogue.  *done = 0 (and 0
 * returned) when Lt has no algorithm for the shape: the caller falls back. */
static int lt_linear(kj_gpu *g, kj_dtype dt, int64_t M, int64_t K, int64_t O, const void *x,
		     const void *w, const void *bias, void *y, int *done, struct kj_err *err)
{
	cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
	cublasLtMatmulDesc_t op = NULL;
	cublasLtMatrixLayout_t la = NULL, lb = NULL, lc = NULL;
	cublasLtMatmulPreference_t pref = NULL;
	cublasLtMatmulHeuristicResult_t res;
	cublasOperation_t opt = CUBLAS_OP_T, opn = CUBLAS_OP_N;
	cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
	cudaDataType ty = cuda_type(dt);
	uint64_t ws = g->workspace_bytes;
	int nres = 0;
	const float one = 1.0f, zero = 0.0f;

	*done = 0;
	memset(&res, 0, sizeof(res));
	LT_TRY(cublasLtMatmulDescCreate(&op, kj_f32_compute(g, dt), CUDA_R_32F));
	LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &opt, sizeof(opt)));
	LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &opn, sizeof(opn)));
	LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
	LT_TRY(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
					      sizeof(bias)));
	/* column-major: w is K x O (ld K) used transposed, x is K x M, y is O x M */
	LT_TRY(cublasLtMatrixLayoutCreate(&la, ty, (uint64_t)K, (uint64_t)O, K));
	LT_TRY(cublasLtMatrixLayoutCreate(&lb, ty, (uint64_t)K, (uint64_t)M, K));
	LT_TRY(cublasLtMatrixLayoutCreate(&lc, ty, (uint64_t)O, (uint64_t)M, O));
	LT_TRY(cublasLtMatmulPreferenceCreate(&pref));
	LT_TRY(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
						    &ws, sizeof(ws)));
	LT_TRY(cublasLtMatmulAlgoGetHeuristic(g->lt, op, la, lb, lc, lc, pref, 1, &res, &nres));
	if (st == CUBLAS_STATUS_SUCCESS && nres > 0) {
		st = cublasLtMatmul(g->lt, op, &one, w, la, x, lb, &zero, y, lc, y, lc, &res.algo,
				    g->workspace, g->workspace_bytes, g->stream);
		*done = st == CUBLAS_STATUS_SUCCESS;
	} else {
		st = CUBLAS_STATUS_SUCCESS;
	}
	if (pref)
		cublasLtMatmulPreferenceDestroy(pref);
	if (lc)
		cublasLtMatrixLayoutDestroy(lc);
	if (lb)
		cublasLtMatrixLayoutDestroy(lb);
	if (la)
		cublasLtMatrixLayoutDestroy(la);
	if (op)
		cublasLtMatmulDescDestroy(op);
	if (st != CUBLAS_STATUS_SUCCESS)
		return kj_err_set(err, KJ_E_CUDA, "linear: cuBLASLt failed: %s",
				  cublasGetStatusString(st));
	return 0;
}

int kj_cuda_linear(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		   int reference, struct kj_err *err)
{
	const kj_shape *xs = &n->in[0].shape;
	int64_t K = xs->d[xs->rank - 1], O = n->in[1].shape.d[0], M = 1;
	kj_dtype dt = n->in[0].dtype;
	const void *bias = n->present[2] ? in[2] : NULL;
	int rc, done = 0;

	for (int i = 0; i < xs->rank - 1; i++)
		M *= xs->d[i];
	if (M == 0 || O == 0)
		return 0;
	if (!reference && bias && K > 0 && M <= INT_MAX && O <= INT_MAX && K <= INT_MAX) {
		rc = lt_linear(g, dt, M, K, O, in[0], in[1], bias, out, &done, err);
		if (rc || done)
			return rc;
	}
	rc = gemm_rm(g, reference, dt, 1, M, O, K, in[0], 0, in[1], 0, out, 0, 1, err);
	if (rc || !bias)
		return rc;
	if (reference)
		return bias_launch<double>(g, out, bias, M, O, err);
	switch (dt) {
	case KJ_F16:
		return bias_launch<__half>(g, out, bias, M, O, err);
	case KJ_BF16:
		return bias_launch<__nv_bfloat16>(g, out, bias, M, O, err);
	default:
		return bias_launch<float>(g, out, bias, M, O, err);
	}
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

/*
 * The f32 baseline for m <= 64: one warp per matrix, MP = 32 (m <= 32) or 64
 * the padded size.  Per warp, shared memory holds a staging tile of m rows
 * with an odd row stride s (m | 1, so that lane r reading or writing row r,
 * or column r, hits 32 different banks) and two column buffers of MP floats.
 */
template <int MP> struct chol_cfg {
	static const int warps = MP > 32 ? 2 : 4;	  /* warps (matrices) per block */
	static const int tile = MP * (MP + 1);		  /* floats of the staging tile */
	static const int words = tile + 2 * MP;		  /* floats per warp */
};

/* Row r and column c of element number e (of n) of the walk that lane
 * starts at e = lane and advances by 32: the division happens once. */
struct chol_walk {
	int r, c, dr, dc, w;
	__device__ __forceinline__ chol_walk(int lane, int w_)
	{
		w = w_;
		r = lane / w;
		c = lane - r * w;
		dr = 32 / w;
		dc = 32 - dr * w;
	}
	__device__ __forceinline__ void next()
	{
		r += dr;
		c += dc;
		if (c >= w) {
			c -= w;
			r++;
		}
	}
};

/* Copies the m x m matrix g (contiguous, row-major) into tile t (row stride
 * s), coalesced; vec: in 16-byte words (m % 4 == 0 and g 16-byte aligned),
 * eight loads in flight per lane when m is MP. */
template <int MP>
__device__ __forceinline__ void chol_load(const float *__restrict__ g, float *t, int m, int s,
					  int lane, int vec)
{
	if (vec && m == MP) {
		const float4 *g4 = (const float4 *)g;
#pragma unroll 1
		for (int b = 0; b < MP * MP / 4; b += 256) {
			float4 v[8];
#pragma unroll
			for (int u = 0; u < 8; u++)
				v[u] = g4[b + 32 * u + lane];
#pragma unroll
			for (int u = 0; u < 8; u++) {
				const int e = b + 32 * u + lane;
				float *d = t + (e / (MP / 4)) * s + 4 * (e % (MP / 4));
				d[0] = v[u].x;
				d[1] = v[u].y;
				d[2] = v[u].z;
				d[3] = v[u].w;
			}
		}
	} else if (vec) {
		const float4 *g4 = (const float4 *)g;
		chol_walk p(lane, m >> 2);
		for (int e = lane; e < (m * m) >> 2; e += 32, p.next()) {
			float4 v = g4[e];
			float *d = t + p.r * s + 4 * p.c;
			d[0] = v.x;
			d[1] = v.y;
			d[2] = v.z;
			d[3] = v.w;
		}
	} else {
		chol_walk p(lane, m);
		for (int e = lane; e < m * m; e += 32, p.next())
			t[p.r * s + p.c] = g[e];
	}
}

/* The inverse of chol_load: tile t back to the m x m matrix g. */
__device__ __forceinline__ void chol_store(const float *t, float *__restrict__ g, int m, int s,
					   int lane, int vec)
{
	if (vec) {
		float4 *g4 = (float4 *)g;
		chol_walk p(lane, m >> 2);
		for (int e = lane; e < (m * m) >> 2; e += 32, p.next()) {
			const float *d = t + p.r * s + 4 * p.c;
			g4[e] = make_float4(d[0], d[1], d[2], d[3]);
		}
	} else {
		chol_walk p(lane, m);
		for (int e = lane; e < m * m; e += 32, p.next())
			g[e] = t[p.r * s + p.c];
	}
}

/*
 * Right-looking in registers: lane owns row r0 = lane (x0, columns < 32)
 * and, when MP = 64, row r1 = lane + 32 (x1, columns < 64); rows >= m are
 * zero padding and steps j >= m are skipped.  Step j: the pivot comes from
 * the owner of row j by a shuffle, d = sqrt(pivot) (NaN unless > 0), each
 * row i > j divides its column j entry by d (row j stores d), column j goes
 * through a shared buffer (double-buffered, so one __syncwarp per step), and
 * each row subtracts l_ij * l_kj from its entry k for k > j: a_ik ends as
 * a_ik - sum_{j<k} l_ij l_kj, subtracted in j order as the CPU kernel does.
 * The entries a row updates above its diagonal are never read back: the
 * store writes zeros there.  Every register index is a compile-time
 * constant (fully unrolled loops), so the rows stay in registers.
 */
template <int MP>
__global__ void __launch_bounds__(32 * chol_cfg<MP>::warps)
chol_small_k(const float *__restrict__ a, float *__restrict__ l, int m, int batch, int upper,
	     int vec)
{
	extern __shared__ float4 chol_smem[];
	const unsigned full = 0xffffffffu;
	const int lane = (int)(threadIdx.x & 31), w = (int)(threadIdx.x >> 5);
	const int q = (int)blockIdx.x * chol_cfg<MP>::warps + w;
	if (q >= batch)
		return;
	float *t = (float *)chol_smem + w * chol_cfg<MP>::words;
	float *cb = t + chol_cfg<MP>::tile;
	const int s = m | 1, r0 = lane, r1 = lane + 32;
	const size_t off = (size_t)q * (size_t)(m * m);
	float x0[32], x1[MP];

	chol_load<MP>(a + off, t, m, s, lane, vec);
	__syncwarp();
#pragma unroll
	for (int k = 0; k < 32; k++)
		x0[k] = k <= r0 && r0 < m ? t[r0 * s + k] : 0.0f;
#pragma unroll
	for (int k = 0; k < MP; k++)
		x1[k] = MP > 32 && k <= r1 && r1 < m ? t[r1 * s + k] : 0.0f;

#pragma unroll
	for (int j = 0; j < MP; j++) {
		if (j < m) {
			float p = __shfl_sync(full, j < 32 ? x0[j & 31] : x1[j], j & 31);
			float d = p > 0.0f ? sqrtf(p) : (float)NAN;
			if (j < 32) {
				if (r0 > j)
					x0[j & 31] = x0[j & 31] / d;
				else if (r0 == j)
					x0[j & 31] = d;
			}
			if (MP > 32) {
				if (r1 > j)
					x1[j] = x1[j] / d;
				else if (r1 == j)
					x1[j] = d;
			}
			if (j + 1 < MP) {
				float *c = cb + (j & 1) * MP;
				const float4 *c4 = (const float4 *)c;
				const float l0 = x0[j & 31], l1 = x1[j];
				if (j < 31)
					c[r0] = l0;
				if (MP > 32)
					c[r1] = l1;
				__syncwarp();
#pragma unroll
				for (int g = 0; g < MP / 4; g++) {
					if (4 * g + 3 > j) {
						float4 v = c4[g];
						const float cv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
						for (int u = 0; u < 4; u++) {
							const int k = 4 * g + u;
							if (k > j && k < 32)
								x0[k & 31] -= l0 * cv[u];
							if (MP > 32 && k > j)
								x1[k] -= l1 * cv[u];
						}
					}
				}
			}
		}
	}

	__syncwarp();
	if (r0 < m) {
#pragma unroll
		for (int k = 0; k < MP; k++) {
			if (k < m) {
				float v = k <= r0 && k < 32 ? x0[k & 31] : 0.0f;
				if (upper)
					t[k * s + r0] = v;
				else
					t[r0 * s + k] = v;
			}
		}
	}
	if (MP > 32 && r1 < m) {
#pragma unroll
		for (int k = 0; k < MP; k++) {
			if (k < m) {
				float v = k <= r1 ? x1[k] : 0.0f;
				if (upper)
					t[k * s + r1] = v;
				else
					t[r1 * s + k] = v;
			}
		}
	}
	__syncwarp();
	chol_store(t, l + off, m, s, lane, vec);
}

template <int MP>
static int chol_small_run(kj_gpu *g, const float *a, float *l, int64_t m, int64_t batch,
			  int upper, struct kj_err *err)
{
	const int warps = chol_cfg<MP>::warps;
	const size_t shm = (size_t)warps * chol_cfg<MP>::words * sizeof(float);
	int vec = m % 4 == 0 && (uintptr_t)a % 16 == 0 && (uintptr_t)l % 16 == 0;
	unsigned blocks = (unsigned)((batch + warps - 1) / warps);
	chol_small_k<MP><<<blocks, 32 * warps, shm, g->stream>>>(a, l, (int)m, (int)batch, upper,
								  vec);
	KJ_LAUNCH_CHECK(err, "linalg_cholesky");
	return 0;
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
		if (m <= 32)
			return chol_small_run<32>(g, (const float *)in[0], (float *)out, m, batch, upper,
						  err);
		if (m <= 64)
			return chol_small_run<64>(g, (const float *)in[0], (float *)out, m, batch, upper,
						  err);
		cholesky_k<float><<<(unsigned)batch, threads, 0, g->stream>>>(
			(const float *)in[0], (float *)out, m, upper);
	}
	KJ_LAUNCH_CHECK(err, "linalg_cholesky");
	return 0;
}
