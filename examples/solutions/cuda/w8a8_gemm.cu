// kjudge-case: task=level1/w8a8_gemm expect=pass
/* W8A8 GEMM with __dp4a: 64 x 64 tiles of y per block of 256 threads, each
 * thread 4 x 4 outputs; K in steps of 32 bytes, staged in shared memory as
 * words of 4 packed int8 (zero-padded past K, so any K works).  The int32
 * sums are exact; the epilogue dequantizes in float (acc * sx[m] * sw[n])
 * and rounds once to bf16.  A plain CUDA-core kernel: correct on every
 * shape, far from the int8 tensor-core rate of the cuBLAS baseline. */
#include "kjudge_cuda.h"

#define BM 64
#define BN 64
#define BKW 8 /* words of 4 bytes per K step: 32 bytes */

/* Bytes k .. k+3 of row r of p ([R, K]), zero outside, as one word. */
__device__ __forceinline__ int pack4(const int8_t *__restrict__ p, int64_t r, int64_t k,
				     int64_t R, int64_t K)
{
	unsigned v = 0;

	if (r >= R)
		return 0;
	for (int b = 0; b < 4; b++)
		if (k + b < K)
			v |= (unsigned)(uint8_t)p[r * K + k + b] << (8 * b);
	return (int)v;
}

__global__ void __launch_bounds__(256) w8a8_k(const int8_t *__restrict__ xq,
					      const int8_t *__restrict__ wq,
					      const float *__restrict__ sx,
					      const float *__restrict__ sw,
					      __nv_bfloat16 *__restrict__ y, int64_t M, int64_t K,
					      int64_t N)
{
	__shared__ int as[BM][BKW + 1], bs[BN][BKW + 1];
	int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
	int64_t m0 = (int64_t)blockIdx.y * BM, n0 = (int64_t)blockIdx.x * BN;
	int acc[4][4] = {{0}};

	for (int64_t k0 = 0; k0 < K; k0 += 4 * BKW) {
		for (int i = tid; i < BM * BKW; i += 256) {
			int r = i / BKW, w = i % BKW;
			as[r][w] = pack4(xq, m0 + r, k0 + 4 * w, M, K);
			bs[r][w] = pack4(wq, n0 + r, k0 + 4 * w, N, K);
		}
		__syncthreads();
#pragma unroll
		for (int w = 0; w < BKW; w++) {
			int a[4], b[4];
#pragma unroll
			for (int i = 0; i < 4; i++) {
				a[i] = as[tr * 4 + i][w];
				b[i] = bs[tc * 4 + i][w];
			}
#pragma unroll
			for (int i = 0; i < 4; i++)
#pragma unroll
				for (int j = 0; j < 4; j++)
					acc[i][j] = __dp4a(a[i], b[j], acc[i][j]);
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
				y[m * N + n] = __float2bfloat16_rn((float)acc[i][j] * sx[m] * sw[n]);
		}
	}
}

extern "C" void w8a8_gemm(const int8_t *xq, const int8_t *wq, const float *sx, const float *sw,
			  __nv_bfloat16 *y, int64_t M, int64_t K, int64_t N, cudaStream_t stream)
{
	dim3 grid((unsigned)((N + BN - 1) / BN), (unsigned)((M + BM - 1) / BM));

	if (M > 0 && N > 0)
		w8a8_k<<<grid, 256, 0, stream>>>(xq, wq, sx, sw, y, M, K, N);
}
