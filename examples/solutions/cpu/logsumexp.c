// kjudge-case: task=level1/logsumexp expect=pass
/* Stable logsumexp over the last dim: max + log(sum(exp(x - max))). */
#include <math.h>
#include <stdint.h>

void logsumexp(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * N;
		double m = -INFINITY, s = 0.0;

		for (int64_t j = 0; j < N; j++)
			if (xr[j] > m)
				m = xr[j];
		for (int64_t j = 0; j < N; j++)
			s += exp(xr[j] - m);
		y[r] = (float)(m + log(s));
	}
}
