// kjudge-case: task=level1/triangular_solve expect=pass
/* Forward substitution per matrix, row by row: X[i, :] = (B[i, :] -
 * sum_{j<i} A[i, j] X[j, :]) / A[i, i], the row sums in double.  Only the
 * lower triangle of A is read. */
#include <stdint.h>
#include <stdlib.h>

void triangular_solve(const float *a, const float *b, float *x, int64_t Q, int64_t N, int64_t K)
{
	double *acc = malloc((size_t)(K ? K : 1) * sizeof(double));

	if (!acc)
		return;
	for (int64_t q = 0; q < Q; q++) {
		const float *aq = a + q * N * N, *bq = b + q * N * K;
		float *xq = x + q * N * K;

		for (int64_t i = 0; i < N; i++) {
			for (int64_t c = 0; c < K; c++)
				acc[c] = bq[i * K + c];
			for (int64_t j = 0; j < i; j++) {
				double aij = aq[i * N + j];
				const float *xj = xq + j * K;

				for (int64_t c = 0; c < K; c++)
					acc[c] -= aij * xj[c];
			}
			for (int64_t c = 0; c < K; c++)
				xq[i * K + c] = (float)(acc[c] / aq[i * N + i]);
		}
	}
	free(acc);
}
