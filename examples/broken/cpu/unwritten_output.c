// kjudge-case: task=level1/relu expect=mismatch
/* Broken: writes only the first half of the output; the NaN sentinel survives
 * in the rest (partial computation). */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < (n + 1) / 2; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
