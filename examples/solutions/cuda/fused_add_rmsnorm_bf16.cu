// kjudge-case: task=serving/fused_add_rmsnorm_bf16 expect=pass
/* h = x + r; y = h * rsqrt(mean(h^2) + 1e-5) * w on bf16 rows, in one
 * kernel, one block per row.  The sum of two widened bf16 values is formed
 * in float (exact but for extreme exponent gaps), written to h rounded once
 * to bf16, and kept as float in shared memory; the sum of squares, the
 * scale and the products are float, y is rounded once.  The eager baseline
 * runs an add kernel (read x and r, write h) and an rms_norm kernel (read
 * h, write y): 10 bytes per element and two launches; this moves the 8
 * compulsory bytes (read x and r, write h and y) in one launch, so ~1.2x
 * faster on the memory-bound bench shapes.  16-byte accesses (8 bf16) when
 * D % 8 == 0 and every buffer is 16-byte aligned (all bench shapes), else
 * scalar.  Rows longer than 11264 elements (the float cache would pass the
 * 48 KiB of shared memory available without an opt-in) read x and r again
 * in the second pass. */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define CACHE_MAX 11264

/* Block-wide sum returned to every thread. */
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

/* The 8 float sums of two vectors of 8 bf16. */
static __device__ __forceinline__ void add8(uint4 a, uint4 b, float* s)
{
	const uint32_t* pa = reinterpret_cast<const uint32_t*>(&a);
	const uint32_t* pb = reinterpret_cast<const uint32_t*>(&b);

#pragma unroll
	for (int j = 0; j < 4; j++) {
		float2 u = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(pa + j));
		float2 v = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(pb + j));

		s[2 * j] = u.x + v.x;
		s[2 * j + 1] = u.y + v.y;
	}
}

static __device__ __forceinline__ uint4 pack8(const float* s)
{
	uint4 o;
	uint32_t* po = reinterpret_cast<uint32_t*>(&o);

#pragma unroll
	for (int j = 0; j < 4; j++) {
		__nv_bfloat162 p = __floats2bfloat162_rn(s[2 * j], s[2 * j + 1]);

		po[j] = *reinterpret_cast<uint32_t*>(&p);
	}
	return o;
}

template <bool VEC, bool CACHE>
__global__ void __launch_bounds__(THREADS)
	addrms_rows(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ r,
		    const __nv_bfloat16* __restrict__ w, __nv_bfloat16* __restrict__ h,
		    __nv_bfloat16* __restrict__ y, int64_t D)
{
	extern __shared__ float4 cache4[];
	__shared__ float red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);
	int64_t row = (int64_t)blockIdx.x * D;
	const __nv_bfloat16 *xr = x + row, *rr = r + row;
	__nv_bfloat16 *hr = h + row, *yr = y + row;
	float acc = 0.0f, inv;

	if (VEC) {
		const uint4* x8 = reinterpret_cast<const uint4*>(xr);
		const uint4* r8 = reinterpret_cast<const uint4*>(rr);
		const uint4* w8 = reinterpret_cast<const uint4*>(w);
		uint4* h8 = reinterpret_cast<uint4*>(hr);
		uint4* y8 = reinterpret_cast<uint4*>(yr);
		int64_t n8 = D / 8;

#pragma unroll 2 /* lets the loads of one thread be in flight together */
		for (int64_t i = threadIdx.x; i < n8; i += THREADS) {
			float s[8];

			add8(__ldg(x8 + i), __ldg(r8 + i), s);
			h8[i] = pack8(s);
			if (CACHE) {
				cache4[i] = make_float4(s[0], s[1], s[2], s[3]);
				cache4[n8 + i] = make_float4(s[4], s[5], s[6], s[7]);
			}
#pragma unroll
			for (int j = 0; j < 8; j++)
				acc += s[j] * s[j];
		}
		inv = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < n8; i += THREADS) {
			float s[8], g[8];

			if (CACHE) {
				float4 lo = cache4[i], hi = cache4[n8 + i];

				s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w;
				s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
			} else {
				add8(__ldg(x8 + i), __ldg(r8 + i), s);
			}
			uint4 wv = __ldg(w8 + i);
			const uint32_t* pw = reinterpret_cast<const uint32_t*>(&wv);

#pragma unroll
			for (int j = 0; j < 4; j++) {
				float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(pw + j));

				g[2 * j] = f.x;
				g[2 * j + 1] = f.y;
			}
#pragma unroll
			for (int j = 0; j < 8; j++)
				s[j] = s[j] * inv * g[j];
			y8[i] = pack8(s);
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = __bfloat162float(xr[i]) + __bfloat162float(rr[i]);

			hr[i] = __float2bfloat16_rn(v);
			if (CACHE)
				cache[i] = v;
			acc += v * v;
		}
		inv = rsqrtf(block_sum(acc, red) / (float)D + 1e-5f);
		for (int64_t i = threadIdx.x; i < D; i += THREADS) {
			float v = CACHE ? cache[i] : __bfloat162float(xr[i]) + __bfloat162float(rr[i]);

			yr[i] = __float2bfloat16_rn(v * inv * __bfloat162float(w[i]));
		}
	}
}

extern "C" void fused_add_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* r, const __nv_bfloat16* w,
				       __nv_bfloat16* h, __nv_bfloat16* y, int64_t T, int64_t D,
				       cudaStream_t stream)
{
	uintptr_t all = (uintptr_t)x | (uintptr_t)r | (uintptr_t)w | (uintptr_t)h | (uintptr_t)y;
	bool vec = D % 8 == 0 && (all & 15) == 0;
	bool cache = D <= CACHE_MAX;
	size_t smem = cache ? (size_t)D * sizeof(float) : 0;

	if (T <= 0 || D <= 0)
		return;
	if (vec && cache)
		addrms_rows<true, true><<<(unsigned)T, THREADS, smem, stream>>>(x, r, w, h, y, D);
	else if (vec)
		addrms_rows<true, false><<<(unsigned)T, THREADS, 0, stream>>>(x, r, w, h, y, D);
	else if (cache)
		addrms_rows<false, true><<<(unsigned)T, THREADS, smem, stream>>>(x, r, w, h, y, D);
	else
		addrms_rows<false, false><<<(unsigned)T, THREADS, 0, stream>>>(x, r, w, h, y, D);
}
