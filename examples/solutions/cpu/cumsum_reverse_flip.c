// kjudge-case: task=level1/cumsum_reverse_flip expect=pass
/* The suffix sum y[i] = x[i] + ... + x[N-1] in one backward pass, without
 * materializing the two flips, with a double accumulator. */
#include <stdint.h>

void cumsum_reverse_flip(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t r = 0; r < B; r++) {
		double acc = 0.0;

		for (int64_t j = N - 1; j >= 0; j--) {
			acc += x[r * N + j];
			y[r * N + j] = (float)acc;
		}
	}
}
