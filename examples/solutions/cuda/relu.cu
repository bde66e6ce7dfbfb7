// kjudge-case: task=level1/relu expect=pass
/* ReLU as a flat elementwise map over B*D floats: float4 loads and stores in a
 * grid-stride loop (memory-bound, so the aim is full-width coalesced traffic),
 * then a scalar loop for the tail and for buffers that are not 16-byte
 * aligned.  Indices are 64-bit: B*D reaches 2^29 and byte offsets pass 2^31. */
#include "kjudge_cuda.h"

__device__ __forceinline__ float relu1(float v)
{
	return v > 0.0f ? v : 0.0f;
}

__global__ void relu_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
		float4 v = __ldg(x + i);

		v.x = relu1(v.x);
		v.y = relu1(v.y);
		v.z = relu1(v.z);
		v.w = relu1(v.w);
		y[i] = v;
	}
}

__global__ void relu_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = relu1(x[i]);
}

static unsigned grid_for(int64_t work, int threads)
{
	int64_t g = (work + threads - 1) / threads;

	if (g > 16384)
		g = 16384;
	return g < 1 ? 1u : (unsigned)g;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	const int threads = 256;
	int64_t n = B * D, done = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0) {
		int64_t n4 = n / 4;

		if (n4 > 0)
			relu_vec<<<grid_for(n4, threads), threads, 0, stream>>>((const float4*)x, (float4*)y, n4);
		done = n4 * 4;
	}
	if (done < n)
		relu_scalar<<<grid_for(n - done, threads), threads, 0, stream>>>(x, y, done, n);
}
