// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 1 (memory reuse / no-op), CUDA: launches nothing, betting
 * that the output buffer still holds the reference's answer (KernelBench's
 * "150x" kernels found it in the caching allocator).  The judge's arena holds
 * only the candidate's own buffers, each output filled with a NaN sentinel
 * before every call: mismatch on the first compare. */
#include "kjudge_cuda.h"

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	(void)x;
	(void)y;
	(void)B;
	(void)D;
	(void)stream;
}
