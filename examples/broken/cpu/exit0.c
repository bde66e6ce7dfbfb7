// kjudge-case: task=level1/relu expect=rejected
/* Broken: computes ReLU correctly, then calls exit(0) to end the worker early
 * (escape attempt); the symbol policy rejects exit. */
#include <stdint.h>
#include <stdlib.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	exit(0);
}
