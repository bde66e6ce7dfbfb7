// kjudge-case: task=level1/matmul_square expect=pass flag=fallback
/* Library fallback: C = A @ B through cuBLAS (declared here by hand rather
 * than through cublas_v2.h) on the given stream.  The result is right, but it
 * is a library call, not a kernel: the undefined cublas* symbols in the
 * shared object give it away and the verdict carries the fallback flag.
 * Row-major C = A @ B is column-major C^T = B^T A^T, hence b before a. */
#include "kjudge_cuda.h"

typedef struct cublasContext* cublasHandle_t;

extern "C" int cublasCreate_v2(cublasHandle_t* handle);
extern "C" int cublasSetStream_v2(cublasHandle_t handle, cudaStream_t stream);
extern "C" int cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n, int k,
			      const float* alpha, const float* A, int lda, const float* B, int ldb,
			      const float* beta, float* C, int ldc);

#define CUBLAS_OP_N 0

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	static cublasHandle_t h;
	const float one = 1.0f, zero = 0.0f;
	int n = (int)N;

	if (N <= 0)
		return;
	if (!h && cublasCreate_v2(&h) != 0)
		return;
	cublasSetStream_v2(h, stream);
	cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n);
}
