// kjudge-case: task=level1/l2_normalize expect=pass
/* Each row divided by its Euclidean norm, clamped at 1e-12 as
 * F.normalize does; the sum of squares is kept in double. */
#include <math.h>
#include <stdint.h>

void l2_normalize(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * D;
		float *yr = y + r * D;
		double s = 0.0, nrm;

		for (int64_t j = 0; j < D; j++)
			s += (double)xr[j] * xr[j];
		nrm = sqrt(s);
		if (nrm < 1e-12)
			nrm = 1e-12;
		for (int64_t j = 0; j < D; j++)
			yr[j] = (float)(xr[j] / nrm);
	}
}
