// kjudge-case: task=level2/matmul_sum_max_avgpool_lse_lse expect=pass flag=faster_than_roofline
/* s[n] = sum_o (x[n] . w[o] + b[o]); the max, mean and two logsumexps that
 * follow all run over a dim of size 1 and return s unchanged (lse of one
 * value v is v + log(1)), so y[n] = x[n] . c + sum(b) with
 * c[i] = sum_o w[o, i]: the sum over the outputs of a linear layer is the linear layer of the
 * summed weight rows (linearity, exact in real arithmetic; the task file
 * names this folding as allowed).  Three launches: split column sums of w
 * (OUT split in up to 64 ranges, 4 independent accumulators per thread so
 * that several loads are in flight), an in-order reduction of the splits
 * into c (a static device array) with one extra block summing b, and one
 * block per row for x[n] . c + sum(b) (float4 when IN % 4 == 0 and x is
 * 16-byte aligned).  The eager baseline runs a cuBLAS SGEMM of 2*N*IN*OUT
 * FLOPs (137 GFLOP at the first bench shape, ~3 ms), a sum kernel and four
 * size-1 reductions; this reads w once and x once (288 MB, ~0.08 ms at the
 * first bench shape), so it should run >20x faster than the baseline.
 * Column sums, c, sum(b) and the dot products are accumulated in double (a
 * few FP64 adds per 4 bytes read, invisible in a memory-bound kernel), so
 * the only f32 rounding is that of y itself: the task keeps atol 1e-4, and
 * an f32 fold errs by up to ~2e-4 on rows with outliers (an f32 CPU model of
 * this order measured 1.6e-4), which would fail rows whose sum is near zero.
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

static __device__ __align__(16) double csum[C_MAX];
static __device__ double part[SPLITS_MAX * CW];
static __device__ double bsum; /* sum(b) */

/* Block-wide sum, valid in thread 0 (and every thread of warp 0). */
static __device__ __forceinline__ double block_sum0(double v)
{
	__shared__ double red[WARPS];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	v = 0.0;
	if (warp == 0) {
		v = lane < WARPS ? red[lane] : 0.0;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
	}
	return v;
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
 * writes bsum = sum(b) instead. */
__global__ void __launch_bounds__(THREADS) colsum_merge(const float* __restrict__ b, int64_t OUT, int64_t i0,
							int64_t cw, int splits, int with_bias)
{
	int64_t j = (int64_t)blockIdx.x * THREADS + threadIdx.x;
	double a = 0.0;

	if (with_bias && blockIdx.x == gridDim.x - 1) {
		for (int64_t o = threadIdx.x; o < OUT; o += THREADS)
			a += __ldg(b + o);
		a = block_sum0(a);
		if (threadIdx.x == 0)
			bsum = a;
		return;
	}
	if (j >= cw)
		return;
	for (int s = 0; s < splits; s++)
		a += part[(int64_t)s * CW + j];
	csum[i0 + j] = a;
}

/* y[n] = x[n] . csum + bsum, a block per row. */
template <bool VEC>
__global__ void __launch_bounds__(THREADS) row_dot(const float* __restrict__ x, float* __restrict__ y, int64_t N,
						   int64_t IN)
{
	for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
		const float* xr = x + n * IN;
		double a0 = 0.0, a1 = 0.0;

		if (VEC) {
			const float4* x4 = reinterpret_cast<const float4*>(xr);
			const double2* c2 = reinterpret_cast<const double2*>(csum);
			int64_t n4 = IN / 4;

#pragma unroll 4
			for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
				float4 v = __ldg(x4 + i);
				double2 c = c2[2 * i], d = c2[2 * i + 1];

				a0 += (double)v.x * c.x + (double)v.y * c.y;
				a1 += (double)v.z * d.x + (double)v.w * d.y;
			}
		} else {
			for (int64_t i = threadIdx.x; i < IN; i += THREADS)
				a0 += (double)__ldg(xr + i) * csum[i];
		}
		a0 = block_sum0(a0 + a1);
		if (threadIdx.x == 0)
			y[n] = (float)(a0 + bsum);
		__syncthreads(); /* red[] is reused by the next row */
	}
}

/* IN > C_MAX: column sums recomputed by every row's block (correct, slow). */
__global__ void __launch_bounds__(THREADS) row_direct(const float* __restrict__ x, const float* __restrict__ w,
						      const float* __restrict__ b, float* __restrict__ y, int64_t N,
						      int64_t IN, int64_t OUT)
{
	for (int64_t n = blockIdx.x; n < N; n += gridDim.x) {
		double acc = 0.0;

		for (int64_t i = threadIdx.x; i < IN; i += THREADS) {
			double c = 0.0;

			for (int64_t o = 0; o < OUT; o++)
				c += __ldg(w + o * IN + i);
			acc += (double)__ldg(x + n * IN + i) * c;
		}
		for (int64_t o = threadIdx.x; o < OUT; o += THREADS)
			acc += (double)__ldg(b + o);
		acc = block_sum0(acc);
		if (threadIdx.x == 0)
			y[n] = (float)acc;
		__syncthreads();
	}
}

extern "C" void matmul_sum_max_avgpool_lse_lse(const float* x, const float* w, const float* b, float* y, int64_t N,
					       int64_t IN, int64_t OUT, cudaStream_t stream)
{
	int64_t splits, rows_per;
	unsigned grid_rows;

	if (N <= 0 || IN <= 0 || OUT <= 0)
		return;
	grid_rows = (unsigned)(N < 65535 ? N : 65535);
	if (IN > C_MAX) {
		row_direct<<<grid_rows, THREADS, 0, stream>>>(x, w, b, y, N, IN, OUT);
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
		colsum_merge<<<cb + (i0 == 0), THREADS, 0, stream>>>(b, OUT, i0, cw, (int)splits, i0 == 0);
	}
	if (IN % 4 == 0 && ((uintptr_t)x & 15) == 0)
		row_dot<true><<<grid_rows, THREADS, 0, stream>>>(x, y, N, IN);
	else
		row_dot<false><<<grid_rows, THREADS, 0, stream>>>(x, y, N, IN);
}
