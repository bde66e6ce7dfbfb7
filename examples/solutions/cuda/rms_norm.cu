// kjudge-case: task=level1/rms_norm expect=pass
/* RMSNorm over the last dim: y = x * rsqrt(mean(x^2) + 1e-6) * w, one block
 * per row.  Pass 1 reads the row once, sums squares and keeps a copy in
 * shared memory (each thread re-reads only its own slots, so no barrier is
 * needed); pass 2 writes from that copy.  Rows longer than 11264 floats are
 * read twice from global memory instead (static plus dynamic shared memory
 * stays under the 48 KiB available without an opt-in).  float4 when
 * D % 4 == 0 and the buffers are 16-byte aligned. */
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
__global__ void __launch_bounds__(THREADS) rms_rows(const float* __restrict__ x, const float* __restrict__ w,
						    float* __restrict__ y, int64_t D)
{
	extern __shared__ float4 cache4[];
	__shared__ float red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);
	const float* xr = x + (int64_t)blockIdx.x * D;
	float* yr = y + (int64_t)blockIdx.x * D;
	float acc = 0.0f, inv;

	if (VEC) {
		const float4* x4 = reinterpret_cast<const float4*>(xr);
		const float4* w4 = reinterpret_cast<const float4*>(w);
		float4* y4 = reinterpret_cast<float4*>(yr);
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
			float4 g = __ldg(w4 + i), r;

			r.x = v.x * inv * g.x;
			r.y = v.y * inv * g.y;
			r.z = v.z * inv * g.z;
			r.w = v.w * inv * g.w;
			y4[i] = r;
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

			yr[i] = v * inv * __ldg(w + i);
		}
	}
}

extern "C" void rms_norm(const float* x, const float* w, float* y, int64_t B, int64_t S, int64_t D,
			 cudaStream_t stream)
{
	int64_t rows = B * S;
	bool vec = D % 4 == 0 && (((uintptr_t)x | (uintptr_t)w | (uintptr_t)y) & 15) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	if (rows <= 0 || D <= 0)
		return;
	if (vec && cache)
		rms_rows<true, true><<<(unsigned)rows, THREADS, smem, stream>>>(x, w, y, D);
	else if (vec)
		rms_rows<true, false><<<(unsigned)rows, THREADS, 0, stream>>>(x, w, y, D);
	else if (cache)
		rms_rows<false, true><<<(unsigned)rows, THREADS, smem, stream>>>(x, w, y, D);
	else
		rms_rows<false, false><<<(unsigned)rows, THREADS, 0, stream>>>(x, w, y, D);
}
