// kjudge-case: task=level1/rms_norm expect=pass
/* RMSNorm over the last dim: x / sqrt(mean(x^2) + 1e-6) * w, sums in double. */
#include <math.h>
#include <stdint.h>

void rms_norm(const float *x, const float *w, float *y, int64_t B, int64_t S, int64_t D)
{
	int64_t rows = B * S;

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * D;
		float *yr = y + r * D;
		double ss = 0.0, inv;

		for (int64_t j = 0; j < D; j++)
			ss += (double)xr[j] * xr[j];
		inv = 1.0 / sqrt(ss / (double)D + 1e-6);
		for (int64_t j = 0; j < D; j++)
			yr[j] = (float)(xr[j] * inv * w[j]);
	}
}
