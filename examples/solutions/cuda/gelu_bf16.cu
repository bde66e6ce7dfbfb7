// kjudge-case: task=level1/gelu_bf16 expect=pass
/* Exact (erf) GELU on bf16: each value is widened to float, GELU is computed
 * in float and rounded once to bf16, as PyTorch does.  Flat map over B*D
 * elements, 8 bf16 (16 bytes) per load and store, scalar tail; B*D reaches
 * 2^30, so indices are 64-bit. */
#include "kjudge_cuda.h"

__device__ __forceinline__ float gelu1(float v)
{
	return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
}

__device__ __forceinline__ uint32_t gelu2(uint32_t packed)
{
	__nv_bfloat162 h = *reinterpret_cast<__nv_bfloat162*>(&packed);
	float2 f = __bfloat1622float2(h);
	__nv_bfloat162 r = __floats2bfloat162_rn(gelu1(f.x), gelu1(f.y));

	return *reinterpret_cast<uint32_t*>(&r);
}

__global__ void gelu_vec(const uint4* __restrict__ x, uint4* __restrict__ y, int64_t n8)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n8; i += stride) {
		uint4 v = __ldg(x + i);

		v.x = gelu2(v.x);
		v.y = gelu2(v.y);
		v.z = gelu2(v.z);
		v.w = gelu2(v.w);
		y[i] = v;
	}
}

__global__ void gelu_scalar(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y,
			    int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = __float2bfloat16_rn(gelu1(__bfloat162float(x[i])));
}

static unsigned grid_for(int64_t work, int threads)
{
	int64_t g = (work + threads - 1) / threads;

	if (g > 16384)
		g = 16384;
	return g < 1 ? 1u : (unsigned)g;
}

extern "C" void gelu_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int64_t B, int64_t D, cudaStream_t stream)
{
	const int threads = 256;
	int64_t n = B * D, done = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0) {
		int64_t n8 = n / 8;

		if (n8 > 0)
			gelu_vec<<<grid_for(n8, threads), threads, 0, stream>>>((const uint4*)x, (uint4*)y, n8);
		done = n8 * 8;
	}
	if (done < n)
		gelu_scalar<<<grid_for(n - done, threads), threads, 0, stream>>>(x, y, done, n);
}
