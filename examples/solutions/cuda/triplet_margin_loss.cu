// kjudge-case: task=level1/triplet_margin_loss expect=pass
/* mean over rows of max(0, |a - p + 1e-6| - |a - n + 1e-6| + 1), both
 * distances from one read of a, p and n.  Per element the difference plus
 * eps is squared in float; each 16-byte group of 4 squares is summed in
 * float and added to a per-thread double accumulator, the block reduces in
 * double, so the distances (~sqrt(2D) ~ 180-360) keep ~1e-12 relative
 * error and their difference is exact to far below the 1e-4 tolerance.
 * Each block takes rows r, r + 2048, ... and sums its rows' clamped values
 * in double into a static partial array; a one-block kernel adds the
 * partials in a fixed order and divides by B (deterministic).
 *
 * Why faster: the eager baseline runs, per distance, a sub, an add, a pow
 * (each writing a B*D tensor) and a row sum, then small [B] ops: ~16 passes
 * over B*D floats against the 3 compulsory here (read a, p, n once), so
 * ~4-5x faster on the memory-bound bench shapes.  16-byte loads when
 * D % 4 == 0 and the inputs are 16-byte aligned, else scalar.  The clamp
 * keeps a NaN (as torch.clamp), unlike fmaxf. */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define MAX_BLOCKS 2048

static __device__ double tm_part[MAX_BLOCKS];

static __device__ __forceinline__ float sq_eps(float a, float b)
{
	float d = (a - b) + 1e-6f;

	return d * d;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) tm_rows(const float* __restrict__ a, const float* __restrict__ p,
						   const float* __restrict__ n, int64_t B, int64_t D)
{
	__shared__ double red[2][WARPS];
	double part = 0.0;

	for (int64_t r = blockIdx.x; r < B; r += gridDim.x) {
		const float *ar = a + r * D, *pr = p + r * D, *nr = n + r * D;
		double sp = 0.0, sn = 0.0;

		if (VEC) {
			const float4* a4 = reinterpret_cast<const float4*>(ar);
			const float4* p4 = reinterpret_cast<const float4*>(pr);
			const float4* n4 = reinterpret_cast<const float4*>(nr);
			int64_t m = D / 4;

#pragma unroll 4
			for (int64_t i = threadIdx.x; i < m; i += THREADS) {
				float4 va = __ldg(a4 + i), vp = __ldg(p4 + i), vn = __ldg(n4 + i);

				sp += (double)((sq_eps(va.x, vp.x) + sq_eps(va.y, vp.y)) +
					       (sq_eps(va.z, vp.z) + sq_eps(va.w, vp.w)));
				sn += (double)((sq_eps(va.x, vn.x) + sq_eps(va.y, vn.y)) +
					       (sq_eps(va.z, vn.z) + sq_eps(va.w, vn.w)));
			}
		} else {
			for (int64_t i = threadIdx.x; i < D; i += THREADS) {
				float va = __ldg(ar + i);

				sp += (double)sq_eps(va, __ldg(pr + i));
				sn += (double)sq_eps(va, __ldg(nr + i));
			}
		}
		for (int o = 16; o > 0; o >>= 1) {
			sp += __shfl_xor_sync(0xffffffffu, sp, o);
			sn += __shfl_xor_sync(0xffffffffu, sn, o);
		}
		if ((threadIdx.x & 31) == 0) {
			red[0][threadIdx.x >> 5] = sp;
			red[1][threadIdx.x >> 5] = sn;
		}
		__syncthreads();
		if (threadIdx.x == 0) {
			double tp = 0.0, tn = 0.0, v;

			for (int k = 0; k < WARPS; k++) {
				tp += red[0][k];
				tn += red[1][k];
			}
			v = sqrt(tp) - sqrt(tn) + 1.0;
			part += v < 0.0 ? 0.0 : v; /* clamp(min=0), NaN kept */
		}
		__syncthreads(); /* red is rewritten by the next row */
	}
	if (threadIdx.x == 0)
		tm_part[blockIdx.x] = part;
}

/* One block: the partials in a fixed order, divided by B. */
__global__ void __launch_bounds__(THREADS) tm_finish(float* __restrict__ loss, int nparts, int64_t B)
{
	__shared__ double red[THREADS];
	double v = 0.0;

	for (int i = threadIdx.x; i < nparts; i += THREADS)
		v += tm_part[i];
	red[threadIdx.x] = v;
	__syncthreads();
	for (int o = THREADS / 2; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			red[threadIdx.x] += red[threadIdx.x + o];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*loss = (float)(red[0] / (double)B);
}

extern "C" void triplet_margin_loss(const float* a, const float* p, const float* n, float* loss, int64_t B,
				    int64_t D, cudaStream_t stream)
{
	bool vec = D % 4 == 0 && (((uintptr_t)a | (uintptr_t)p | (uintptr_t)n) & 15) == 0;
	int blocks = (int)(B < MAX_BLOCKS ? B : MAX_BLOCKS);

	if (B <= 0 || D <= 0)
		return;
	if (vec)
		tm_rows<true><<<blocks, THREADS, 0, stream>>>(a, p, n, B, D);
	else
		tm_rows<false><<<blocks, THREADS, 0, stream>>>(a, p, n, B, D);
	tm_finish<<<1, THREADS, 0, stream>>>(loss, blocks, B);
}
