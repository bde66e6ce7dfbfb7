// kjudge-case: task=level1/gelu_tanh expect=pass
/* GELU, tanh form.  0.5*x*(1 + tanh(u)) equals x * sigmoid(2u), which has no
 * cancellation where tanh(u) is near -1 (large negative x), so it is computed
 * as x / (1 + exp(-2u)).  Flat float4 grid-stride map plus a scalar tail. */
#include "kjudge_cuda.h"

__device__ __forceinline__ float gelu1(float v)
{
	const float k = 0.7978845608028654f; /* sqrt(2/pi) */
	float u = k * (v + 0.044715f * v * v * v);

	return v / (1.0f + expf(-2.0f * u));
}

__global__ void gelu_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
		float4 v = __ldg(x + i);

		v.x = gelu1(v.x);
		v.y = gelu1(v.y);
		v.z = gelu1(v.z);
		v.w = gelu1(v.w);
		y[i] = v;
	}
}

__global__ void gelu_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = gelu1(x[i]);
}

static unsigned grid_for(int64_t work, int threads)
{
	int64_t g = (work + threads - 1) / threads;

	if (g > 16384)
		g = 16384;
	return g < 1 ? 1u : (unsigned)g;
}

extern "C" void gelu_tanh(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	const int threads = 256;
	int64_t n = B * D, done = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0) {
		int64_t n4 = n / 4;

		if (n4 > 0)
			gelu_vec<<<grid_for(n4, threads), threads, 0, stream>>>((const float4*)x, (float4*)y, n4);
		done = n4 * 4;
	}
	if (done < n)
		gelu_scalar<<<grid_for(n - done, threads), threads, 0, stream>>>(x, y, done, n);
}
