// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 3 (input mutation), CUDA: zeroes x on the device after
 * writing zeros to y, so relu(x) recomputed from the input buffer agrees.
 * The judge compares the inputs in the arena with pristine copies it never
 * exports, after every call: rejected. */
#include "kjudge_cuda.h"

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	size_t bytes = (size_t)(B * D) * sizeof(float);

	cudaMemsetAsync(y, 0, bytes, stream);
	cudaMemsetAsync((void*)x, 0, bytes, stream);
}
