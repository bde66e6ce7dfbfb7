// kjudge-case: task=level1/cumprod expect=pass
/* Running product along each row with the product kept in double, so the
 * rounding does not accumulate over the 4096 factors of a row. */
#include <stdint.h>

void cumprod(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t r = 0; r < B; r++) {
		double acc = 1.0;

		for (int64_t j = 0; j < N; j++) {
			acc *= x[r * N + j];
			y[r * N + j] = (float)acc;
		}
	}
}
