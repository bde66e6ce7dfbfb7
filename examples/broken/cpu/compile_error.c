// kjudge-case: task=level1/relu expect=compile_error
/* Broken: does not compile (an undeclared identifier and a missing semicolon). */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : zero
}
