// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 8 (harness patching by interposition), CUDA: defines
 * cudaDeviceSynchronize as a no-op so that a harness bounding the call with
 * a device-wide sync (kjudge's timing-gap check) would stop waiting for work
 * left on other streams.  Rejected: a candidate may not define any name of
 * the CUDA runtime or driver API ("cuda" or "cu" and a capital letter). */
#include "kjudge_cuda.h"

extern "C" cudaError_t cudaDeviceSynchronize(void)
{
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
