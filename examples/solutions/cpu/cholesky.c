// kjudge-case: task=level1/cholesky expect=pass
/* Cholesky-Banachiewicz per matrix, row by row: L[i][j] = (A[i][j] -
 * sum_k<j L[i][k] L[j][k]) / L[j][j] and L[i][i] = sqrt(A[i][i] - sum_k<i
 * L[i][k]^2), the sums in double; the upper triangle written as 0.  Only
 * A's lower triangle is read. */
#include <math.h>
#include <stdint.h>

void cholesky(const float *a, float *l, int64_t Q, int64_t N)
{
	for (int64_t q = 0; q < Q; q++) {
		const float *aq = a + q * N * N;
		float *lq = l + q * N * N;

		for (int64_t i = 0; i < N; i++) {
			for (int64_t j = 0; j <= i; j++) {
				double s = aq[i * N + j];

				for (int64_t k = 0; k < j; k++)
					s -= (double)lq[i * N + k] * lq[j * N + k];
				lq[i * N + j] = (float)(i == j ? sqrt(s) : s / lq[j * N + j]);
			}
			for (int64_t j = i + 1; j < N; j++)
				lq[i * N + j] = 0.0f;
		}
	}
}
