// kjudge-case: task=level1/relu expect=timeout
/* Broken: spins forever on a volatile flag that nothing clears (the volatile
 * read keeps the compiler from deleting the loop). */
#include <stdint.h>

static volatile int spin = 1;

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	while (spin)
		;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
