// kjudge-case: task=level1/relu expect=compile_error
/* Red team, class 29 (host files at compile time), CUDA: as
 * 29_include_etc_passwd.c, through nvcc's preprocessor: the build host's
 * /etc/passwd is pulled into the translation unit and the diagnostics that
 * quote it come back in the verdict's compiler log.  nvcc running in a
 * sandbox without the host's /etc finds no such file: compile_error, with
 * nothing of the host in the log. */
#include "/etc/passwd"
#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;

	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
