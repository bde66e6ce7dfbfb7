// kjudge-case: task=level1/grid_sample_bf16 expect=pass
/* Bilinear grid sampling on bf16 with border padding and
 * align_corners=True: widen to float, take each output pixel's coordinate
 * ix = (x + 1) / 2 * (W - 1) clamped to [0, W - 1] (iy likewise), blend the
 * taps in float (the upper tap is skipped at the last row or column, where
 * its weight is 0) and round once to bf16. */
#include <math.h>
#include <stdint.h>

#include "kjudge_cpu.h"

static float coord(kj_bfloat16 g, int64_t size)
{
	float c = (kj_bfloat16_to_float(g) + 1.0f) / 2.0f * (float)(size - 1);

	return c > 0.0f ? (c < (float)(size - 1) ? c : (float)(size - 1)) : 0.0f;
}

void grid_sample_bf16(const kj_bfloat16 *x, const kj_bfloat16 *grid, kj_bfloat16 *y, int64_t N,
		      int64_t C, int64_t H, int64_t W, int64_t OH, int64_t OW)
{
	int64_t pix = OH * OW, plane = H * W;

	for (int64_t n = 0; n < N; n++)
		for (int64_t q = 0; q < pix; q++) {
			const kj_bfloat16 *g = grid + (n * pix + q) * 2;
			float ix = coord(g[0], W), iy = coord(g[1], H);
			int64_t x0 = (int64_t)ix, y0 = (int64_t)iy;
			int64_t x1 = x0 + 1 < W ? x0 + 1 : x0, y1 = y0 + 1 < H ? y0 + 1 : y0;
			float ax = ix - (float)x0, ay = iy - (float)y0;

			for (int64_t c = 0; c < C; c++) {
				const kj_bfloat16 *xp = x + (n * C + c) * plane;
				float top = (1.0f - ax) * kj_bfloat16_to_float(xp[y0 * W + x0]) +
					    ax * kj_bfloat16_to_float(xp[y0 * W + x1]);
				float bot = (1.0f - ax) * kj_bfloat16_to_float(xp[y1 * W + x0]) +
					    ax * kj_bfloat16_to_float(xp[y1 * W + x1]);

				y[(n * C + c) * pix + q] = kj_float_to_bfloat16((1.0f - ay) * top + ay * bot);
			}
		}
}
