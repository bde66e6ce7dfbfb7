// kjudge-case: task=level1/conv2d_depthwise expect=pass
/* Depthwise 3x3 valid convolution (one filter per channel).  Memory-bound:
 * each block stages a 34 x 34 input tile of one (n, c) plane in shared
 * memory once and computes the 32 x 32 outputs it covers, so every input
 * element is read from DRAM about once (plus a 2-pixel halo).  The nine
 * taps of the channel live in registers; the sum runs in the oracle's
 * tap order.  Planes beyond the grid's z extent are taken in a loop. */
#include "kjudge_cuda.h"

#define TW 32
#define TH 32

__global__ void __launch_bounds__(256) dw3x3(const float* __restrict__ x, const float* __restrict__ w,
					     float* __restrict__ y, int64_t NC, int64_t C, int64_t H,
					     int64_t W, int64_t OH, int64_t OW)
{
	__shared__ float tile[TH + 2][TW + 3];
	int64_t ow0 = (int64_t)blockIdx.x * TW, oh0 = (int64_t)blockIdx.y * TH;

	for (int64_t p = blockIdx.z; p < NC; p += gridDim.z) {
		const float* xp = x + p * H * W;
		float* yp = y + p * OH * OW;
		const float* wc = w + (p % C) * 9;
		float wr[9];

#pragma unroll
		for (int k = 0; k < 9; k++)
			wr[k] = __ldg(wc + k);
		for (int i = threadIdx.y; i < TH + 2; i += blockDim.y)
			for (int j = threadIdx.x; j < TW + 2; j += blockDim.x) {
				int64_t ih = oh0 + i, iw = ow0 + j;
				tile[i][j] = ih < H && iw < W ? __ldg(xp + ih * W + iw) : 0.0f;
			}
		__syncthreads();
		int j = threadIdx.x;
		for (int r = threadIdx.y; r < TH; r += blockDim.y) {
			int64_t oh = oh0 + r, ow = ow0 + j;
			if (oh < OH && ow < OW) {
				float a = 0.0f;
#pragma unroll
				for (int kh = 0; kh < 3; kh++)
#pragma unroll
					for (int kw = 0; kw < 3; kw++)
						a += tile[r + kh][j + kw] * wr[kh * 3 + kw];
				yp[oh * OW + ow] = a;
			}
		}
		__syncthreads();
	}
}

extern "C" void conv2d_depthwise(const float* x, const float* w, float* y, int64_t N, int64_t C,
				 int64_t H, int64_t W, cudaStream_t stream)
{
	int64_t OH = H - 2, OW = W - 2, NC = N * C;
	dim3 block(TW, 8);

	if (OH <= 0 || OW <= 0 || NC <= 0)
		return;
	dim3 grid((unsigned)((OW + TW - 1) / TW), (unsigned)((OH + TH - 1) / TH),
		  (unsigned)(NC < 65535 ? NC : 65535));
	dw3x3<<<grid, block, 0, stream>>>(x, w, y, NC, C, H, W, OH, OW);
}
