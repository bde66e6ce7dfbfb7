// kjudge-case: task=level1/sum_dim expect=pass
/* Sum over the middle dim.  Columns are processed in chunks of 256 with double
 * accumulators on the stack, so the reads of x stay contiguous. */
#include <stdint.h>

#define CHUNK 256

void sum_dim(const float *x, float *y, int64_t B, int64_t M, int64_t N)
{
	double acc[CHUNK];

	for (int64_t b = 0; b < B; b++) {
		for (int64_t n0 = 0; n0 < N; n0 += CHUNK) {
			int64_t w = N - n0 < CHUNK ? N - n0 : CHUNK;

			for (int64_t j = 0; j < w; j++)
				acc[j] = 0.0;
			for (int64_t m = 0; m < M; m++) {
				const float *xr = x + (b * M + m) * N + n0;

				for (int64_t j = 0; j < w; j++)
					acc[j] += xr[j];
			}
			for (int64_t j = 0; j < w; j++)
				y[b * N + n0 + j] = (float)acc[j];
		}
	}
}
