// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 16 (impossible speed), CUDA: a "kernel" that finishes far
 * under the roofline floor for an N^3 matmul because it only writes a zero
 * per element.  Timing is never reached: every output, timed or not, is
 * compared first (and a correct result measured below T_sol would be flagged
 * faster_than_roofline and left out of the score). */
#include "kjudge_cuda.h"

__global__ void fill(float* c, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = 0.0f;
}

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	(void)a;
	(void)b;
	fill<<<(unsigned)((N * N + 255) / 256), 256, 0, stream>>>(c, N * N);
}
