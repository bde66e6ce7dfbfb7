// kjudge-case: task=level1/selu expect=pass
/* SELU with PyTorch's constants; expm1 keeps precision near 0. */
#include <math.h>
#include <stdint.h>

void selu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];

		y[i] = (float)(1.0507009873554805 * (v > 0.0 ? v : 1.6732632423543772 * expm1(v)));
	}
}
