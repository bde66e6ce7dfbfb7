// kjudge-case: task=level2/linear_relu_mean expect=pass
/* Mean over output features of relu(x @ w^T + b); nothing but the [N, 1]
 * result is written. */
#include <stdint.h>

void linear_relu_mean(const float *x, const float *w, const float *b, float *y,
		      int64_t N, int64_t IN, int64_t OUT)
{
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN;
		double acc = 0.0;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double h = b[o];

			for (int64_t i = 0; i < IN; i++)
				h += (double)xr[i] * wr[i];
			if (h > 0.0)
				acc += h;
		}
		y[n] = (float)(acc / (double)OUT);
	}
}
