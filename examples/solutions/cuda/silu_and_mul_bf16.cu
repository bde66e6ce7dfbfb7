// kjudge-case: task=serving/silu_and_mul_bf16 expect=pass
/* y[t, j] = silu(x[t, j]) * x[t, F + j] for a bf16 x [T, 2F], in one pass:
 * both halves widened to float, silu(v) = v / (1 + exp(-v)) and the product
 * in float, one rounding to bf16.  The eager baseline copies each half out
 * (two narrow kernels), runs silu and then the product, each through memory:
 * 18 bytes moved per output element against the 6 compulsory here (read
 * gate and up, write y), so ~2.5-3x faster on the memory-bound bench shapes.
 * One thread handles 8 consecutive outputs with 16-byte loads of both
 * halves and a 16-byte store when F % 8 == 0 and the buffers are 16-byte
 * aligned (all bench shapes); otherwise one output per thread.  The row
 * comes from blockIdx.y (grid-strided past 65535 rows), so no per-element
 * division.  exp(-v) overflows to inf for v < -88 and gives -0, the limit. */
#include "kjudge_cuda.h"

static __device__ __forceinline__ float silu_mul(float g, float u)
{
	return g / (1.0f + __expf(-g)) * u;
}

static __device__ __forceinline__ uint32_t silu_mul2(uint32_t gp, uint32_t up)
{
	float2 g = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&gp));
	float2 u = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&up));
	__nv_bfloat162 r = __floats2bfloat162_rn(silu_mul(g.x, u.x), silu_mul(g.y, u.y));

	return *reinterpret_cast<uint32_t*>(&r);
}

/* grid: x over the F / 8 vectors of a row, y over rows (strided). */
__global__ void swiglu_vec(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int64_t T,
			   int64_t F)
{
	int64_t F8 = F / 8;
	int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (c >= F8)
		return;
	for (int64_t t = blockIdx.y; t < T; t += gridDim.y) {
		const uint4* g4 = reinterpret_cast<const uint4*>(x + t * 2 * F);
		const uint4* u4 = reinterpret_cast<const uint4*>(x + t * 2 * F + F);
		uint4 g = __ldg(g4 + c), u = __ldg(u4 + c), o;

		o.x = silu_mul2(g.x, u.x);
		o.y = silu_mul2(g.y, u.y);
		o.z = silu_mul2(g.z, u.z);
		o.w = silu_mul2(g.w, u.w);
		reinterpret_cast<uint4*>(y + t * F)[c] = o;
	}
}

__global__ void swiglu_scalar(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int64_t T,
			      int64_t F)
{
	int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (c >= F)
		return;
	for (int64_t t = blockIdx.y; t < T; t += gridDim.y) {
		float g = __bfloat162float(x[t * 2 * F + c]), u = __bfloat162float(x[t * 2 * F + F + c]);

		y[t * F + c] = __float2bfloat16_rn(silu_mul(g, u));
	}
}

extern "C" void silu_and_mul_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int64_t T, int64_t F,
				  cudaStream_t stream)
{
	const int threads = 256;
	bool vec = F % 8 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
	int64_t cols = vec ? F / 8 : F;
	dim3 grid((unsigned)((cols + threads - 1) / threads), (unsigned)(T < 65535 ? T : 65535));

	if (T <= 0 || F <= 0)
		return;
	if (vec)
		swiglu_vec<<<grid, threads, 0, stream>>>(x, y, T, F);
	else
		swiglu_scalar<<<grid, threads, 0, stream>>>(x, y, T, F);
}
