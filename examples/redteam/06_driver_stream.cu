// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 6 (side stream through the driver API): creates a stream
 * with cuStreamCreate (declared by hand, so no runtime call names a stream)
 * and launches there, so events on the given stream see nothing.  The symbol
 * policy rejects every cudaStreamCreate* and cuStreamCreate* name. */
#include "kjudge_cuda.h"

extern "C" int cuStreamCreate(cudaStream_t* s, unsigned flags);

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

static cudaStream_t side;

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;

	(void)stream;
	if (!side)
		cuStreamCreate(&side, 1 /* CU_STREAM_NON_BLOCKING */);
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, side>>>(x, y, n);
}
