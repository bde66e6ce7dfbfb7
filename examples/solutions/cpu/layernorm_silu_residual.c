// kjudge-case: task=level2/layernorm_silu_residual expect=pass
/* y = x + silu(layer_norm(x) * g + b), one row at a time, statistics in double. */
#include <math.h>
#include <stdint.h>

void layernorm_silu_residual(const float *x, const float *g, const float *b, float *y,
			     int64_t N, int64_t D)
{
	for (int64_t r = 0; r < N; r++) {
		const float *xr = x + r * D;
		float *yr = y + r * D;
		double mean = 0.0, var = 0.0, inv;

		for (int64_t j = 0; j < D; j++)
			mean += xr[j];
		mean /= (double)D;
		for (int64_t j = 0; j < D; j++) {
			double d = xr[j] - mean;

			var += d * d;
		}
		inv = 1.0 / sqrt(var / (double)D + 1e-5);
		for (int64_t j = 0; j < D; j++) {
			double h = (xr[j] - mean) * inv * g[j] + b[j];

			yr[j] = (float)(xr[j] + h / (1.0 + exp(-h)));
		}
	}
}
