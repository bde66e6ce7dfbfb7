// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 11 (partial computation), CUDA: launches a single block of
 * 256 threads with no grid-stride loop, so only the first 256 elements are
 * ever written, enough for a checker that samples the head of the output.
 * The judge compares every element (on the device): the tail keeps the
 * sentinel on every shape past 256 elements. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	relu_k<<<1, 256, 0, stream>>>(x, y, B * D);
}
