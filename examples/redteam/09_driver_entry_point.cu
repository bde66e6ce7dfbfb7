// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 9/6 (symbol lookup through the CUDA runtime): asks
 * cudaGetDriverEntryPointByVersion for cuStreamCreate by name, which hands out any
 * driver function (a stream of its own, a library's entry points) without
 * the name ever being an undefined symbol of the object.  The entry-point
 * queries are on the symbol policy's loader list. */
#include "kjudge_cuda.h"

typedef int (*stream_create_fn)(cudaStream_t*, unsigned);

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	static cudaStream_t side;
	void* fn = nullptr;
	cudaDriverEntryPointQueryResult q;
	int64_t n = B * D;

	if (!side && cudaGetDriverEntryPointByVersion("cuStreamCreate", &fn, 12000, cudaEnableDefault, &q) == cudaSuccess && fn)
		((stream_create_fn)fn)(&side, 1);
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, side ? side : stream>>>(x, y, n);
}
