// kjudge-case: task=level1/upsample_nearest expect=pass
/* Nearest-neighbour resize, one thread per output element of a row tile:
 * blockIdx.y is the output row of one plane (N*C*OH rows), threads stride
 * over its columns.  The source row and column are PyTorch's: scale =
 * in / out in float and the product dst * scale rounded to float on its
 * own (__fmul_rn: no contraction), floored and clamped to in - 1. */
#include "kjudge_cuda.h"

static __device__ __forceinline__ int64_t src_index(int64_t dst, float scale, int64_t in)
{
	int64_t s = (int64_t)floorf(__fmul_rn((float)dst, scale));

	return s < in - 1 ? s : in - 1;
}

__global__ void nearest_rows(const float* __restrict__ x, float* __restrict__ y, int64_t H,
			     int64_t W, int64_t OH, int64_t OW, float sh, float sw, int64_t rows)
{
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		int64_t p = row / OH, r = row - p * OH;
		const float* xr = x + (p * H + src_index(r, sh, H)) * W;
		float* yr = y + row * OW;

		for (int64_t c = threadIdx.x; c < OW; c += blockDim.x)
			yr[c] = __ldg(xr + src_index(c, sw, W));
	}
}

extern "C" void upsample_nearest(const float* x, float* y, int64_t N, int64_t C, int64_t H,
				 int64_t W, int64_t OH, int64_t OW, cudaStream_t stream)
{
	int64_t rows = N * C * OH;
	int64_t blocks = rows < 65536 * 16 ? rows : 65536 * 16;

	if (rows <= 0 || OW <= 0)
		return;
	nearest_rows<<<(unsigned)blocks, 256, 0, stream>>>(x, y, H, W, OH, OW, (float)H / (float)OH,
							  (float)W / (float)OW, rows);
}
