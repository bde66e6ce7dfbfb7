// kjudge-case: task=level1/layer_norm expect=pass
/* LayerNorm over the last dim: two-pass mean and biased variance in double. */
#include <math.h>
#include <stdint.h>

void layer_norm(const float *x, const float *w, const float *b, float *y,
		int64_t B, int64_t S, int64_t D)
{
	int64_t rows = B * S;

	for (int64_t r = 0; r < rows; r++) {
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
		var /= (double)D;
		inv = 1.0 / sqrt(var + 1e-5);
		for (int64_t j = 0; j < D; j++)
			yr[j] = (float)((xr[j] - mean) * inv * w[j] + b[j]);
	}
}
