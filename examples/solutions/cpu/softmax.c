// kjudge-case: task=level1/softmax expect=pass
/* Row softmax: subtract the row max before exp (outliers reach x50), sum in double. */
#include <math.h>
#include <stdint.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * D;
		float *yr = y + r * D;
		double m = -INFINITY, s = 0.0;

		for (int64_t j = 0; j < D; j++)
			if (xr[j] > m)
				m = xr[j];
		for (int64_t j = 0; j < D; j++)
			s += exp(xr[j] - m);
		for (int64_t j = 0; j < D; j++)
			yr[j] = (float)(exp(xr[j] - m) / s);
	}
}
