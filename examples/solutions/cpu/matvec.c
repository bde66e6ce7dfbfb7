// kjudge-case: task=level1/matvec expect=pass
/* y = A @ b: one double dot product per row of A. */
#include <stdint.h>

void matvec(const float *a, const float *b, float *y, int64_t M, int64_t K)
{
	for (int64_t i = 0; i < M; i++) {
		const float *ar = a + i * K;
		double s = 0.0;

		for (int64_t k = 0; k < K; k++)
			s += (double)ar[k] * b[k];
		y[i] = (float)s;
	}
}
