// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 2 (constant or zero output), CUDA: a cudaMemsetAsync of
 * zeros on the given stream, "close" to softmax values of wide rows under an
 * absolute tolerance.  The tolerance is relative too and D=1 rows are 1. */
#include "kjudge_cuda.h"

extern "C" void softmax(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	(void)x;
	cudaMemsetAsync(y, 0, (size_t)(B * D) * sizeof(float), stream);
}
