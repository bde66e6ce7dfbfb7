// kjudge-case: task=level1/mean_dim expect=pass
/* Mean over the last dim, summed in double. */
#include <stdint.h>

void mean_dim(const float *x, float *y, int64_t B, int64_t M, int64_t N)
{
	int64_t rows = B * M;

	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * N;
		double s = 0.0;

		for (int64_t j = 0; j < N; j++)
			s += xr[j];
		y[r] = (float)(s / (double)N);
	}
}
