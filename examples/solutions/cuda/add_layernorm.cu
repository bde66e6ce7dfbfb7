// kjudge-case: task=level2/add_layernorm expect=pass
/* h = x + r; y = layer_norm(h) * g + b in one kernel, one block per row.
 * The eager baseline runs an add kernel (read x and r, write h) and a
 * layer_norm kernel (read h, write y): 20 bytes per element.  Here h is
 * formed in registers, written once and kept in shared memory for the
 * statistics and the normalization: 16 bytes per element (the minimum,
 * since both outputs are required), and one launch instead of two.  Mean and
 * variance are two-pass (exact mean first) in float with tree reductions.
 * Rows longer than 11264 floats re-read h from global memory (each thread
 * reads back only the elements it wrote itself, so no extra barrier); float4
 * when D % 4 == 0 and all buffers are 16-byte aligned. */
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

template <bool VEC, bool CACHE>
__global__ void __launch_bounds__(THREADS) addln_rows(const float* __restrict__ x, const float* __restrict__ r,
						      const float* __restrict__ g, const float* __restrict__ b,
						      float* __restrict__ h, float* __restrict__ y, int64_t D)
{
	extern __shared__ float4 cache4[];
	__shared__ float red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);
	int64_t row = (int64_t)blockIdx.x * D;
	const float *xr = x + row, *rr = r + row;
	float *hr = h + row, *yr = y + row;
	float acc = 0.0f, mean, rstd;

	if (VEC) {
		const float4* x4 = reinterpret_cast<const float4*>(xr);
		const float4* r4 = reinterpret_cast<const float4*>(rr);
		float4* h4 = reinterpret_cast<float4*>(hr);
		const float4* g4 = reinterpret_cast<const float4*>(g);
		const float4* b4 = reinterpret_cast<const float4*>(b);
		float4* y4 = reinterpret_cast<float4*>(yr);
		int64_t n4 = D / 4;

#pragma unroll 4 /* lets the loads of one thread be in flight together */
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = __ldg(x4 + i), u = __ldg(r4 + i);

			v.x += u.x;
			v.y += u.y;
			v.z += u.z;
			v.w += u.w;
			h4[i] = v;
			if (CACHE)
				cache4[i] = v;
			acc += (v.x + v.y) + (v.z + v.w);
		}
		mean = block_sum(acc, red) / (float)D;
		acc = 0.0f;
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = CACHE ? cache4[i] : h4[i];
			float dx = v.x - mean, dy = v.y - mean, dz = v.z - mean, dw = v.w - mean;

			acc += (dx * dx + dy * dy) + (dz * dz + dw * dw);
		}
		rstd = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
			float4 v = CACHE ? cache4[i] : h4[i];
			float4 gg = __ldg(g4 + i), bb = __ldg(b4 + i), o;

			o.x = (v.x - mean) * rstd * gg.x + bb.x;
			o.y = (v.y - mean) * rstd * gg.y + bb.y;
			o.z = (v.z - mean) * rstd * gg.z + bb.z;
			o.w = (v.w - mean) * rstd * gg.w + bb.w;
			y4[i] = o;
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = __ldg(xr + i) + __ldg(rr + i);

			hr[i] = v;
			if (CACHE)
				cache[i] = v;
			acc += v;
		}
		mean = block_sum(acc, red) / (float)D;
		acc = 0.0f;
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float d = (CACHE ? cache[i] : hr[i]) - mean;

			acc += d * d;
		}
		rstd = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = CACHE ? cache[i] : hr[i];

			yr[i] = (v - mean) * rstd * __ldg(g + i) + __ldg(b + i);
		}
	}
}

extern "C" void add_layernorm(const float* x, const float* r, const float* g, const float* b, float* h, float* y,
			      int64_t N, int64_t D, cudaStream_t stream)
{
	uintptr_t all = (uintptr_t)x | (uintptr_t)r | (uintptr_t)g | (uintptr_t)b | (uintptr_t)h | (uintptr_t)y;
	bool vec = D % 4 == 0 && (all & 15) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	if (N <= 0 || D <= 0)
		return;
	if (vec && cache)
		addln_rows<true, true><<<(unsigned)N, THREADS, smem, stream>>>(x, r, g, b, h, y, D);
	else if (vec)
		addln_rows<true, false><<<(unsigned)N, THREADS, 0, stream>>>(x, r, g, b, h, y, D);
	else if (cache)
		addln_rows<false, true><<<(unsigned)N, THREADS, smem, stream>>>(x, r, g, b, h, y, D);
	else
		addln_rows<false, false><<<(unsigned)N, THREADS, 0, stream>>>(x, r, g, b, h, y, D);
}
