// kjudge-case: task=level1/conv2d_int8 expect=pass
/* The textbook W8A8 convolution: for each output row the int8 products of
 * the nine taps are summed exactly in int32 (row AXPYs over the taps that
 * fall inside the input: padding 1 contributes nothing), then the row is
 * dequantized in float by the image's activation scale and the output
 * channel's weight scale, and the bias is added. */
#include <stdint.h>
#include <stdlib.h>

void conv2d_int8(const int8_t *xq, const int8_t *wq, const float *sx, const float *sw,
		 const float *b, float *y, int64_t N, int64_t CI, int64_t H, int64_t W, int64_t CO)
{
	int32_t *acc = malloc((size_t)(W > 0 ? W : 1) * sizeof(int32_t));

	if (!acc)
		return;
	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < CO; co++)
			for (int64_t oh = 0; oh < H; oh++) {
				for (int64_t ow = 0; ow < W; ow++)
					acc[ow] = 0;
				for (int64_t ci = 0; ci < CI; ci++) {
					const int8_t *xc = xq + (n * CI + ci) * H * W;
					const int8_t *wc = wq + (co * CI + ci) * 9;
					for (int kh = 0; kh < 3; kh++) {
						int64_t ih = oh - 1 + kh;
						if (ih < 0 || ih >= H)
							continue;
						const int8_t *xr = xc + ih * W;
						for (int kw = 0; kw < 3; kw++) {
							int32_t wv = wc[kh * 3 + kw];
							/* input column ow - 1 + kw: ow in [lo, hi) stays inside */
							int64_t lo = kw == 0 ? 1 : 0, hi = kw == 2 ? W - 1 : W;
							for (int64_t ow = lo; ow < hi; ow++)
								acc[ow] += wv * (int32_t)xr[ow - 1 + kw];
						}
					}
				}
				float s = sx[n] * sw[co], bias = b[co];
				float *yr = y + ((n * CO + co) * H + oh) * W;
				for (int64_t ow = 0; ow < W; ow++)
					yr[ow] = (float)acc[ow] * s + bias;
			}
	free(acc);
}
