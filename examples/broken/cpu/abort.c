// kjudge-case: task=level1/relu expect=crash
/* Broken: calls abort() (SIGABRT) after computing the right answer. */
#include <stdint.h>
#include <stdlib.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	abort();
}
