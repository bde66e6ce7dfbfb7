// kjudge-case: task=level1/softmax expect=pass
/* Row softmax in two passes over the row after the max: exp(x - max) is
 * stored in the output while its sum is kept in double, then scaled by
 * 1/sum.  Subtracting the max matters: outlier draws reach x50. */
#include <math.h>
#include <stdint.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * D;
		float *yr = y + r * D;
		float m = -INFINITY;
		double s = 0.0;
		float inv;

		for (int64_t j = 0; j < D; j++)
			if (xr[j] > m)
				m = xr[j];
		for (int64_t j = 0; j < D; j++) {
			yr[j] = expf(xr[j] - m);
			s += yr[j];
		}
		inv = (float)(1.0 / s);
		for (int64_t j = 0; j < D; j++)
			yr[j] *= inv;
	}
}
