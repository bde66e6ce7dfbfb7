// kjudge-case: task=level3/deep_narrow_mlp expect=pass
/* Nine linear layers (ReLU after the first eight), one row at a time with
 * double accumulators: 18 weight/bias pointers, so this case also checks
 * that a call with more than 16 pointer arguments reaches the candidate with
 * every argument in its place (worker protocol v3). */
#include <stdint.h>
#include <stdlib.h>

/* out[o] = act(b[o] + sum_i w[o, i] * in[i]) for o < nout */
static void layer(const double *in, int64_t nin, const float *w, const float *b, double *out,
		  int64_t nout, int relu)
{
	for (int64_t o = 0; o < nout; o++) {
		const float *wr = w + o * nin;
		double s = b[o];

		for (int64_t i = 0; i < nin; i++)
			s += wr[i] * in[i];
		out[o] = relu && s < 0 ? 0.0 : s;
	}
}

void deep_narrow_mlp(const float *x, const float *w1, const float *b1, const float *w2,
		     const float *b2, const float *w3, const float *b3, const float *w4,
		     const float *b4, const float *w5, const float *b5, const float *w6,
		     const float *b6, const float *w7, const float *b7, const float *w8,
		     const float *b8, const float *w9, const float *b9, float *y, int64_t N,
		     int64_t IN, int64_t H, int64_t OUT)
{
	const float *w[7] = { w2, w3, w4, w5, w6, w7, w8 };
	const float *b[7] = { b2, b3, b4, b5, b6, b7, b8 };
	int64_t big = IN > H ? IN : H;
	double *in = malloc((size_t)big * sizeof(double)), *h = malloc((size_t)big * sizeof(double));
	double *o = malloc((size_t)OUT * sizeof(double)), *t;

	if (!in || !h || !o) {
		free(in);
		free(h);
		free(o);
		return;
	}
	for (int64_t n = 0; n < N; n++) {
		for (int64_t i = 0; i < IN; i++)
			in[i] = x[n * IN + i];
		layer(in, IN, w1, b1, h, H, 1);
		for (int k = 0; k < 7; k++) {
			t = in;
			in = h; /* the two buffers trade roles: both hold max(IN, H) */
			h = t;
			layer(in, H, w[k], b[k], h, H, 1);
		}
		layer(h, H, w9, b9, o, OUT, 0);
		for (int64_t j = 0; j < OUT; j++)
			y[n * OUT + j] = (float)o[j];
	}
	free(in);
	free(h);
	free(o);
}
