// kjudge-case: task=level1/relu expect=crash
/* Broken: stores through a null pointer (SIGSEGV) before doing any work. */
#include <stddef.h>
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	volatile float *p = NULL;

	*p = 1.0f;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
