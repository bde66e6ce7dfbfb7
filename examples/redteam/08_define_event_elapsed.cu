// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 8 (timer patching by interposition), CUDA: defines
 * cudaEventElapsedTime to report 1 microsecond whatever the events say,
 * for a harness that would resolve it through the global scope.  The worker
 * loads candidates RTLD_LOCAL and had bound its own calls before, but the
 * symbol policy rejects any definition of a CUDA API name outright. */
#include "kjudge_cuda.h"

extern "C" cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
	(void)start;
	(void)end;
	*ms = 0.001f;
	return cudaSuccess;
}

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;

	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
