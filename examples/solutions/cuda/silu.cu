// kjudge-case: task=level1/silu expect=pass
/* SiLU: x * sigmoid(x) = x / (1 + exp(-x)); for very negative x exp(-x)
 * overflows to inf and the quotient is -0, the right limit.  Flat float4
 * grid-stride map plus a scalar tail (and for unaligned buffers). */
#include "kjudge_cuda.h"

__device__ __forceinline__ float silu1(float v)
{
	return v / (1.0f + expf(-v));
}

__global__ void silu_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
		float4 v = __ldg(x + i);

		v.x = silu1(v.x);
		v.y = silu1(v.y);
		v.z = silu1(v.z);
		v.w = silu1(v.w);
		y[i] = v;
	}
}

__global__ void silu_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = silu1(x[i]);
}

static unsigned grid_for(int64_t work, int threads)
{
	int64_t g = (work + threads - 1) / threads;

	if (g > 16384)
		g = 16384;
	return g < 1 ? 1u : (unsigned)g;
}

extern "C" void silu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	const int threads = 256;
	int64_t n = B * D, done = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0) {
		int64_t n4 = n / 4;

		if (n4 > 0)
			silu_vec<<<grid_for(n4, threads), threads, 0, stream>>>((const float4*)x, (float4*)y, n4);
		done = n4 * 4;
	}
	if (done < n)
		silu_scalar<<<grid_for(n - done, threads), threads, 0, stream>>>(x, y, done, n);
}
