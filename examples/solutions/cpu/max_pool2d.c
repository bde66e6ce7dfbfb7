// kjudge-case: task=level1/max_pool2d expect=pass
/* max_pool2d(x, 2, stride=2, padding=1, dilation=3): the two taps of a
 * window along a dim are 2*o - 1 and 2*o + 2; taps outside the input are
 * skipped (padding never wins), a NaN propagates as in PyTorch. */
#include <math.h>
#include <stdint.h>

void max_pool2d(const float *x, float *y, int64_t N, int64_t C, int64_t H, int64_t W)
{
	int64_t OH = (H - 2) / 2 + 1, OW = (W - 2) / 2 + 1;

	for (int64_t p = 0; p < N * C; p++) {
		const float *xc = x + p * H * W;
		float *yc = y + p * OH * OW;
		for (int64_t oh = 0; oh < OH; oh++)
			for (int64_t ow = 0; ow < OW; ow++) {
				float m = -INFINITY;
				for (int a = 0; a < 2; a++) {
					int64_t ih = 2 * oh - 1 + 3 * a;
					if (ih < 0 || ih >= H)
						continue;
					for (int c = 0; c < 2; c++) {
						int64_t iw = 2 * ow - 1 + 3 * c;
						float v;
						if (iw < 0 || iw >= W)
							continue;
						v = xc[ih * W + iw];
						if (v > m || isnan(v))
							m = v;
					}
				}
				yc[oh * OW + ow] = m;
			}
	}
}
