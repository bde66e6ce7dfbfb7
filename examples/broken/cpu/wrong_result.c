// kjudge-case: task=level1/relu expect=mismatch
/* Broken: ReLU scaled by 1.01 — off by 1%, far outside the f32 tolerance. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? 1.01f * x[i] : 0.0f;
}
