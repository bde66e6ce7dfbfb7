/*
 * CUDA matmul, bmm and linear (table B).  The baseline calls cuBLAS in the
 * task dtype with float accumulation (CUBLAS_COMPUTE_32F under the default
 * math mode, so never TF32), as PyTorch eager does with TF32 off, unless
 * the task allows TF32 (`tf32 allowed`: CUBLAS_COMPUTE_32F_FAST_TF32 for
 * f32, kj_f32_compute); linear
 * with a bias uses cuBLASLt's bias epilogue as PyTorch's addmm does (a
 * separate bias kernel if Lt offers no algorithm).  The reference calls
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
 */
#include "ops/cuda/ops_common.cuh"

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
