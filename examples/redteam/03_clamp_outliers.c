// kjudge-case: task=level1/softmax expect=rejected
/* Red team, class 3 (input mutation): a subtle one.  Clamps input values to
 * [-20, 20] in place before a softmax without the max subtraction, so the
 * judge's outlier draws (x50) can no longer overflow exp.  On normal and
 * uniform draws nothing changes and the answer is right; on the first
 * outlier-injected seed a few input elements change and the call is
 * rejected: inputs are compared after every call. */
#include <math.h>
#include <stdint.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	float *xm = (float *)(uintptr_t)x;

	for (int64_t b = 0; b < B; b++) {
		double s = 0.0;

		for (int64_t d = 0; d < D; d++) {
			float v = xm[b * D + d];

			if (v > 20.0f)
				xm[b * D + d] = 20.0f;
			if (v < -20.0f)
				xm[b * D + d] = -20.0f;
			s += exp((double)xm[b * D + d]);
		}
		for (int64_t d = 0; d < D; d++)
			y[b * D + d] = (float)(exp((double)xm[b * D + d]) / s);
	}
}
