// kjudge-case: task=level1/relu expect=crash
/* Red team, class 14 (reading the answer by pointer arithmetic): walks far
 * past its input buffer looking for the judge's data, as a kernel indexing
 * past the end of its tensor would find a neighbouring one in a shared
 * allocator.  The worker's arena holds only this call's inputs and outputs;
 * beyond it the address space is unmapped and the read faults (SIGSEGV),
 * which the judge reports as a crash and survives. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	const volatile float *probe = x + ((int64_t)1 << 40);
	float seen = *probe;

	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > seen ? x[i] : 0.0f;
}
