// kjudge-case: task=level1/softplus expect=pass
/* Softplus, beta 1, threshold 20 (PyTorch returns x itself above it); log1p keeps precision for very negative x. */
#include <math.h>
#include <stdint.h>

void softplus(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];

		y[i] = (float)(v > 20.0 ? v : log1p(exp(v)));
	}
}
