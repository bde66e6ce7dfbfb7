// kjudge-case: task=level1/l1_norm expect=pass
/* y = x / sum(|x|) per row, one block of 512 threads per row.  When the row
 * has at most 16384 floats (and D % 4 == 0 with 16-byte aligned buffers)
 * each thread keeps its up to 8 float4 of the row in registers between the
 * sum and the scaling: one read and one write of the row.  Longer rows read
 * x a second time (mostly from L2); other sizes use scalar accesses and
 * read twice.  The sum is float (per-thread partials, tree across the
 * block: ~1e-6 relative at most against the 1e-4 tolerance); y = x * (1 /
 * sum), within 1.5 ulp of the quotient.
 *
 * Why faster: the eager baseline runs abs (read and write B*D), the row sum
 * (read) and the broadcast division (read, write): 5 passes over B*D
 * floats; this makes 2 (rows up to 16384: ~2.5x) or 3 (longer rows: ~1.7x,
 * more when the re-read hits L2) in one launch. */
#include "kjudge_cuda.h"

#define THREADS 512
#define WARPS (THREADS / 32)
#define VPT 8 /* float4 per thread kept in registers */

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

static __device__ __forceinline__ float4 scale4(float4 v, float s)
{
	return make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

/* D / 4 <= VPT * THREADS: the row stays in registers. */
__global__ void __launch_bounds__(THREADS) l1_rows_reg(const float* __restrict__ x, float* __restrict__ y,
						       int64_t D)
{
	__shared__ float red[WARPS + 1];
	const float4* x4 = reinterpret_cast<const float4*>(x + (int64_t)blockIdx.x * D);
	float4* y4 = reinterpret_cast<float4*>(y + (int64_t)blockIdx.x * D);
	int n4 = (int)(D / 4);
	float4 v[VPT];
	float acc = 0.0f, inv;

#pragma unroll
	for (int k = 0; k < VPT; k++) {
		int i = threadIdx.x + k * THREADS;

		v[k] = i < n4 ? __ldg(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
	}
#pragma unroll
	for (int k = 0; k < VPT; k++)
		acc += (fabsf(v[k].x) + fabsf(v[k].y)) + (fabsf(v[k].z) + fabsf(v[k].w));
	inv = 1.0f / block_sum(acc, red);
#pragma unroll
	for (int k = 0; k < VPT; k++) {
		int i = threadIdx.x + k * THREADS;

		if (i < n4)
			y4[i] = scale4(v[k], inv);
	}
}

/* Any D % 4 == 0: two reads of the row. */
__global__ void __launch_bounds__(THREADS) l1_rows_vec(const float* __restrict__ x, float* __restrict__ y,
						       int64_t D)
{
	__shared__ float red[WARPS + 1];
	const float4* x4 = reinterpret_cast<const float4*>(x + (int64_t)blockIdx.x * D);
	float4* y4 = reinterpret_cast<float4*>(y + (int64_t)blockIdx.x * D);
	int64_t n4 = D / 4;
	float acc = 0.0f, inv;

#pragma unroll 4
	for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
		float4 v = __ldg(x4 + i);

		acc += (fabsf(v.x) + fabsf(v.y)) + (fabsf(v.z) + fabsf(v.w));
	}
	inv = 1.0f / block_sum(acc, red);
#pragma unroll 4
	for (int64_t i = threadIdx.x; i < n4; i += THREADS)
		y4[i] = scale4(__ldg(x4 + i), inv);
}

__global__ void __launch_bounds__(THREADS) l1_rows_scalar(const float* __restrict__ x, float* __restrict__ y,
							  int64_t D)
{
	__shared__ float red[WARPS + 1];
	const float* xr = x + (int64_t)blockIdx.x * D;
	float* yr = y + (int64_t)blockIdx.x * D;
	float acc = 0.0f, inv;

	for (int64_t i = threadIdx.x; i < D; i += THREADS)
		acc += fabsf(__ldg(xr + i));
	inv = 1.0f / block_sum(acc, red);
	for (int64_t i = threadIdx.x; i < D; i += THREADS)
		yr[i] = __ldg(xr + i) * inv;
}

extern "C" void l1_norm(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	bool vec = D % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;

	if (B <= 0 || D <= 0)
		return;
	if (vec && D / 4 <= (int64_t)VPT * THREADS)
		l1_rows_reg<<<(unsigned)B, THREADS, 0, stream>>>(x, y, D);
	else if (vec)
		l1_rows_vec<<<(unsigned)B, THREADS, 0, stream>>>(x, y, D);
	else
		l1_rows_scalar<<<(unsigned)B, THREADS, 0, stream>>>(x, y, D);
}
