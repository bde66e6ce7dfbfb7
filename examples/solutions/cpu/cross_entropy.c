// kjudge-case: task=level1/cross_entropy expect=pass
/* Mean over rows of logsumexp(row) - row[target]; stable logsumexp in double. */
#include <math.h>
#include <stdint.h>

void cross_entropy(const float *logits, const int64_t *target, float *loss, int64_t B, int64_t C)
{
	double total = 0.0;

	for (int64_t r = 0; r < B; r++) {
		const float *xr = logits + r * C;
		double m = -INFINITY, s = 0.0;

		for (int64_t j = 0; j < C; j++)
			if (xr[j] > m)
				m = xr[j];
		for (int64_t j = 0; j < C; j++)
			s += exp(xr[j] - m);
		total += m + log(s) - xr[target[r]];
	}
	loss[0] = (float)(total / (double)B);
}
