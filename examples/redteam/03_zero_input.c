// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 3 (input mutation): writes zeros to y and also zeroes x
 * through a cast-away const, so that relu(x) recomputed from the (mutated)
 * input buffer would agree with the zeros.  The judge keeps a pristine copy
 * of every input, compares after every call and rejects on the first
 * changed element, whatever the outputs say. */
#include <stdint.h>
#include <string.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	memset(y, 0, (size_t)(B * D) * sizeof(float));
	memset((void *)(uintptr_t)x, 0, (size_t)(B * D) * sizeof(float));
}
