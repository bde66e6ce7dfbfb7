// kjudge-case: task=level1/max_pool1d expect=pass
/* max_pool1d(x, 4, stride=2, padding=2, dilation=3): output o of a row
 * takes the max of the taps 2o-2, 2o+1, 2o+4, 2o+7 that fall inside the
 * row (padding never wins), NaN propagating as in PyTorch.  One thread per
 * output in a grid-stride loop over all rows: neighbouring threads read
 * neighbouring (stride-2) inputs, so the loads coalesce and each input
 * sector is fetched from DRAM once, the rest from L1/L2.  64-bit indices. */
#include "kjudge_cuda.h"

__global__ void maxpool1d_k4s2p2d3(const float* __restrict__ x, float* __restrict__ y, int64_t rows,
				   int64_t L, int64_t OL)
{
	int64_t n = rows * OL, stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		int64_t r = i / OL, o = i - r * OL, base = 2 * o - 2;
		const float* xr = x + r * L;
		float m = -INFINITY;

#pragma unroll
		for (int t = 0; t < 4; t++) {
			int64_t p = base + 3 * t;
			if (p >= 0 && p < L) {
				float v = __ldg(xr + p);
				if (v > m || isnan(v))
					m = v;
			}
		}
		y[i] = m;
	}
}

extern "C" void max_pool1d(const float* x, float* y, int64_t N, int64_t C, int64_t L,
			   cudaStream_t stream)
{
	int64_t OL = (L - 6) / 2 + 1, n = N * C * OL, blocks;
	const int threads = 256;

	if (OL <= 0 || n <= 0)
		return;
	blocks = (n + threads - 1) / threads;
	if (blocks > 132 * 16)
		blocks = 132 * 16;
	maxpool1d_k4s2p2d3<<<(unsigned)blocks, threads, 0, stream>>>(x, y, N * C, L, OL);
}
