// kjudge-case: task=level1/conv2d_int8 expect=mismatch
/* Broken: the W8A8 convolution with its sums kept in int16 (as a kernel
 * packing two accumulators per 32-bit register might).  A single
 * -128 * -128 product is 16384 and nine taps over a few channels pass
 * 32767, so the sums wrap and the dequantized outputs are wrong by
 * multiples of 65536 * sx * sw; only shapes with one channel and a tiny
 * window would pass. */
#include <stdint.h>

void conv2d_int8(const int8_t *xq, const int8_t *wq, const float *sx, const float *sw,
		 const float *b, float *y, int64_t N, int64_t CI, int64_t H, int64_t W, int64_t CO)
{
	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < CO; co++)
			for (int64_t oh = 0; oh < H; oh++)
				for (int64_t ow = 0; ow < W; ow++) {
					int16_t acc = 0;
					for (int64_t ci = 0; ci < CI; ci++)
						for (int kh = 0; kh < 3; kh++)
							for (int kw = 0; kw < 3; kw++) {
								int64_t ih = oh - 1 + kh, iw = ow - 1 + kw;
								if (ih < 0 || ih >= H || iw < 0 || iw >= W)
									continue;
								acc = (int16_t)(acc +
										xq[((n * CI + ci) * H + ih) * W + iw] *
										wq[((co * CI + ci) * 3 + kh) * 3 + kw]);
							}
					y[((n * CO + co) * H + oh) * W + ow] =
						(float)acc * sx[n] * sw[co] + b[co];
				}
}
