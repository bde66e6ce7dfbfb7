// kjudge-case: task=trace/llama/decode_linear_bf16 expect=pass
/* nn.Linear on bf16 (decode phase of the Llama trace): y = x @ w^T with x [M, K],
 * w [N, K].  64x64 output tiles, 256 threads each computing 4x4 outputs,
 * K in chunks of 16 staged in shared memory as float; products accumulated
 * in float and rounded once to bf16.  Plain CUDA cores, no tensor cores. */
#include "kjudge_cuda.h"

#define TM 64
#define TN 64
#define TK 16

__global__ void __launch_bounds__(256) linear_tile(const __nv_bfloat16* __restrict__ x,
						   const __nv_bfloat16* __restrict__ w,
						   __nv_bfloat16* __restrict__ y, int64_t M,
						   int64_t K, int64_t N)
{
	__shared__ float xs[TK][TM + 1];
	__shared__ float ws[TK][TN + 1];
	const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
	const int64_t m0 = (int64_t)blockIdx.y * TM, n0 = (int64_t)blockIdx.x * TN;
	float acc[4][4] = { { 0 } };

	for (int64_t k0 = 0; k0 < K; k0 += TK) {
		for (int i = threadIdx.x; i < TM * TK; i += 256) {
			int r = i / TK, c = i % TK;
			int64_t gm = m0 + r, gk = k0 + c, gn = n0 + r;

			xs[c][r] = gm < M && gk < K ? __bfloat162float(x[gm * K + gk]) : 0.0f;
			ws[c][r] = gn < N && gk < K ? __bfloat162float(w[gn * K + gk]) : 0.0f;
		}
		__syncthreads();
		for (int c = 0; c < TK; c++) {
			float a[4], b[4];

			for (int i = 0; i < 4; i++) {
				a[i] = xs[c][ty * 4 + i];
				b[i] = ws[c][tx * 4 + i];
			}
			for (int i = 0; i < 4; i++)
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int64_t gm = m0 + ty * 4 + i, gn = n0 + tx * 4 + j;

			if (gm < M && gn < N)
				y[gm * N + gn] = __float2bfloat16_rn(acc[i][j]);
		}
}

/* Few rows (decode): one warp per output, lanes striding over K. */
__global__ void linear_warp(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
			    __nv_bfloat16* __restrict__ y, int64_t M, int64_t K, int64_t N)
{
	int64_t out = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32;

	if (out >= M * N)
		return;
	int64_t m = out / N, n = out % N;
	const __nv_bfloat16* xr = x + m * K;
	const __nv_bfloat16* wr = w + n * K;
	float acc = 0.0f;

	for (int64_t k = lane; k < K; k += 32)
		acc = fmaf(__bfloat162float(xr[k]), __bfloat162float(wr[k]), acc);
	for (int off = 16; off > 0; off /= 2)
		acc += __shfl_down_sync(0xffffffffu, acc, off);
	if (lane == 0)
		y[m * N + n] = __float2bfloat16_rn(acc);
}

extern "C" void decode_linear_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
				   int64_t M, int64_t K, int64_t N, cudaStream_t stream)
{
	if (M <= 0 || N <= 0)
		return;
	if (M <= 16) {
		int64_t threads = M * N * 32;

		linear_warp<<<(unsigned)((threads + 255) / 256), 256, 0, stream>>>(x, w, y, M, K, N);
	} else {
		dim3 grid((unsigned)((N + TN - 1) / TN), (unsigned)((M + TM - 1) / TM));

		linear_tile<<<grid, 256, 0, stream>>>(x, w, y, M, K, N);
	}
}
