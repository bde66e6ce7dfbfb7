// kjudge-case: task=level2/gemm_sub_mul_relu expect=pass
/* Fused: each output is one double dot product (row of x, row of w) plus the
 * bias, then (h - 0.2) * 1.5 and ReLU before the single store. */
#include <stdint.h>

void gemm_sub_mul_relu(const float *x, const float *w, const float *b, float *y,
		       int64_t N, int64_t IN, int64_t OUT)
{
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double h = b[o], v;

			for (int64_t i = 0; i < IN; i++)
				h += (double)xr[i] * wr[i];
			v = (h - 0.2) * 1.5;
			y[n * OUT + o] = (float)(v > 0.0 ? v : 0.0);
		}
	}
}
