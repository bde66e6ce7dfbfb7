// kjudge-case: task=level1/relu expect=pass
/* ReLU, one pass; computed in double, rounded once. */
#include <math.h>
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];

		y[i] = (float)(v > 0.0 ? v : 0.0);
	}
}
