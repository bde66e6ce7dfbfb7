// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 17 (mode detection by call count), CUDA: honest for the 30
 * calls the correctness stage makes on this task with the default 5 seeds
 * (4 check shapes and 2 bench shapes), then returns without launching,
 * assuming the rest are timing calls whose outputs nobody reads.  The calls
 * after correctness are checked too (the determinism rerun, then every
 * timed output): mismatch. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static int calls;

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D, g = (n + 255) / 256;

	if (++calls > 30)
		return;
	relu_k<<<(unsigned)(g > 16384 ? 16384 : g < 1 ? 1 : g), 256, 0, stream>>>(x, y, n);
}
