// kjudge-case: task=level1/conv2d_square expect=pass
/* Valid 3x3 convolution, stride 1.  For each output row the nine taps are
 * swept as nine shifted row AXPYs (y[oh][:] += w * x[oh+kh][kw:]), which
 * keeps the inner loop contiguous; a row accumulates in double and is
 * stored once. */
#include <stdint.h>
#include <stdlib.h>

void conv2d_square(const float *x, const float *w, float *y, int64_t N, int64_t CI, int64_t H,
		   int64_t W, int64_t CO)
{
	int64_t OH = H - 2, OW = W - 2;
	double *acc = malloc((size_t)(OW > 0 ? OW : 1) * sizeof(double));

	if (!acc)
		return;
	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < CO; co++)
			for (int64_t oh = 0; oh < OH; oh++) {
				for (int64_t ow = 0; ow < OW; ow++)
					acc[ow] = 0.0;
				for (int64_t ci = 0; ci < CI; ci++) {
					const float *xc = x + (n * CI + ci) * H * W;
					const float *wc = w + (co * CI + ci) * 9;
					for (int kh = 0; kh < 3; kh++) {
						const float *xr = xc + (oh + kh) * W;
						for (int kw = 0; kw < 3; kw++) {
							double wv = wc[kh * 3 + kw];
							const float *xs = xr + kw;
							for (int64_t ow = 0; ow < OW; ow++)
								acc[ow] += wv * xs[ow];
						}
					}
				}
				float *yr = y + ((n * CO + co) * OH + oh) * OW;
				for (int64_t ow = 0; ow < OW; ow++)
					yr[ow] = (float)acc[ow];
			}
	free(acc);
}
