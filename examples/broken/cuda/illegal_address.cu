// kjudge-case: task=level1/relu expect=runtime_error
/* Broken: computes ReLU, but every thread also stores 1 TiB past the end of
 * y, far outside any allocation: the kernel faults with an illegal address,
 * a CUDA error during the call. */
#include "kjudge_cuda.h"

__global__ void relu_oob(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float v = x[i];

		y[i] = v > 0.0f ? v : 0.0f;
		y[i + ((int64_t)1 << 38)] = v;
	}
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D, blocks = (n + 255) / 256;

	if (n <= 0)
		return;
	relu_oob<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(x, y, n);
}
