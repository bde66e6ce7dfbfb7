// kjudge-case: task=level1/relu expect=runtime_error
/* Red team, class 14 (reading the answer by pointer arithmetic), CUDA: each
 * thread also reads 256 GiB past its input, hunting for the reference in a
 * neighbouring allocation (where a caching allocator in one process would
 * have put it).  The worker's context holds only the candidate's arena, the
 * judge's L2-flush buffer and the candidate's own allocations; the read
 * faults (cudaErrorIllegalAddress): runtime_error, and the judge starts a
 * new worker for anything after. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float peek = *(const volatile float*)(x + i + ((int64_t)1 << 36));
		y[i] = x[i] > peek ? x[i] : 0.0f;
	}
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;

	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
