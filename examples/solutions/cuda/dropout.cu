// kjudge-case: task=level1/dropout expect=pass
/* Dropout with the task's fixed seed (1234) in one pass: each thread owns one
 * Philox4x32-10 block, that is four consecutive elements (flat index i uses
 * counter i / 4, word i % 4), so the four uniforms (w >> 8) * 2^-24 come from
 * one call and x and y move as one 16-byte load and one 16-byte store.  An
 * element is dropped when its uniform is below 0.1f; kept ones are x / 0.9f.
 * The tail (n % 4) and unaligned pointers take a scalar path with the same
 * counter layout.  Indices are 64-bit (n reaches 2^28). */
#include "kjudge_cuda.h"

#define SEED 1234ull

__device__ __forceinline__ uint4 philox4x32_10(uint64_t ctr, uint64_t key)
{
	uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = 0, c3 = 0;
	uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);

#pragma unroll
	for (int r = 0; r < 10; r++) {
		uint32_t hi0 = __umulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
		uint32_t hi1 = __umulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;

		c0 = hi1 ^ c1 ^ k0;
		c1 = lo1;
		c2 = hi0 ^ c3 ^ k1;
		c3 = lo0;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	return make_uint4(c0, c1, c2, c3);
}

__device__ __forceinline__ float drop1(float x, uint32_t w)
{
	float u = (float)(w >> 8) * (1.0f / 16777216.0f);

	return u < 0.1f ? 0.0f : x / 0.9f;
}

__global__ void dropout_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < n4; b += stride) {
		uint4 w = philox4x32_10((uint64_t)b, SEED);
		float4 v = __ldg(x + b);

		v.x = drop1(v.x, w.x);
		v.y = drop1(v.y, w.y);
		v.z = drop1(v.z, w.z);
		v.w = drop1(v.w, w.w);
		y[b] = v;
	}
}

__global__ void dropout_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t from,
			       int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		uint4 w = philox4x32_10((uint64_t)(i / 4), SEED);
		uint32_t wk = (i & 3) == 0 ? w.x : (i & 3) == 1 ? w.y : (i & 3) == 2 ? w.z : w.w;

		y[i] = drop1(x[i], wk);
	}
}

static unsigned grid_for(int64_t work, int threads)
{
	int64_t g = (work + threads - 1) / threads;

	if (g > 16384)
		g = 16384;
	return g < 1 ? 1u : (unsigned)g;
}

extern "C" void dropout(const float* x, float* y, int64_t B, int64_t N, cudaStream_t stream)
{
	const int threads = 256;
	int64_t n = B * N, done = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0) {
		int64_t n4 = n / 4;

		if (n4 > 0)
			dropout_vec<<<grid_for(n4, threads), threads, 0, stream>>>((const float4*)x, (float4*)y, n4);
		done = n4 * 4;
	}
	if (done < n)
		dropout_scalar<<<grid_for(n - done, threads), threads, 0, stream>>>(x, y, done, n);
}
