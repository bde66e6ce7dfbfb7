// kjudge-case: task=level2/layernorm_gelu_scale expect=pass
/* y = 2 * gelu(layer_norm(x) * g + b) (exact, erf GELU) in one kernel, one
 * block per row.  The eager baseline runs three kernels (layer_norm, gelu,
 * mul) and moves 24 bytes per element (read x, write h, read h, write the
 * GELU, read it, write y); this reads x once (cached in shared memory for
 * the later passes) and writes y once, 8 bytes per element, so it should be
 * ~3x faster on the memory-bound bench shapes.  Mean and variance are
 * two-pass (exact mean first), in float with tree reductions.  Rows longer
 * than 11264 floats re-read x from global memory; float4 when D % 4 == 0 and
 * all buffers are 16-byte aligned. */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define CACHE_MAX 11264

/* Block-wide sum returned to every thread; red has WARPS + 1 slots and may
 * be reused by the next call at once (slot WARPS is rewritten only after
 * every thread has passed that call's first barrier). */
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

/* 2 * gelu(h), exact GELU 0.5 h (1 + erf(h / sqrt(2))), as
 * gelu(approximate="none") followed by the scale */
static __device__ __forceinline__ float epi(float v, float mean, float rstd, float g, float b)
{
	float h = (v - mean) * rstd * g + b;

	return 0.5f * h * (1.0f + erff(h * 0.70710678118654752f)) * 2.0f;
}

template <bool VEC, bool CACHE>
__global__ void __launch_bounds__(THREADS) lngs_rows(const float* __restrict__ x, const float* __restrict__ g,
						     const float* __restrict__ b, float* __restrict__ y, int64_t D)
{
	extern __shared__ float4 cache4[];
	__shared__ float red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);
	const float* xr = x + (int64_t)blockIdx.x * D;
	float* yr = y + (int64_t)blockIdx.x * D;
	float acc = 0.0f, mean, rstd;

	if (VEC) {
		const float4* x4 = reinterpret_cast<const float4*>(xr);
		const float4* g4 = reinterpret_cast<const float4*>(g);
		const float4* b4 = reinterpret_cast<const float4*>(b);
		float4* y4 = reinterpret_cast<float4*>(yr);
		int64_t n4 = D / 4;

#pragma unroll 4 /* lets the loads of one thread be in flight together */
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = __ldg(x4 + i);

			if (CACHE)
				cache4[i] = v;
			acc += (v.x + v.y) + (v.z + v.w);
		}
		mean = block_sum(acc, red) / (float)D;
		acc = 0.0f;
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = CACHE ? cache4[i] : __ldg(x4 + i);
			float dx = v.x - mean, dy = v.y - mean, dz = v.z - mean, dw = v.w - mean;

			acc += (dx * dx + dy * dy) + (dz * dz + dw * dw);
		}
		rstd = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = CACHE ? cache4[i] : __ldg(x4 + i);
			float4 gg = __ldg(g4 + i), bb = __ldg(b4 + i), r;

			r.x = epi(v.x, mean, rstd, gg.x, bb.x);
			r.y = epi(v.y, mean, rstd, gg.y, bb.y);
			r.z = epi(v.z, mean, rstd, gg.z, bb.z);
			r.w = epi(v.w, mean, rstd, gg.w, bb.w);
			y4[i] = r;
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = __ldg(xr + i);

			if (CACHE)
				cache[i] = v;
			acc += v;
		}
		mean = block_sum(acc, red) / (float)D;
		acc = 0.0f;
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float d = (CACHE ? cache[i] : __ldg(xr + i)) - mean;

			acc += d * d;
		}
		rstd = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = CACHE ? cache[i] : __ldg(xr + i);

			yr[i] = epi(v, mean, rstd, __ldg(g + i), __ldg(b + i));
		}
	}
}

extern "C" void layernorm_gelu_scale(const float* x, const float* g, const float* b, float* y, int64_t N, int64_t D,
				     cudaStream_t stream)
{
	bool vec = D % 4 == 0 && (((uintptr_t)x | (uintptr_t)g | (uintptr_t)b | (uintptr_t)y) & 15) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	if (N <= 0 || D <= 0)
		return;
	if (vec && cache)
		lngs_rows<true, true><<<(unsigned)N, THREADS, smem, stream>>>(x, g, b, y, D);
	else if (vec)
		lngs_rows<true, false><<<(unsigned)N, THREADS, 0, stream>>>(x, g, b, y, D);
	else if (cache)
		lngs_rows<false, true><<<(unsigned)N, THREADS, smem, stream>>>(x, g, b, y, D);
	else
		lngs_rows<false, false><<<(unsigned)N, THREADS, 0, stream>>>(x, g, b, y, D);
}
