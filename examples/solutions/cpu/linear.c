// kjudge-case: task=level1/linear expect=pass
/* y = x @ w^T + b: each output is a dot product of two contiguous rows (a row
 * of x and a row of w), accumulated in double. */
#include <stdint.h>

void linear(const float *x, const float *w, const float *b, float *y,
	    int64_t N, int64_t IN, int64_t OUT)
{
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double s = b[o];

			for (int64_t i = 0; i < IN; i++)
				s += (double)xr[i] * wr[i];
			y[n * OUT + o] = (float)s;
		}
	}
}
