// kjudge-case: task=level1/transpose expect=pass
/* y[b, n, m] = x[b, m, n] in 32x32 tiles, so that both the reads and the
 * writes of a tile stay within a few cache lines per row. */
#include <stdint.h>

#define TILE 32

void transpose(const float *x, float *y, int64_t B, int64_t M, int64_t N)
{
	for (int64_t b = 0; b < B; b++) {
		const float *xb = x + b * M * N;
		float *yb = y + b * M * N;

		for (int64_t m0 = 0; m0 < M; m0 += TILE)
			for (int64_t n0 = 0; n0 < N; n0 += TILE) {
				int64_t me = m0 + TILE < M ? m0 + TILE : M;
				int64_t ne = n0 + TILE < N ? n0 + TILE : N;

				for (int64_t n = n0; n < ne; n++)
					for (int64_t m = m0; m < me; m++)
						yb[n * M + m] = xb[m * N + n];
			}
	}
}
