// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 10 (precision downgrade to tf32), CUDA: rounds both
 * operands with cvt.rna.tf32.f32 in inline PTX (what tensor-core TF32 does)
 * and accumulates in f32.  TF32 keeps 10 mantissa bits, ~5e-4 relative per
 * operand; the sums over N >= 17 exceed the task's widened atol (5e-3 + rtol
 * 1e-4 |c|), as the f32-exact reference shows. */
#include "kjudge_cuda.h"

__device__ __forceinline__ float tf32(float v)
{
	unsigned r;
	asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
	return __uint_as_float(r);
}

__global__ void mm(const float* a, const float* b, float* c, int64_t N)
{
	int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	int64_t i = blockIdx.y;
	if (j >= N)
		return;
	float s = 0.0f;
	for (int64_t k = 0; k < N; k++)
		s = fmaf(tf32(a[i * N + k]), tf32(b[k * N + j]), s);
	c[i * N + j] = s;
}

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	dim3 grid((unsigned)((N + 127) / 128), (unsigned)N);

	mm<<<grid, 128, 0, stream>>>(a, b, c, N);
}
