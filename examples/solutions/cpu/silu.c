// kjudge-case: task=level1/silu expect=pass
/* SiLU: x * sigmoid(x) = x / (1 + exp(-x)); exp(-x) overflowing to inf gives the right limit 0. */
#include <math.h>
#include <stdint.h>

void silu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];

		y[i] = (float)(v / (1.0 + exp(-v)));
	}
}
