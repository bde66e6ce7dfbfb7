// kjudge-case: task=level1/matmul_square expect=pass
/* C = A @ B, i-k-j order: for each row of C, a chunk of up to 256 columns is
 * accumulated in double on the stack while rows of B stream contiguously. */
#include <stdint.h>

#define CHUNK 256

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	double acc[CHUNK];

	for (int64_t i = 0; i < N; i++) {
		for (int64_t j0 = 0; j0 < N; j0 += CHUNK) {
			int64_t w = N - j0 < CHUNK ? N - j0 : CHUNK;

			for (int64_t j = 0; j < w; j++)
				acc[j] = 0.0;
			for (int64_t k = 0; k < N; k++) {
				double aik = a[i * N + k];
				const float *br = b + k * N + j0;

				for (int64_t j = 0; j < w; j++)
					acc[j] += aik * br[j];
			}
			for (int64_t j = 0; j < w; j++)
				c[i * N + j0 + j] = (float)acc[j];
		}
	}
}
