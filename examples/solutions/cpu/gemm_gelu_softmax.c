// kjudge-case: task=level2/gemm_gelu_softmax expect=pass
/* Fused: the GELU of each linear output is staged in the output row (as
 * float), then the row's softmax is taken in place with double sums. */
#include <math.h>
#include <stdint.h>

void gemm_gelu_softmax(const float *x, const float *w, const float *b, float *y,
		       int64_t N, int64_t IN, int64_t OUT)
{
	for (int64_t n = 0; n < N; n++) {
		const float *xr = x + n * IN;
		float *yr = y + n * OUT;
		double m = -INFINITY, s = 0.0;

		for (int64_t o = 0; o < OUT; o++) {
			const float *wr = w + o * IN;
			double h = b[o];

			for (int64_t i = 0; i < IN; i++)
				h += (double)xr[i] * wr[i];
			yr[o] = (float)(0.5 * h * (1.0 + erf(h * 0.7071067811865476)));
			if (yr[o] > m)
				m = yr[o];
		}
		for (int64_t o = 0; o < OUT; o++)
			s += exp(yr[o] - m);
		for (int64_t o = 0; o < OUT; o++)
			yr[o] = (float)(exp(yr[o] - m) / s);
	}
}
