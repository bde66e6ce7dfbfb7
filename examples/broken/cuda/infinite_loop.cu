// kjudge-case: task=level1/relu expect=timeout
/* Broken: the kernel waits on a device flag that nothing ever sets.  The flag
 * is read through a volatile pointer, so the compiler must reload it and
 * cannot delete the loop; the kernel never finishes and the call hangs. */
#include "kjudge_cuda.h"

__device__ int relu_go; /* zero at module load, never written */

__global__ void relu_wait(const float* __restrict__ x, float* __restrict__ y, int64_t n)
{
	volatile int* go = &relu_go;
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	while (*go == 0)
		;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;

	if (n <= 0)
		return;
	relu_wait<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
