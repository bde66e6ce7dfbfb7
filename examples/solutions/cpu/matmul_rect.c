// kjudge-case: task=level1/matmul_rect expect=pass
/* C[M, N] = A[M, K] @ B[K, N], i-k-j order with double accumulators in
 * column chunks of 256. */
#include <stdint.h>

#define CHUNK 256

void matmul_rect(const float *a, const float *b, float *c, int64_t M, int64_t K, int64_t N)
{
	double acc[CHUNK];

	for (int64_t i = 0; i < M; i++) {
		for (int64_t j0 = 0; j0 < N; j0 += CHUNK) {
			int64_t w = N - j0 < CHUNK ? N - j0 : CHUNK;

			for (int64_t j = 0; j < w; j++)
				acc[j] = 0.0;
			for (int64_t k = 0; k < K; k++) {
				double aik = a[i * K + k];
				const float *br = b + k * N + j0;

				for (int64_t j = 0; j < w; j++)
					acc[j] += aik * br[j];
			}
			for (int64_t j = 0; j < w; j++)
				c[i * N + j0 + j] = (float)acc[j];
		}
	}
}
