// kjudge-case: task=level1/avg_pool3d expect=pass
/* avg_pool3d(x, 3, stride=2, padding=1) with count_include_pad: every
 * window sums the taps inside the input and divides by 27, the padded
 * window's size (no window reaches past the padding in floor mode). */
#include <stdint.h>

void avg_pool3d(const float *x, float *y, int64_t N, int64_t C, int64_t D, int64_t H, int64_t W)
{
	int64_t OD = (D - 1) / 2 + 1, OH = (H - 1) / 2 + 1, OW = (W - 1) / 2 + 1;

	for (int64_t p = 0; p < N * C; p++) {
		const float *xc = x + p * D * H * W;
		float *yc = y + p * OD * OH * OW;
		for (int64_t od = 0; od < OD; od++)
			for (int64_t oh = 0; oh < OH; oh++)
				for (int64_t ow = 0; ow < OW; ow++) {
					double s = 0.0;
					for (int64_t id = 2 * od - 1; id < 2 * od + 2; id++) {
						if (id < 0 || id >= D)
							continue;
						for (int64_t ih = 2 * oh - 1; ih < 2 * oh + 2; ih++) {
							if (ih < 0 || ih >= H)
								continue;
							for (int64_t iw = 2 * ow - 1; iw < 2 * ow + 2; iw++)
								if (iw >= 0 && iw < W)
									s += xc[(id * H + ih) * W + iw];
						}
					}
					yc[(od * OH + oh) * OW + ow] = (float)(s / 27.0);
				}
	}
}
