// kjudge-case: task=level1/prod_dim expect=pass
/* Product over the middle dim, in double, columns in contiguous chunks. */
#include <stdint.h>

#define CHUNK 256

void prod_dim(const float *x, float *y, int64_t B, int64_t K, int64_t N)
{
	double acc[CHUNK];

	for (int64_t b = 0; b < B; b++) {
		for (int64_t n0 = 0; n0 < N; n0 += CHUNK) {
			int64_t w = N - n0 < CHUNK ? N - n0 : CHUNK;

			for (int64_t j = 0; j < w; j++)
				acc[j] = 1.0;
			for (int64_t k = 0; k < K; k++) {
				const float *xr = x + (b * K + k) * N + n0;

				for (int64_t j = 0; j < w; j++)
					acc[j] *= xr[j];
			}
			for (int64_t j = 0; j < w; j++)
				y[b * N + n0 + j] = (float)acc[j];
		}
	}
}
