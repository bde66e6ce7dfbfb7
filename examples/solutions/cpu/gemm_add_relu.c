// kjudge-case: task=level2/gemm_add_relu expect=pass
/* relu(x @ w^T + b) with one double dot product per output. */
#include <stdint.h>

void gemm_add_relu(const float *x, const float *w, const float *b, float *y,
		   int64_t N, int64_t IN, int64_t OUT)
{
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double h = 0.0;

			for (int64_t i = 0; i < IN; i++)
				h += (double)xr[i] * wr[i];
			h += b[o];
			y[n * OUT + o] = (float)(h > 0.0 ? h : 0.0);
		}
	}
}
