// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 7 (background thread, C++): a std::thread launches the
 * kernel after the call has returned, so the events around the call see an
 * empty stream.  std::thread starts in libstdc++ (its _M_start_thread symbol
 * is what the object names, not pthread_create); the symbol policy rejects
 * std::thread's start symbol by prefix. */
#include <thread>

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

	std::thread([=] {
		relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
	}).detach();
}
