// kjudge-case: task=level1/hardswish expect=pass
/* Hardswish: 0 below -3, x above 3, x (x + 3) / 6 between (in double, one rounding). */
#include <math.h>
#include <stdint.h>

void hardswish(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		float v = x[i];

		y[i] = v <= -3.0f ? 0.0f : v >= 3.0f ? v : (float)((double)v * (v + 3.0) / 6.0);
	}
}
