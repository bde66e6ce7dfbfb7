// kjudge-case: task=level1/relu expect=rejected
/* Broken: computes ReLU correctly, then zeroes its input through a cast-away
 * const (the "make a later comparison agree" hack); inputs must be unchanged. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	float *xm = (float *)(uintptr_t)x;

	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	for (int64_t i = 0; i < B * D; i++)
		xm[i] = 0.0f;
}
