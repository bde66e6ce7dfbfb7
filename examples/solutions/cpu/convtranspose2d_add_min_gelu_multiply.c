// kjudge-case: task=level2/convtranspose2d_add_min_gelu_multiply expect=pass
/* Transposed 3x3 convolution, stride 2, padding 1, output_padding 1, as a
 * gather: output (oy, ox) takes input (iy, ix) through tap (r, c) when
 * oy = 2*iy - 1 + r and ox = 2*ix - 1 + c.  Then gelu(min(v + 0.5, 0)) * 2
 * with the exact (erf) GELU. */
#include <math.h>
#include <stdint.h>

void convtranspose2d_add_min_gelu_multiply(const float *x, const float *w, const float *b,
					   float *y, int64_t N, int64_t CI, int64_t H, int64_t W,
					   int64_t CO)
{
	int64_t OH = 2 * H, OW = 2 * W;

	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < CO; co++)
			for (int64_t oy = 0; oy < OH; oy++)
				for (int64_t ox = 0; ox < OW; ox++) {
					double s = b[co], v;

					for (int r = 0; r < 3; r++) {
						int64_t ty = oy + 1 - r, iy = ty / 2;

						if (ty < 0 || ty % 2 || iy >= H)
							continue;
						for (int c = 0; c < 3; c++) {
							int64_t tx = ox + 1 - c, ix = tx / 2;

							if (tx < 0 || tx % 2 || ix >= W)
								continue;
							for (int64_t ci = 0; ci < CI; ci++)
								s += (double)x[((n * CI + ci) * H + iy) * W + ix] *
								     w[((ci * CO + co) * 3 + r) * 3 + c];
						}
					}
					v = s + 0.5;
					v = v < 0.0 ? v : 0.0;
					y[((n * CO + co) * OH + oy) * OW + ox] =
						(float)(0.5 * v * (1.0 + erf(v / sqrt(2.0))) * 2.0);
				}
}
