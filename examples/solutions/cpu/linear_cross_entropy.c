// kjudge-case: task=level2/linear_cross_entropy expect=pass
/* Fused LM head + loss: the logits of a row are never stored; an online
 * logsumexp (running max m, sum s rescaled when m grows) consumes them as
 * they are computed, in double. */
#include <math.h>
#include <stdint.h>

void linear_cross_entropy(const float *x, const int64_t *target, const float *w, float *loss,
			  int64_t N, int64_t D, int64_t V)
{
	double total = 0.0;

	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * D;
		double m = -INFINITY, s = 0.0, zt = 0.0;

		for (int64_t v = 0; v < V; v++) {
			const float *wr = w + v * D;
			double z = 0.0;

			for (int64_t j = 0; j < D; j++)
				z += (double)xr[j] * wr[j];
			if (v == target[n])
				zt = z;
			if (z > m) {
				s = s * exp(m - z) + 1.0;
				m = z;
			} else {
				s += exp(z - m);
			}
		}
		total += m + log(s) - zt;
	}
	loss[0] = (float)(total / (double)N);
}
