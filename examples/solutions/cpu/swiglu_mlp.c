// kjudge-case: task=level2/swiglu_mlp expect=pass
/* SwiGLU MLP one token at a time: the gated hidden row g[H] lives in a
 * scratch buffer, then y = g @ w2^T.  If the buffer cannot be allocated each
 * g[h] is recomputed where it is used (slow, same result). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static double gate(const float *xr, const float *w1, const float *w3, int64_t D, int64_t h)
{
	const float *r1 = w1 + h * D, *r3 = w3 + h * D;
	double u = 0.0, v = 0.0;

	for (int64_t j = 0; j < D; j++) {
		u += (double)xr[j] * r1[j];
		v += (double)xr[j] * r3[j];
	}
	return u / (1.0 + exp(-u)) * v;
}

void swiglu_mlp(const float *x, const float *w1, const float *w3, const float *w2, float *y,
		int64_t T, int64_t D, int64_t H)
{
	double *g = malloc((size_t)H * sizeof(double));

	for (int64_t t = 0; t < T; t++) {
		const float *xr = x + t * D;

		if (g)
			for (int64_t h = 0; h < H; h++)
				g[h] = gate(xr, w1, w3, D, h);
		for (int64_t d = 0; d < D; d++) {
			const float *r2 = w2 + d * H;
			double s = 0.0;

			for (int64_t h = 0; h < H; h++)
				s += (g ? g[h] : gate(xr, w1, w3, D, h)) * r2[h];
			y[t * D + d] = (float)s;
		}
	}
	free(g);
}
