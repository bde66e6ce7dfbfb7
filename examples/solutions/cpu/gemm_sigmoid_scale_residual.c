// kjudge-case: task=level2/gemm_sigmoid_scale_residual expect=pass
/* h = x @ w^T + b; y = 2 sigmoid(h) + h, all in double before one store. */
#include <math.h>
#include <stdint.h>

void gemm_sigmoid_scale_residual(const float *x, const float *w, const float *b, float *y,
				 int64_t N, int64_t IN, int64_t OUT)
{
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double h = b[o];

			for (int64_t i = 0; i < IN; i++)
				h += (double)xr[i] * wr[i];
			y[n * OUT + o] = (float)(2.0 / (1.0 + exp(-h)) + h);
		}
	}
}
