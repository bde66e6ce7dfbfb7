// kjudge-case: task=level1/relu expect=pass flag=timing_gap
/* Computes ReLU correctly but launches on the legacy default stream (0)
 * instead of the stream it was given.  The values are right, but the work is
 * ordered by stream 0, not by the judge's stream: if that stream is
 * non-blocking, events recorded on it miss the kernel.  The judge's
 * device-wide sync bound sees the gap and flags it. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D, blocks = (n + 255) / 256;

	(void)stream;
	if (n <= 0)
		return;
	relu_k<<<(unsigned)(blocks < 8192 ? blocks : 8192), 256, 0, 0>>>(x, y, n);
}
