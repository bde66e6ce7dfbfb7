// kjudge-case: task=level1/std_dim expect=pass
/* Sample standard deviation over the last dim: two passes in double, divisor N - 1. */
#include <math.h>
#include <stdint.h>

void std_dim(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * N;
		double mean = 0.0, ss = 0.0;

		for (int64_t j = 0; j < N; j++)
			mean += xr[j];
		mean /= (double)N;
		for (int64_t j = 0; j < N; j++) {
			double d = xr[j] - mean;

			ss += d * d;
		}
		y[r] = (float)sqrt(ss / (double)(N - 1));
	}
}
