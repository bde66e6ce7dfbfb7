// kjudge-case: task=level1/relu expect=pass
/* Red team, class 6 (work the timed stream does not see), on a machine with
 * several GPUs: a candidate could cudaSetDevice(k) and keep another GPU busy
 * while that GPU times someone else's candidate.  The judge gives each CUDA
 * worker only its own GPU (CUDA_VISIBLE_DEVICES set to that GPU's UUID), so
 * there is no other device to reach.  This probe is an honest ReLU that
 * writes NaN unless it sees exactly that: one device, named by a UUID.  It
 * passes only while the judge keeps doing so. */
#include <stdlib.h>
#include <string.h>

#include "kjudge_cuda.h"

__global__ void relu_k(const float* x, float* y, int64_t n, int ok)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = ok ? (x[i] > 0.0f ? x[i] : 0.0f) : __int_as_float(0x7fc00000);
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;
	int count = 0, ok;
	const char* vis = getenv("CUDA_VISIBLE_DEVICES");

	ok = cudaGetDeviceCount(&count) == cudaSuccess && count == 1 && vis &&
	     strncmp(vis, "GPU-", 4) == 0 && !strchr(vis, ',');
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n, ok);
}
