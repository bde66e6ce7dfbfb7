// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 6 (side stream through cudaStreamCreateWithPriority): a
 * high-priority stream of its own, in case a policy only knew
 * cudaStreamCreate and cudaStreamCreateWithFlags.  Rejected by prefix. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static cudaStream_t side;

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;
	int lo = 0, hi = 0;

	(void)stream;
	if (!side) {
		cudaDeviceGetStreamPriorityRange(&lo, &hi);
		cudaStreamCreateWithPriority(&side, cudaStreamNonBlocking, hi);
	}
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, side>>>(x, y, n);
}
