// kjudge-case: task=level1/cross_entropy expect=pass
/* Mean cross-entropy of logits [B, C] against int64 targets, in one launch.
 * A warp per row: each lane keeps an online (max, sum of exp(x - max)) pair
 * over its share of the row (float4 loads, four in flight), the pairs are
 * merged with shuffles, and lane 0 adds max + log(sum) - x[target] to a
 * per-warp double.  Each block writes its partial to a static device array;
 * the last block to finish (a ticket counter, after a memory fence) adds the
 * partials in a fixed order, so the result does not depend on block timing,
 * writes the mean and re-arms the counter.  No allocation, no second launch.
 * The f32 tolerance here is 1e-5, hence the double accumulation. */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define MAX_BLOCKS 2048

__device__ double ce_partial[MAX_BLOCKS];
__device__ unsigned int ce_ticket;

struct ms {
	float m;
	float s;
};

static __device__ __forceinline__ ms ms_merge(ms a, ms b)
{
	ms r;

	r.m = fmaxf(a.m, b.m);
	if (r.m == -INFINITY) {
		r.s = 0.0f;
		return r;
	}
	r.s = a.s * expf(a.m - r.m) + b.s * expf(b.m - r.m);
	return r;
}

static __device__ __forceinline__ void ms_add4(ms& a, float4 v)
{
	float mx = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));

	if (mx > a.m) {
		a.s *= expf(a.m - mx);
		a.m = mx;
	}
	a.s += expf(v.x - a.m) + expf(v.y - a.m) + expf(v.z - a.m) + expf(v.w - a.m);
}

static __device__ __forceinline__ void ms_add1(ms& a, float v)
{
	if (v > a.m) {
		a.s *= expf(a.m - v);
		a.m = v;
	}
	a.s += expf(v - a.m);
}

/* Block-wide double sum, valid in thread 0. */
static __device__ __forceinline__ double block_dsum(double v)
{
	__shared__ double red[WARPS];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	v = 0.0;
	if (threadIdx.x == 0)
		for (int w = 0; w < WARPS; w++)
			v += red[w];
	return v;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) ce_kernel(const float* __restrict__ logits,
						     const int64_t* __restrict__ target, float* __restrict__ loss,
						     int64_t B, int64_t C)
{
	__shared__ bool last;
	int lane = threadIdx.x & 31;
	int64_t warp_id = (int64_t)blockIdx.x * WARPS + (threadIdx.x >> 5);
	int64_t warps = (int64_t)gridDim.x * WARPS;
	double mine = 0.0;

	for (int64_t row = warp_id; row < B; row += warps) {
		const float* xr = logits + row * C;
		ms a = {-INFINITY, 0.0f};
		int64_t i;

		if (VEC) {
			const float4* x4 = reinterpret_cast<const float4*>(xr);
			int64_t n4 = C / 4;

			for (i = lane; i + 96 < n4; i += 128) {
				float4 v0 = __ldg(x4 + i), v1 = __ldg(x4 + i + 32);
				float4 v2 = __ldg(x4 + i + 64), v3 = __ldg(x4 + i + 96);

				ms_add4(a, v0);
				ms_add4(a, v1);
				ms_add4(a, v2);
				ms_add4(a, v3);
			}
			for (; i < n4; i += 32)
				ms_add4(a, __ldg(x4 + i));
		} else {
			for (i = lane; i < C; i += 32)
				ms_add1(a, __ldg(xr + i));
		}
		for (int o = 16; o > 0; o >>= 1) {
			ms b;

			b.m = __shfl_xor_sync(0xffffffffu, a.m, o);
			b.s = __shfl_xor_sync(0xffffffffu, a.s, o);
			a = ms_merge(a, b);
		}
		if (lane == 0)
			mine += (double)a.m + log((double)a.s) - (double)__ldg(xr + __ldg(target + row));
	}
	mine = block_dsum(mine);
	if (threadIdx.x == 0) {
		ce_partial[blockIdx.x] = mine;
		__threadfence();
		last = atomicAdd(&ce_ticket, 1u) == gridDim.x - 1;
	}
	__syncthreads();
	if (!last)
		return;
	__threadfence();
	mine = 0.0;
	for (unsigned int i = threadIdx.x; i < gridDim.x; i += THREADS)
		mine += __ldcg(ce_partial + i);
	mine = block_dsum(mine);
	if (threadIdx.x == 0) {
		loss[0] = (float)(mine / (double)B);
		ce_ticket = 0;
	}
}

extern "C" void cross_entropy(const float* logits, const int64_t* target, float* loss, int64_t B, int64_t C,
			      cudaStream_t stream)
{
	int64_t blocks = (B + WARPS - 1) / WARPS;

	if (B <= 0 || C <= 0)
		return;
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	if (C % 4 == 0 && ((uintptr_t)logits & 15) == 0)
		ce_kernel<true><<<(unsigned)blocks, THREADS, 0, stream>>>(logits, target, loss, B, C);
	else
		ce_kernel<false><<<(unsigned)blocks, THREADS, 0, stream>>>(logits, target, loss, B, C);
}
