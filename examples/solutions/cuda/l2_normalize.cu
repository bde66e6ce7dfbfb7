// kjudge-case: task=level1/l2_normalize expect=pass
/* F.normalize(x, p=2, dim=1) in one launch, one block per row: the sum of
 * squares with float4 loads (float per thread, a warp-shuffle and shared
 * memory tree), then every element times 1 / max(sqrt(sum), 1e-12).  The
 * eager baseline writes the norms and runs a second kernel that reads x
 * again; here the second read of a row follows the first at once, so for
 * rows of 16384 floats it mostly hits the L2. */
#include "kjudge_cuda.h"

#define THREADS 512

static __device__ __forceinline__ float block_sum(float v)
{
	__shared__ float red[THREADS / 32 + 1];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < THREADS / 32 ? red[lane] : 0.0f;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
		if (lane == 0)
			red[THREADS / 32] = v;
	}
	__syncthreads();
	return red[THREADS / 32];
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) l2n_rows(const float* __restrict__ x, float* __restrict__ y, int64_t D)
{
	const float* xr = x + (int64_t)blockIdx.x * D;
	float* yr = y + (int64_t)blockIdx.x * D;
	float s = 0.0f, inv;

	if (VEC) {
		const float4* x4 = reinterpret_cast<const float4*>(xr);

		for (int64_t i = threadIdx.x; i < D / 4; i += THREADS) {
			float4 v = __ldg(x4 + i);

			s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS)
			s += xr[i] * xr[i];
	}
	s = block_sum(s);
	inv = 1.0f / fmaxf(sqrtf(s), 1e-12f);
	if (VEC) {
		const float4* x4 = reinterpret_cast<const float4*>(xr);
		float4* y4 = reinterpret_cast<float4*>(yr);

		for (int64_t i = threadIdx.x; i < D / 4; i += THREADS) {
			float4 v = __ldg(x4 + i);

			v.x *= inv;
			v.y *= inv;
			v.z *= inv;
			v.w *= inv;
			y4[i] = v;
		}
	} else {
		for (int64_t i = threadIdx.x; i < D; i += THREADS)
			yr[i] = xr[i] * inv;
	}
}

extern "C" void l2_normalize(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	if (B <= 0 || D <= 0)
		return;
	if (D % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0)
		l2n_rows<true><<<(unsigned)B, THREADS, 0, stream>>>(x, y, D);
	else
		l2n_rows<false><<<(unsigned)B, THREADS, 0, stream>>>(x, y, D);
}
