// kjudge-case: task=level1/matmul_square expect=pass flag=fallback
/* Red team, class 9 (library fallback by linking), CUDA: C = A @ B with
 * cublasSgemm_v2 through cublas_v2.h on the given stream (row-major C is
 * column-major C^T = B^T A^T, so the operands swap).  Correct, so it passes,
 * but the symbol policy flags fallback (cuBLAS) and a run's score reports
 * it as non-native; with --policy strict it is rejected (the case header
 * cannot pass options: tests/cli/t25_redteam.sh checks strict mode on the
 * CPU twin, 09_cblas_extern.c). */
#include <cublas_v2.h>

#include "kjudge_cuda.h"

static cublasHandle_t handle;

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	const float one = 1.0f, zero = 0.0f;
	int n = (int)N;

	if (!handle && cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
		return;
	cublasSetStream(handle, stream);
	cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH);
	cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
}
