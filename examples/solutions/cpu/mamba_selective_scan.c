// kjudge-case: task=level3/mamba_selective_scan expect=pass
/* The selective scan run as the recurrence it is, not the task's
 * cumsum/exp closed form: for each (batch, channel, state) keep h and step
 * h = exp(dt*A) * h + dt * x * B_t along the sequence, accumulating
 * y_t = sum_n C_t[n] * h + Dskip * x_t.  dt = softplus(dt_raw) as torch
 * computes it (x itself above the threshold 20), at most 0.1; a_log at most 0. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static double dt_of(double v)
{
	double s = v > 20.0 ? v : log1p(exp(v));

	return s < 0.1 ? s : 0.1;
}

void mamba_selective_scan(const float *x, const float *dt_raw, const float *a_log,
			  const float *bm, const float *cm, const float *dskip, float *y,
			  int64_t B, int64_t L, int64_t D, int64_t N)
{
	double *h = malloc((size_t)N * sizeof(double)), *a = malloc((size_t)N * sizeof(double));

	if (!h || !a) {
		free(h);
		free(a);
		return;
	}
	for (int64_t b = 0; b < B; b++)
		for (int64_t d = 0; d < D; d++) {
			for (int64_t n = 0; n < N; n++) {
				h[n] = 0.0;
				a[n] = -exp(a_log[d * N + n] < 0.0f ? (double)a_log[d * N + n] : 0.0);
			}
			for (int64_t t = 0; t < L; t++) {
				int64_t i = (b * L + t) * D + d;
				const float *bt = bm + (b * L + t) * N, *ct = cm + (b * L + t) * N;
				double dt = dt_of(dt_raw[i]), u = dt * x[i], s = 0.0;

				for (int64_t n = 0; n < N; n++) {
					h[n] = exp(dt * a[n]) * h[n] + u * bt[n];
					s += ct[n] * h[n];
				}
				y[i] = (float)(s + (double)x[i] * dskip[d]);
			}
		}
	free(h);
	free(a);
}
