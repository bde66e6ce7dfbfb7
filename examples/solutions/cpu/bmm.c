// kjudge-case: task=level1/bmm expect=pass
/* Batched C[q] = A[q] @ B[q], each product i-k-j with double accumulators. */
#include <stdint.h>

#define CHUNK 256

void bmm(const float *a, const float *b, float *c, int64_t Q, int64_t M, int64_t K, int64_t N)
{
	double acc[CHUNK];

	for (int64_t q = 0; q < Q; q++) {
		const float *aq = a + q * M * K, *bq = b + q * K * N;
		float *cq = c + q * M * N;

		for (int64_t i = 0; i < M; i++) {
			for (int64_t j0 = 0; j0 < N; j0 += CHUNK) {
				int64_t w = N - j0 < CHUNK ? N - j0 : CHUNK;

				for (int64_t j = 0; j < w; j++)
					acc[j] = 0.0;
				for (int64_t k = 0; k < K; k++) {
					double aik = aq[i * K + k];
					const float *br = bq + k * N + j0;

					for (int64_t j = 0; j < w; j++)
						acc[j] += aik * br[j];
				}
				for (int64_t j = 0; j < w; j++)
					cq[i * N + j0 + j] = (float)acc[j];
			}
		}
	}
}
