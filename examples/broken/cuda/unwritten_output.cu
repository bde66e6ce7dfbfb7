// kjudge-case: task=level1/relu expect=mismatch
/* Broken: computes ReLU for the first half of the elements only (a grid sized
 * for n / 2); the rest keep the judge's NaN sentinel. */
#include "kjudge_cuda.h"

__global__ void relu_half(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t half = B * D / 2;

	if (half <= 0)
		return;
	relu_half<<<(unsigned)((half + 255) / 256), 256, 0, stream>>>(x, y, half);
}
