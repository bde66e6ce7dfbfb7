// kjudge-case: task=level1/matmul_square expect=mismatch
/* Broken: a tiled f32 matmul that rounds both operands to __half as it
 * stages them (the precision downgrade behind a tensor-core shortcut), then
 * multiplies and accumulates in float.  Each product carries ~3e-4 relative
 * error, and sums of N of them miss atol 5e-3 from N ~ 100 on (the bench
 * sizes 4096 and 6144 by far). */
#include "kjudge_cuda.h"

#define T 32

__global__ void matmul_half_inputs(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
				   int64_t N)
{
	__shared__ float as[T][T + 1], bs[T][T + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int64_t row = (int64_t)blockIdx.y * T + ty, col = (int64_t)blockIdx.x * T + tx;
	float acc = 0.0f;

	for (int64_t k0 = 0; k0 < N; k0 += T) {
		int64_t ka = k0 + tx, kb = k0 + ty;
		float va = row < N && ka < N ? a[row * N + ka] : 0.0f;
		float vb = kb < N && col < N ? b[kb * N + col] : 0.0f;

		as[ty][tx] = __half2float(__float2half_rn(va));
		bs[ty][tx] = __half2float(__float2half_rn(vb));
		__syncthreads();
#pragma unroll
		for (int k = 0; k < T; k++)
			acc = fmaf(as[ty][k], bs[k][tx], acc);
		__syncthreads();
	}
	if (row < N && col < N)
		c[row * N + col] = acc;
}

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	unsigned tiles = (unsigned)((N + T - 1) / T);

	if (N <= 0)
		return;
	matmul_half_inputs<<<dim3(tiles, tiles), dim3(T, T), 0, stream>>>(a, b, c, N);
}
