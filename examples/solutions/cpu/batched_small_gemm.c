// kjudge-case: task=level1/batched_small_gemm expect=pass
/* Many small products C[q] = A[q] @ B[q]: per matrix, each row of C is
 * accumulated in double in a stack buffer (N is small here, but any N
 * works through the column blocks). */
#include <stdint.h>

#define COLS 64

void batched_small_gemm(const float *a, const float *b, float *c, int64_t Q, int64_t M,
			int64_t K, int64_t N)
{
	double acc[COLS];

	for (int64_t q = 0; q < Q; q++) {
		const float *aq = a + q * M * K, *bq = b + q * K * N;
		float *cq = c + q * M * N;

		for (int64_t i = 0; i < M; i++)
			for (int64_t j0 = 0; j0 < N; j0 += COLS) {
				int64_t w = N - j0 < COLS ? N - j0 : COLS;

				for (int64_t j = 0; j < w; j++)
					acc[j] = 0.0;
				for (int64_t k = 0; k < K; k++) {
					double aik = aq[i * K + k];

					for (int64_t j = 0; j < w; j++)
						acc[j] += aik * bq[k * N + j0 + j];
				}
				for (int64_t j = 0; j < w; j++)
					cq[i * N + j0 + j] = (float)acc[j];
			}
	}
}
