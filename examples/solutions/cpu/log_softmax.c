// kjudge-case: task=level1/log_softmax expect=pass
/* Row log-softmax: x - (max + log(sum(exp(x - max)))).  The terms are taken
 * in float, their sum and the final subtraction in double. */
#include <math.h>
#include <stdint.h>

void log_softmax(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * D;
		float *yr = y + r * D;
		float m = -INFINITY;
		double s = 0.0, lse;

		for (int64_t j = 0; j < D; j++)
			if (xr[j] > m)
				m = xr[j];
		for (int64_t j = 0; j < D; j++)
			s += expf(xr[j] - m);
		lse = m + log(s);
		for (int64_t j = 0; j < D; j++)
			yr[j] = (float)(xr[j] - lse);
	}
}
