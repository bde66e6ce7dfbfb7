// kjudge-case: task=level1/gaussian_noise expect=pass
/* Gaussian noise with the task's seed (31337) in one pass: each thread owns one
 * Philox4x32-10 block (counter i / 4), i.e. four consecutive elements, which
 * are two Box-Muller pairs: pair p takes the words a = w[2p], b = w[2p + 1],
 * u1 = ((a >> 8) + 1) * 2^-24, u2 = (b >> 8) * 2^-24, r = sqrt(-2 ln u1), and
 * gives its first element r cos(2 pi u2) and its second r sin(2 pi u2), both
 * from one sincospif(2 u2) (2 u2 is exact in float).  logf, not __logf: for
 * u1 near 1, ln u1 is tiny and __logf's absolute error would reach the
 * tolerance through sqrt.  x and y move as one 16-byte load and store per
 * block; the tail (n % 4) and unaligned pointers take a scalar path with the
 * same layout.  Indices are 64-bit (n reaches 2^28). */
#include "kjudge_cuda.h"

#define SEED 31337ull

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

/* The four normals of Philox block `blk`. */
__device__ __forceinline__ float4 normals4(uint64_t blk)
{
	uint4 w = philox4x32_10(blk, SEED);
	float r0 = sqrtf(-2.0f * logf((float)((w.x >> 8) + 1) * (1.0f / 16777216.0f)));
	float r1 = sqrtf(-2.0f * logf((float)((w.z >> 8) + 1) * (1.0f / 16777216.0f)));
	float s0, c0, s1, c1;

	sincospif((float)(w.y >> 8) * (2.0f / 16777216.0f), &s0, &c0);
	sincospif((float)(w.w >> 8) * (2.0f / 16777216.0f), &s1, &c1);
	return make_float4(r0 * c0, r0 * s0, r1 * c1, r1 * s1);
}

__global__ void noise_vec(const float4* __restrict__ x, float4* __restrict__ y, int64_t n4)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < n4; b += stride) {
		float4 z = normals4((uint64_t)b);
		float4 v = __ldg(x + b);

		v.x += 0.1f * z.x;
		v.y += 0.1f * z.y;
		v.z += 0.1f * z.z;
		v.w += 0.1f * z.w;
		y[b] = v;
	}
}

__global__ void noise_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t from,
			     int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = from + (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		float4 z = normals4((uint64_t)(i / 4));
		float zk = (i & 3) == 0 ? z.x : (i & 3) == 1 ? z.y : (i & 3) == 2 ? z.z : z.w;

		y[i] = x[i] + 0.1f * zk;
	}
}

static unsigned grid_for(int64_t work, int threads)
{
	int64_t g = (work + threads - 1) / threads;

	if (g > 16384)
		g = 16384;
	return g < 1 ? 1u : (unsigned)g;
}

extern "C" void gaussian_noise(const float* x, float* y, int64_t B, int64_t N, cudaStream_t stream)
{
	const int threads = 256;
	int64_t n = B * N, done = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)x | (uintptr_t)y) & 15) == 0) {
		int64_t n4 = n / 4;

		if (n4 > 0)
			noise_vec<<<grid_for(n4, threads), threads, 0, stream>>>((const float4*)x, (float4*)y, n4);
		done = n4 * 4;
	}
	if (done < n)
		noise_scalar<<<grid_for(n - done, threads), threads, 0, stream>>>(x, y, done, n);
}
