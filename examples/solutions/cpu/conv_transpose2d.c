// kjudge-case: task=level1/conv_transpose2d expect=pass
/* Transposed 3x3 convolution, stride 1, with bias, computed as its
 * definition: every input pixel scatters a 3x3 patch, weighted by
 * w[ci][co], into each output channel.  One output plane accumulates in
 * double (scatter order), then gets the bias and is stored as float. */
#include <stdint.h>
#include <stdlib.h>

void conv_transpose2d(const float *x, const float *w, const float *b, float *y, int64_t N,
		      int64_t CI, int64_t H, int64_t W, int64_t CO)
{
	int64_t OH = H + 2, OW = W + 2;
	double *acc = malloc((size_t)(OH * OW) * sizeof(double));

	if (!acc)
		return;
	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < CO; co++) {
			for (int64_t i = 0; i < OH * OW; i++)
				acc[i] = 0.0;
			for (int64_t ci = 0; ci < CI; ci++) {
				const float *xc = x + (n * CI + ci) * H * W;
				const float *wk = w + (ci * CO + co) * 9;
				for (int64_t ih = 0; ih < H; ih++)
					for (int64_t iw = 0; iw < W; iw++) {
						double v = xc[ih * W + iw];
						double *a = acc + ih * OW + iw;
						for (int kh = 0; kh < 3; kh++)
							for (int kw = 0; kw < 3; kw++)
								a[kh * OW + kw] += v * wk[kh * 3 + kw];
					}
			}
			float *yc = y + (n * CO + co) * OH * OW;
			for (int64_t i = 0; i < OH * OW; i++)
				yc[i] = (float)(acc[i] + b[co]);
		}
	free(acc);
}
