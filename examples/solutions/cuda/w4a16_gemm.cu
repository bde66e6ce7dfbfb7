// kjudge-case: task=level1/w4a16_gemm expect=pass
/* W4A16 GEMM with the dequantization fused into the tile loads: 64 x 64
 * tiles of y per block of 256 threads, each thread 4 x 4 outputs; per step
 * of 32 along K, the block stages x (f16 widened to float) and the
 * weights, each unpacked from its byte (low nibble for even k, high for
 * odd, sign-extended from 4 bits) and multiplied by its group's scale
 * (exact in float: a 4-bit integer times an 11-bit significand), in shared
 * memory; float accumulation, one rounding to f16.  A plain CUDA-core
 * kernel: correct on every shape, slower than the tensor-core baseline. */
#include "kjudge_cuda.h"

#define BM 64
#define BN 64
#define BK 32

__global__ void __launch_bounds__(256) w4a16_k(const __half *__restrict__ x,
					       const int8_t *__restrict__ wp,
					       const __half *__restrict__ s, __half *__restrict__ y,
					       int64_t M, int64_t NG, int64_t H, int64_t N)
{
	__shared__ float xs[BK][BM + 4], ws[BK][BN + 4];
	int64_t K = NG * 2 * H, m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
	int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
	float acc[4][4] = {{0.0f}};

	for (int64_t k0 = 0; k0 < K; k0 += BK) {
		for (int i = tid; i < BM * BK; i += 256) {
			int r = i / BK, kk = i % BK;
			int64_t k = k0 + kk, m = m0 + r, n = n0 + r;
			float wv = 0.0f;

			xs[kk][r] = m < M && k < K ? __half2float(x[m * K + k]) : 0.0f;
			if (n < N && k < K) {
				unsigned b = (uint8_t)wp[n * (NG * H) + k / 2];
				int nib = (int)((k & 1) ? b >> 4 : b & 15u);

				wv = (float)(nib >= 8 ? nib - 16 : nib) *
				     __half2float(s[n * NG + k / (2 * H)]);
			}
			ws[kk][r] = wv;
		}
		__syncthreads();
#pragma unroll 8
		for (int kk = 0; kk < BK; kk++) {
			float a[4], b[4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				a[i] = xs[kk][tr * 4 + i];
				b[i] = ws[kk][tc * 4 + i];
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
		}
		__syncthreads();
	}
	for (int i = 0; i < 4; i++) {
		int64_t m = m0 + tr * 4 + i;
		if (m >= M)
			continue;
		for (int j = 0; j < 4; j++) {
			int64_t n = n0 + tc * 4 + j;
			if (n < N)
				y[m * N + n] = __float2half_rn(acc[i][j]);
		}
	}
}

extern "C" void w4a16_gemm(const __half *x, const int8_t *wp, const __half *s, __half *y,
			   int64_t M, int64_t NG, int64_t H, int64_t N, cudaStream_t stream)
{
	dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));

	if (M > 0 && N > 0)
		w4a16_k<<<grid, 256, 0, stream>>>(x, wp, s, y, M, NG, H, N);
}
