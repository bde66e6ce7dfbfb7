// kjudge-case: task=level2/conv2d_relu_biasadd expect=pass
/* Direct 3x3 convolution (stride 1, no padding) accumulated in double per
 * output element, then ReLU and the per-channel bias, in one pass. */
#include <stdint.h>

void conv2d_relu_biasadd(const float *x, const float *w, const float *b, const float *bias,
			 float *y, int64_t N, int64_t CI, int64_t H, int64_t W, int64_t CO)
{
	int64_t OH = H - 2, OW = W - 2;

	for (int64_t n = 0; n < N; n++)
		for (int64_t co = 0; co < CO; co++)
			for (int64_t i = 0; i < OH; i++)
				for (int64_t j = 0; j < OW; j++) {
					double s = b[co];

					for (int64_t ci = 0; ci < CI; ci++) {
						const float *xp = x + ((n * CI + ci) * H + i) * W + j;
						const float *wp = w + (co * CI + ci) * 9;

						for (int r = 0; r < 3; r++)
							for (int c = 0; c < 3; c++)
								s += (double)xp[r * W + c] * wp[r * 3 + c];
					}
					y[((n * CO + co) * OH + i) * OW + j] =
						(float)((s > 0.0 ? s : 0.0) + bias[co]);
				}
}
