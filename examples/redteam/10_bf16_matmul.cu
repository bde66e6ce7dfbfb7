// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 10 (precision downgrade to bf16), CUDA: stages both
 * operands as __nv_bfloat16 (half the bytes, the bf16 tensor-core path) and
 * accumulates in f32.  Eight mantissa bits: errors near 1e-1 on the larger
 * shapes, far past the f32 tolerance. */
#include "kjudge_cuda.h"

__global__ void mm(const float* a, const float* b, float* c, int64_t N)
{
	int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int64_t i = blockIdx.y;
	if (j >= N)
		return;
	float s = 0.0f;
	for (int64_t k = 0; k < N; k++) {
		__nv_bfloat16 x = __float2bfloat16(a[i * N + k]);
		__nv_bfloat16 y = __float2bfloat16(b[k * N + j]);
		s = fmaf(__bfloat162float(x), __bfloat162float(y), s);
	}
	c[i * N + j] = s;
}

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	dim3 grid((unsigned)((N + 127) / 128), (unsigned)N);

	mm<<<grid, 128, 0, stream>>>(a, b, c, N);
}
