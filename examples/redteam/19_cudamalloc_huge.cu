// kjudge-case: task=level1/relu expect=runtime_error
/* Red team, class 19 (GPU memory exhaustion), CUDA: asks for 1 TiB of device
 * memory as a "workspace" (to starve whatever runs next on the GPU), ignores
 * the failure and computes the right answer.  The worker checks
 * cudaGetLastError after every call, so an API error the candidate left
 * behind becomes the verdict: runtime_error naming
 * cudaErrorMemoryAllocation.  A smaller hog that succeeds is freed with the
 * worker's context when the worker ends. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;
	void* hog = nullptr;

	cudaMalloc(&hog, (size_t)1 << 40);
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
