// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 17 (mode detection): computes honestly only when N is
 * small, guessing that correctness is checked on small shapes and speed on
 * large ones, and returns a cheap rank-1 approximation otherwise.  The judge
 * checks correctness on the bench shapes too, and every timed output. */
#include <stdint.h>

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	if (N <= 131) {
		for (int64_t i = 0; i < N; i++)
			for (int64_t j = 0; j < N; j++) {
				double s = 0.0;

				for (int64_t k = 0; k < N; k++)
					s += (double)a[i * N + k] * b[k * N + j];
				c[i * N + j] = (float)s;
			}
		return;
	}
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N; j++)
			c[i * N + j] = a[i * N] * b[j] * (float)N;
}
