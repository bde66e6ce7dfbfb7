// kjudge-case: task=level1/max_dim expect=pass
/* Max over the last dim (values). */
#include <stdint.h>

void max_dim(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t r = 0; r < B; r++) {
		const float *xr = x + r * N;
		float m = xr[0];

		for (int64_t j = 1; j < N; j++)
			if (xr[j] > m)
				m = xr[j];
		y[r] = m;
	}
}
