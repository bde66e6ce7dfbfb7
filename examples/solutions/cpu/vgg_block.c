// kjudge-case: task=level3/vgg_block expect=pass
/* Two 3x3 convolutions with zero padding 1 (double accumulators), ReLU
 * after each, then a 2x2 max pool with stride 2 that drops an odd last
 * row or column.  The first activation lives in a scratch buffer; the
 * second is pooled as it is computed. */
#include <stdint.h>
#include <stdlib.h>

/* ReLU(b[co] + sum over ci and the 3x3 taps inside the image) at (i, j) */
static double conv_at(const float *in, int64_t C, int64_t H, int64_t W, const float *w,
		      const float *b, int64_t co, int64_t i, int64_t j)
{
	double s = b[co];

	for (int64_t ci = 0; ci < C; ci++)
		for (int r = 0; r < 3; r++) {
			int64_t y = i + r - 1;

			if (y < 0 || y >= H)
				continue;
			for (int c = 0; c < 3; c++) {
				int64_t x = j + c - 1;

				if (x >= 0 && x < W)
					s += (double)in[(ci * H + y) * W + x] * w[((co * C + ci) * 3 + r) * 3 + c];
			}
		}
	return s > 0.0 ? s : 0.0;
}

void vgg_block(const float *x, const float *w1, const float *b1, const float *w2, const float *b2,
	       float *y, int64_t N, int64_t CI, int64_t H, int64_t W, int64_t CO)
{
	int64_t PH = H / 2, PW = W / 2;
	float *h = malloc((size_t)(CO * H * W) * sizeof(float));

	if (!h)
		return;
	for (int64_t n = 0; n < N; n++) {
		const float *xn = x + n * CI * H * W;

		/* float scratch: its rounding (~6e-8 relative) is far below the tolerance */
		for (int64_t co = 0; co < CO; co++)
			for (int64_t i = 0; i < H; i++)
				for (int64_t j = 0; j < W; j++)
					h[(co * H + i) * W + j] = (float)conv_at(xn, CI, H, W, w1, b1, co, i, j);
		for (int64_t co = 0; co < CO; co++)
			for (int64_t pi = 0; pi < PH; pi++)
				for (int64_t pj = 0; pj < PW; pj++) {
					double m = 0.0;

					for (int d = 0; d < 4; d++) {
						double v = conv_at(h, CO, H, W, w2, b2, co, 2 * pi + d / 2,
								   2 * pj + d % 2);

						if (d == 0 || v > m)
							m = v;
					}
					y[((n * CO + co) * PH + pi) * PW + pj] = (float)m;
				}
	}
	free(h);
}
