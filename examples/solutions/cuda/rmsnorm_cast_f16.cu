// kjudge-case: task=level2/rmsnorm_cast_f16 expect=pass
/* y = half(x * rsqrt(mean(x^2) + 1e-6) * w) in one kernel, one block per
 * row.  The eager baseline writes the f32 RMSNorm result and reads it back
 * in a cast kernel: 4 + 4 + 4 + 2 = 14 bytes per element (plus a second
 * launch); this reads x once (kept in shared memory for the second pass) and
 * writes 2-byte halves: 6 bytes per element, so it should be ~2x faster on
 * the memory-bound bench shapes.  The f32 value is rounded to f16 once, to
 * nearest even.  Rows longer than 11264 floats re-read x from global memory;
 * float4 loads and 8-byte stores of four halves when D % 4 == 0 and the
 * buffers are aligned. */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define CACHE_MAX 11264

static __device__ __forceinline__ float block_sum(float v, float* red)
{
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < WARPS ? red[lane] : 0.0f;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
		if (lane == 0)
			red[WARPS] = v;
	}
	__syncthreads();
	return red[WARPS];
}

template <bool VEC, bool CACHE>
__global__ void __launch_bounds__(THREADS) rmsh_rows(const float* __restrict__ x, const float* __restrict__ w,
						     __half* __restrict__ y, int64_t D)
{
	extern __shared__ float4 cache4[];
	__shared__ float red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);
	const float* xr = x + (int64_t)blockIdx.x * D;
	__half* yr = y + (int64_t)blockIdx.x * D;
	float acc = 0.0f, inv;

	if (VEC) {
		const float4* x4 = reinterpret_cast<const float4*>(xr);
		const float4* w4 = reinterpret_cast<const float4*>(w);
		uint2* y4 = reinterpret_cast<uint2*>(yr); /* four halves */
		int64_t n4 = D / 4;

#pragma unroll 4 /* lets the loads of one thread be in flight together */
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = __ldg(x4 + i);

			if (CACHE)
				cache4[i] = v;
			acc += (v.x * v.x + v.y * v.y) + (v.z * v.z + v.w * v.w);
		}
		inv = rsqrtf(block_sum(acc, red) / (float)D + 1e-6f);
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = CACHE ? cache4[i] : __ldg(x4 + i);
			float4 g = __ldg(w4 + i);
			__half2 lo = __floats2half2_rn(v.x * inv * g.x, v.y * inv * g.y);
			__half2 hi = __floats2half2_rn(v.z * inv * g.z, v.w * inv * g.w);
			uint2 o;

			o.x = *reinterpret_cast<uint32_t*>(&lo);
			o.y = *reinterpret_cast<uint32_t*>(&hi);
			y4[i] = o;
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = __ldg(xr + i);

			if (CACHE)
				cache[i] = v;
			acc += v * v;
		}
		inv = rsqrtf(block_sum(acc, red) / (float)D + 1e-6f);
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = CACHE ? cache[i] : __ldg(xr + i);

			yr[i] = __float2half_rn(v * inv * __ldg(w + i));
		}
	}
}

extern "C" void rmsnorm_cast_f16(const float* x, const float* w, __half* y, int64_t N, int64_t D, cudaStream_t stream)
{
	bool vec = D % 4 == 0 && (((uintptr_t)x | (uintptr_t)w) & 15) == 0 && ((uintptr_t)y & 7) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	if (N <= 0 || D <= 0)
		return;
	if (vec && cache)
		rmsh_rows<true, true><<<(unsigned)N, THREADS, smem, stream>>>(x, w, y, D);
	else if (vec)
		rmsh_rows<true, false><<<(unsigned)N, THREADS, 0, stream>>>(x, w, y, D);
	else if (cache)
		rmsh_rows<false, true><<<(unsigned)N, THREADS, smem, stream>>>(x, w, y, D);
	else
		rmsh_rows<false, false><<<(unsigned)N, THREADS, 0, stream>>>(x, w, y, D);
}
