// kjudge-case: task=level1/layer_norm expect=pass
/* LayerNorm over the last dim (biased variance, eps 1e-5), one block per
 * row.  The row is read from global memory once: pass 1 sums it and keeps a
 * copy in shared memory, pass 2 takes the variance around the exact mean
 * (two-pass, no cancellation), pass 3 writes (x - mean) * rstd * w + b.  Each
 * thread re-reads only the shared-memory slots it wrote, so the passes need
 * no barrier beyond those of the reductions.  Rows longer than 11264 floats
 * (44 KiB: static plus dynamic shared memory must stay under 48 KiB without
 * an opt-in) are read from global memory three times instead.  float4 when
 * D % 4 == 0 and the buffers are 16-byte aligned. */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define CACHE_MAX 11264

/* Sum over the block, returned to every thread.  red has WARPS + 1 slots.  A
 * second call may follow at once: slot WARPS is rewritten only after every
 * thread has passed the first barrier of that call, so after its last read. */
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
__global__ void __launch_bounds__(THREADS) ln_rows(const float* __restrict__ x, const float* __restrict__ w,
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
		const float4* w4 = reinterpret_cast<const float4*>(w);
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
			float4 g = __ldg(w4 + i), c = __ldg(b4 + i), r;

			r.x = (v.x - mean) * rstd * g.x + c.x;
			r.y = (v.y - mean) * rstd * g.y + c.y;
			r.z = (v.z - mean) * rstd * g.z + c.z;
			r.w = (v.w - mean) * rstd * g.w + c.w;
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

			yr[i] = (v - mean) * rstd * __ldg(w + i) + __ldg(b + i);
		}
	}
}

extern "C" void layer_norm(const float* x, const float* w, const float* b, float* y, int64_t B, int64_t S,
			   int64_t D, cudaStream_t stream)
{
	int64_t rows = B * S;
	bool vec = D % 4 == 0 && (((uintptr_t)x | (uintptr_t)w | (uintptr_t)b | (uintptr_t)y) & 15) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	if (rows <= 0 || D <= 0)
		return;
	if (vec && cache)
		ln_rows<true, true><<<(unsigned)rows, THREADS, smem, stream>>>(x, w, b, y, D);
	else if (vec)
		ln_rows<true, false><<<(unsigned)rows, THREADS, 0, stream>>>(x, w, b, y, D);
	else if (cache)
		ln_rows<false, true><<<(unsigned)rows, THREADS, smem, stream>>>(x, w, b, y, D);
	else
		ln_rows<false, false><<<(unsigned)rows, THREADS, 0, stream>>>(x, w, b, y, D);
}
