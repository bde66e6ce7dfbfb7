// kjudge-case: task=level1/cumsum expect=pass
/* Inclusive prefix sum along rows with a double running sum. */
#include <stdint.h>

void cumsum(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * N;
		float *yr = y + r * N;
		double s = 0.0;

		for (int64_t j = 0; j < N; j++) {
			s += xr[j];
			yr[j] = (float)s;
		}
	}
}
