// kjudge-case: task=level1/hardswish expect=pass
/* Hardswish: x * clamp(x + 3, 0, 6) / 6. */
#include <math.h>
#include <stdint.h>

void hardswish(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];

		y[i] = (float)(v * fmin(fmax(v + 3.0, 0.0), 6.0) / 6.0);
	}
}
