// kjudge-case: task=level1/mul_broadcast expect=pass
/* y[b, m, n] = a[b, 0, n] * b[m, n]; a float product is already correctly
 * rounded, so no wider type is needed. */
#include <stdint.h>

void mul_broadcast(const float *a, const float *b, float *y, int64_t B, int64_t N, int64_t M)
{
	for (int64_t i = 0; i < B; i++) {
		const float *ar = a + i * N;

		for (int64_t m = 0; m < M; m++) {
			const float *br = b + m * N;
			float *yr = y + (i * M + m) * N;

			for (int64_t n = 0; n < N; n++)
				yr[n] = ar[n] * br[n];
		}
	}
}
