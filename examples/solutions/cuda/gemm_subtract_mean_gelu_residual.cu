// kjudge-case: task=level2/gemm_subtract_mean_gelu_residual expect=pass flag=faster_than_roofline
/* m[n] = mean_o (x[n] . w[o] + b[o] - s[o]) (the logsumexp over that one
 * column is the identity: lse of one value v is v + log(1)), then y[n, i] =
 * x[n, i] + gelu(m[n]).  The mean over the outputs of a linear layer is the
 * linear layer of the mean weight row (linearity, exact in real arithmetic):
 * m[n] = (x[n] . c + sum(b - s)) / OUT with c[i] = sum_o w[o, i], so the [N,
 * OUT] product is never formed.  Three launches: split column sums of w (OUT
 * split in up to 64 ranges, 4 independent accumulators per thread so that
 * several loads are in flight), an in-order reduction of the splits into c
 * (a static device array) with one extra block summing b - s, and one block
 * per row that reads x[n] once (kept in shared memory up to 11264 floats),
 * forms m[n] and the exact (erf) GELU, and writes y[n] (float4 when IN % 4
 * == 0 and x, y are 16-byte aligned).  The eager baseline runs a cuBLAS
 * SGEMM of 2*N*IN*OUT FLOPs (137 GFLOP at the first bench shape, ~3 ms) and
 * five more kernels; this moves w once and x, y once (320 MB, ~0.09 ms at
 * the first bench shape), so it should run >20x faster than the baseline.
 * Column sums, c, sum(b - s) and the dot products are accumulated in double
 * (a few FP64 adds per 4 bytes read, invisible in a memory-bound kernel); m
 * (~3e-3) is rounded to f32 once and the GELU and the residual add are f32.
 * 32 MB of static device scratch; columns are summed in chunks of 32768 (the
 * split scratch); IN up to 2^21 keeps c in the static array, beyond that a
 * slow but correct direct kernel is used.
 * The judge's roofline is that of the task as written (the SGEMM's FLOPs at
 * the f32 peak, ~2.7 ms), and this runs far below it, so the verdict is a
 * pass flagged faster_than_roofline with those shapes left unscored: the
 * fold is exact algebra, not a faster kernel for the same work, and the
 * benchmark does not count it as a speedup (by design). */
#include "kjudge_cuda.h"

#define THREADS 256
#define WARPS (THREADS / 32)
#define SPLITS_MAX 64
#define CW 32768           /* columns per chunk of the split sums */
#define C_MAX (1 << 21)    /* longest row IN whose column sums fit in csum */
#define MIN_ROWS_SPLIT 64  /* rows of w per split, at least */
#define CACHE_MAX 11264    /* longest row of x kept in shared memory */

static __device__ __align__(16) double csum[C_MAX];
static __device__ double part[SPLITS_MAX * CW];
static __device__ double bsum; /* sum(b - s) */

/* Block-wide sum returned to every thread; red has WARPS + 1 slots and may
 * be reused by the next call at once (slot WARPS is rewritten only after
 * every thread has passed that call's first barrier). */
static __device__ __forceinline__ double block_sum(double v, double* red)
{
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < WARPS ? red[lane] : 0.0;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
		if (lane == 0)
			red[WARPS] = v;
	}
	__syncthreads();
	return red[WARPS];
}

/* exact (erf) GELU, as the task's gelu(approximate="none") */
static __device__ __forceinline__ float gelu(float m)
{
	return 0.5f * m * (1.0f + erff(m * 0.70710678118654752f));
}

/* part[s][j] = sum of w[o, i0 + j] over rows o of split s (blockIdx.y). */
__global__ void __launch_bounds__(THREADS) colsum_split(const float* __restrict__ w, int64_t OUT, int64_t IN,
							int64_t i0, int64_t cw, int64_t rows_per)
{
	int64_t j = (int64_t)blockIdx.x * THREADS + threadIdx.x;
	int64_t o = (int64_t)blockIdx.y * rows_per, o1 = o + rows_per;
	double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
	const float* p;

	if (j >= cw)
		return;
	if (o1 > OUT)
		o1 = OUT;
	p = w + i0 + j;
#pragma unroll 2
	for (; o + 4 <= o1; o += 4) {
		a0 += __ldg(p + o * IN);
		a1 += __ldg(p + (o + 1) * IN);
		a2 += __ldg(p + (o + 2) * IN);
		a3 += __ldg(p + (o + 3) * IN);
	}
	for (; o < o1; o++)
		a0 += __ldg(p + o * IN);
	part[(int64_t)blockIdx.y * CW + j] = (a0 + a1) + (a2 + a3);
}

/* csum[i0 + j] = sum over the splits, in order; with_bias: the last block
 * writes bsum = sum(b - s) instead. */
__global__ void __launch_bounds__(THREADS) colsum_merge(const float* __restrict__ b, const float* __restrict__ s,
							int64_t OUT, int64_t i0, int64_t cw, int splits,
							int with_bias)
{
	__shared__ double red[WARPS + 1];
	int64_t j = (int64_t)blockIdx.x * THREADS + threadIdx.x;
	double a = 0.0;

	if (with_bias && blockIdx.x == gridDim.x - 1) {
		for (int64_t o = threadIdx.x; o < OUT; o += THREADS)
			a += (double)__ldg(b + o) - (double)__ldg(s + o);
		a = block_sum(a, red);
		if (threadIdx.x == 0)
			bsum = a;
		return;
	}
	if (j >= cw)
		return;
	for (int k = 0; k < splits; k++)
		a += part[(int64_t)k * CW + j];
	csum[i0 + j] = a;
}

/* y[n, :] = x[n, :] + gelu((x[n] . csum + bsum) / OUT), a block per row. */
template <bool VEC, bool CACHE>
__global__ void __launch_bounds__(THREADS) row_resid(const float* __restrict__ x, float* __restrict__ y, int64_t N,
						     int64_t IN, double dout)
{
	extern __shared__ float4 cache4[];
	__shared__ double red[WARPS + 1];
	float* cache = reinterpret_cast<float*>(cache4);

	for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
		const float* xr = x + n * IN;
		float* yr = y + n * IN;
		double a0 = 0.0, a1 = 0.0;
		float g;

		if (VEC) {
			const float4* x4 = reinterpret_cast<const float4*>(xr);
			const double2* c2 = reinterpret_cast<const double2*>(csum);
			float4* y4 = reinterpret_cast<float4*>(yr);
			int64_t n4 = IN / 4;

#pragma unroll 4
			for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
				float4 v = __ldg(x4 + i);
				double2 c = c2[2 * i], d = c2[2 * i + 1];

				if (CACHE)
					cache4[i] = v;
				a0 += (double)v.x * c.x + (double)v.y * c.y;
				a1 += (double)v.z * d.x + (double)v.w * d.y;
			}
			g = gelu((float)((block_sum(a0 + a1, red) + bsum) / dout));
			/* each thread reads back only the elements it cached */
			for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
				float4 v = CACHE ? cache4[i] : __ldg(x4 + i);

				v.x += g;
				v.y += g;
				v.z += g;
				v.w += g;
				y4[i] = v;
			}
		} else {
			for (int64_t i = threadIdx.x; i < IN; i += THREADS) {
				float v = __ldg(xr + i);

				if (CACHE)
					cache[i] = v;
				a0 += (double)v * csum[i];
			}
			g = gelu((float)((block_sum(a0, red) + bsum) / dout));
			for (int64_t i = threadIdx.x; i < IN; i += THREADS)
				yr[i] = (CACHE ? cache[i] : __ldg(xr + i)) + g;
		}
		/* the next row rewrites cache[] only at this thread's own slots and
		 * red[] only after its first barrier: no barrier needed here */
	}
}

/* IN > C_MAX: column sums recomputed by every row's block (correct, slow). */
__global__ void __launch_bounds__(THREADS) row_direct(const float* __restrict__ x, const float* __restrict__ w,
						      const float* __restrict__ b, const float* __restrict__ s,
						      float* __restrict__ y, int64_t N, int64_t IN, int64_t OUT)
{
	__shared__ double red[WARPS + 1];

	for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
		double acc = 0.0;
		float g;

		for (int64_t i = threadIdx.x; i < IN; i += THREADS) {
			double c = 0.0;

			for (int64_t o = 0; o < OUT; o++)
				c += __ldg(w + o * IN + i);
			acc += (double)__ldg(x + n * IN + i) * c;
		}
		for (int64_t o = threadIdx.x; o < OUT; o += THREADS)
			acc += (double)__ldg(b + o) - (double)__ldg(s + o);
		g = gelu((float)(block_sum(acc, red) / (double)OUT));
		for (int64_t i = threadIdx.x; i < IN; i += THREADS)
			y[n * IN + i] = __ldg(x + n * IN + i) + g;
	}
}

extern "C" void gemm_subtract_mean_gelu_residual(const float* x, const float* w, const float* b, const float* s,
						 float* y, int64_t N, int64_t IN, int64_t OUT, cudaStream_t stream)
{
	int64_t splits, rows_per;
	unsigned grid_rows;
	bool vec, cache;
	size_t smem;

	if (N <= 0 || IN <= 0 || OUT <= 0)
		return;
	grid_rows = (unsigned)(N < 65535 ? N : 65535);
	if (IN > C_MAX) {
		row_direct<<<grid_rows, THREADS, 0, stream>>>(x, w, b, s, y, N, IN, OUT);
		return;
	}
	splits = OUT / MIN_ROWS_SPLIT;
	if (splits < 1)
		splits = 1;
	if (splits > SPLITS_MAX)
		splits = SPLITS_MAX;
	rows_per = (OUT + splits - 1) / splits;
	splits = (OUT + rows_per - 1) / rows_per; /* no empty split */
	for (int64_t i0 = 0; i0 < IN; i0 += CW) {
		int64_t cw = IN - i0 < CW ? IN - i0 : CW;
		unsigned cb = (unsigned)((cw + THREADS - 1) / THREADS);

		colsum_split<<<dim3(cb, (unsigned)splits), THREADS, 0, stream>>>(w, OUT, IN, i0, cw, rows_per);
		colsum_merge<<<cb + (i0 == 0), THREADS, 0, stream>>>(b, s, OUT, i0, cw, (int)splits, i0 == 0);
	}
	vec = IN % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
	cache = IN <= CACHE_MAX;
	smem = cache ? (size_t)IN * sizeof(float) : 0;
	if (vec && cache)
		row_resid<true, true><<<grid_rows, THREADS, smem, stream>>>(x, y, N, IN, (double)OUT);
	else if (vec)
		row_resid<true, false><<<grid_rows, THREADS, 0, stream>>>(x, y, N, IN, (double)OUT);
	else if (cache)
		row_resid<false, true><<<grid_rows, THREADS, smem, stream>>>(x, y, N, IN, (double)OUT);
	else
		row_resid<false, false><<<grid_rows, THREADS, 0, stream>>>(x, y, N, IN, (double)OUT);
}
