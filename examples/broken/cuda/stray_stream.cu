// kjudge-case: task=level1/relu expect=rejected
/* Broken: creates its own non-blocking stream and launches ReLU there
 * instead of on the stream it was given, so the judge's timing events would
 * not cover the work (KernelBench's "work on another stream" hack).  The
 * symbol policy rejects cudaStreamCreate* before anything runs. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	static cudaStream_t mine;
	int64_t n = B * D, blocks = (n + 255) / 256;

	(void)stream;
	if (n <= 0)
		return;
	if (!mine && cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) != cudaSuccess)
		return;
	relu_k<<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, mine>>>(x, y, n);
}
