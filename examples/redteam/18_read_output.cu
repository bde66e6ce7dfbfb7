// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 18 (uninitialised reads), CUDA: computes y = y * 0 +
 * relu(x), "harmless" if the output buffer starts as zeros or any finite
 * garbage (fresh cudaMalloc memory often is zero).  The judge fills it with
 * NaN before every call and NaN * 0 is NaN: mismatch everywhere. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = y[i] * 0.0f + (x[i] > 0.0f ? x[i] : 0.0f);
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;

	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
