// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 5 (deferred work), CUDA: launches the previous call's work
 * at the start of each call and returns, so the events around this call time
 * someone else's kernel.  The judge checks each call's outputs as soon as it
 * returns (after a device-wide sync): the first call's output is the
 * sentinel. */
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static const float* pend_x;
static float* pend_y;
static int64_t pend_n;

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	if (pend_y)
		relu_k<<<(unsigned)((pend_n + 255) / 256), 256, 0, stream>>>(pend_x, pend_y, pend_n);
	pend_x = x;
	pend_y = y;
	pend_n = B * D;
}
