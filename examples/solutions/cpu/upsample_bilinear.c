// kjudge-case: task=level1/upsample_bilinear expect=pass
/* Bilinear resize with align_corners=False: per output row and column the
 * half-pixel source coordinate max((dst + 0.5) * in / out - 0.5, 0), its
 * lower tap, the upper tap clamped to the last pixel and the weight; the
 * column taps computed once, the blend in float. */
#include <stdint.h>
#include <stdlib.h>

static void taps(int64_t dst, int64_t in, int64_t out, int64_t *i0, int64_t *i1, float *w1)
{
	float scale = (float)in / (float)out;
	float src = scale * ((float)dst + 0.5f) - 0.5f;

	if (src < 0.0f)
		src = 0.0f;
	*i0 = (int64_t)src;
	*i1 = *i0 < in - 1 ? *i0 + 1 : *i0;
	*w1 = src - (float)*i0;
}

void upsample_bilinear(const float *x, float *y, int64_t N, int64_t C, int64_t H, int64_t W,
		       int64_t OH, int64_t OW)
{
	int64_t *c0 = malloc((size_t)OW * sizeof(int64_t)), *c1 = malloc((size_t)OW * sizeof(int64_t));
	float *cw = malloc((size_t)OW * sizeof(float));

	if (c0 && c1 && cw) {
		for (int64_t c = 0; c < OW; c++)
			taps(c, W, OW, &c0[c], &c1[c], &cw[c]);
		for (int64_t p = 0; p < N * C; p++)
			for (int64_t r = 0; r < OH; r++) {
				int64_t r0, r1;
				float rw;

				taps(r, H, OH, &r0, &r1, &rw);
				const float *x0 = x + (p * H + r0) * W, *x1 = x + (p * H + r1) * W;
				float *yr = y + (p * OH + r) * OW;

				for (int64_t c = 0; c < OW; c++) {
					float top = (1.0f - cw[c]) * x0[c0[c]] + cw[c] * x0[c1[c]];
					float bot = (1.0f - cw[c]) * x1[c0[c]] + cw[c] * x1[c1[c]];

					yr[c] = (1.0f - rw) * top + rw * bot;
				}
			}
	}
	free(c0);
	free(c1);
	free(cw);
}
