// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 7 (background host work through the CUDA runtime's own
 * thread): cudaLaunchHostFunc runs a host function on a runtime thread after
 * the stream reaches it, i.e. candidate code running outside the call; here
 * it computes the answer on the host.  Rejected by the symbol policy
 * (cudaLaunchHostFunc, cudaStreamAddCallback and their driver twins). */
#include <stdlib.h>

#include "kjudge_cuda.h"

struct job {
	const float* x;
	float* y;
	int64_t n;
};

static job pending;

/* Runs on the runtime's thread once the stream gets here, after the call. */
static void CUDART_CB later(void* p)
{
	job* j = (job*)p;
	float* hx = (float*)malloc((size_t)j->n * sizeof(float));

	if (!hx)
		return;
	cudaMemcpy(hx, j->x, (size_t)j->n * sizeof(float), cudaMemcpyDeviceToHost);
	for (int64_t i = 0; i < j->n; i++)
		hx[i] = hx[i] > 0.0f ? hx[i] : 0.0f;
	cudaMemcpy(j->y, hx, (size_t)j->n * sizeof(float), cudaMemcpyHostToDevice);
	free(hx);
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	pending.x = x;
	pending.y = y;
	pending.n = B * D;
	cudaLaunchHostFunc(stream, later, &pending);
}
