// kjudge-case: task=level2/add_layernorm expect=pass
/* h = x + r (stored as float, as the task's f32 output), then LayerNorm of
 * the stored h with double statistics. */
#include <math.h>
#include <stdint.h>

void add_layernorm(const float *x, const float *r, const float *g, const float *b,
		   float *h, float *y, int64_t N, int64_t D)
{
	for (int64_t i = 0; i < N; i++) {
		const float *xr = x + i * D, *rr = r + i * D;
		float *hr = h + i * D, *yr = y + i * D;
		double mean = 0.0, var = 0.0, inv;

		for (int64_t j = 0; j < D; j++) {
			hr[j] = xr[j] + rr[j];
			mean += hr[j];
		}
		mean /= (double)D;
		for (int64_t j = 0; j < D; j++) {
			double d = hr[j] - mean;

			var += d * d;
		}
		inv = 1.0 / sqrt(var / (double)D + 1e-5);
		for (int64_t j = 0; j < D; j++)
			yr[j] = (float)((hr[j] - mean) * inv * g[j] + b[j]);
	}
}
