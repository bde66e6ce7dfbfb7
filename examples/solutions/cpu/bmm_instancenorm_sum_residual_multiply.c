// kjudge-case: task=level2/bmm_instancenorm_sum_residual_multiply expect=pass
/* Per row: the linear layer into a scratch row (double), its mean and
 * biased variance, then ((h - mean) / sqrt(var + 1e-5) + y) * y. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

void bmm_instancenorm_sum_residual_multiply(const float *x, const float *y, const float *w,
					    const float *b, float *out, int64_t N, int64_t IN,
					    int64_t OUT)
{
	double *h = malloc((size_t)OUT * sizeof(double));

	if (!h)
		return;
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN, *yr = y + n * OUT;
		double mean = 0.0, var = 0.0, inv;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double s = b[o];

			for (int64_t i = 0; i < IN; i++)
				s += (double)xr[i] * wr[i];
			h[o] = s;
			mean += h[o];
		}
		mean /= (double)OUT;
		for (int64_t o = 0; o < OUT; o++)
			var += (h[o] - mean) * (h[o] - mean);
		inv = 1.0 / sqrt(var / (double)OUT + 1e-5);
		for (int64_t o = 0; o < OUT; o++)
			out[n * OUT + o] = (float)(((h[o] - mean) * inv + yr[o]) * yr[o]);
	}
	free(h);
}
