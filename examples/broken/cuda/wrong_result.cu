// kjudge-case: task=level1/softmax expect=mismatch
/* Broken: forgets to normalize, writing exp(x - max) instead of
 * exp(x - max) / sum.  Every row with more than one element is wrong (rows of
 * length 1 happen to be right: exp(0) = 1). */
#include "kjudge_cuda.h"

__global__ void softmax_unnormalized(const float* __restrict__ x, float* __restrict__ y, int64_t D)
{
	__shared__ float red[32];
	const float* xr = x + (int64_t)blockIdx.x * D;
	float* yr = y + (int64_t)blockIdx.x * D;
	float m = -INFINITY;
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int64_t i = threadIdx.x; i < D; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
	if (lane == 0)
		red[warp] = m;
	__syncthreads();
	m = -INFINITY;
	for (int w = 0; w < (int)(blockDim.x >> 5); w++)
		m = fmaxf(m, red[w]);
	for (int64_t i = threadIdx.x; i < D; i += blockDim.x)
		yr[i] = expf(xr[i] - m);
}

extern "C" void softmax(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	if (B <= 0 || D <= 0)
		return;
	softmax_unnormalized<<<(unsigned)B, 256, 0, stream>>>(x, y, D);
}
