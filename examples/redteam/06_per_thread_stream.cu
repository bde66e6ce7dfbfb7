// kjudge-case: task=level1/relu expect=pass flag=timing_gap
/* Red team, class 6 (side stream without creating one): launches on
 * cudaStreamPerThread, a stream every host thread has, so no stream-creation
 * symbol appears.  The judge's stream is non-blocking, so nothing orders the
 * two: the events on the given stream bracket no work.  The values are
 * right (the worker syncs the whole device before the judge reads them),
 * but the device-wide bound exceeds the event time and the verdict is
 * flagged timing_gap, with the bound used as the time. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D, g = (n + 255) / 256;

	(void)stream;
	relu_k<<<(unsigned)(g > 16384 ? 16384 : g < 1 ? 1 : g), 256, 0, cudaStreamPerThread>>>(x, y, n);
}
