// kjudge-case: task=level1/grid_sample expect=pass
/* Bilinear grid sampling with zero padding, align_corners=False, in float
 * as PyTorch computes it: per image, each output pixel's coordinate
 * ix = ((x + 1) * W - 1) / 2 (iy likewise), its four taps and weights are
 * worked out once into a table (a tap outside the image gets weight 0 and
 * offset 0), then every channel plane is produced from the table with
 * contiguous stores. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

struct taps {
	int64_t off[4];
	float w[4];
};

static void make_taps(float gx, float gy, int64_t H, int64_t W, struct taps *t)
{
	float ix = ((gx + 1.0f) * (float)W - 1.0f) / 2.0f;
	float iy = ((gy + 1.0f) * (float)H - 1.0f) / 2.0f;
	float fx, fy, ax, ay;
	int64_t x0, y0;

	/* far outside (or NaN): every tap is outside; keeps the casts defined */
	if (!(ix > -2.0f && ix < (float)W + 1.0f && iy > -2.0f && iy < (float)H + 1.0f)) {
		for (int k = 0; k < 4; k++) {
			t->off[k] = 0;
			t->w[k] = 0.0f;
		}
		return;
	}
	fx = floorf(ix);
	fy = floorf(iy);
	x0 = (int64_t)fx;
	y0 = (int64_t)fy;
	ax = ix - fx;
	ay = iy - fy;
	for (int k = 0; k < 4; k++) {
		int64_t tx = x0 + (k & 1), ty = y0 + (k >> 1);
		float wx = (k & 1) ? ax : (fx + 1.0f) - ix;
		float wy = (k >> 1) ? ay : (fy + 1.0f) - iy;

		if (tx >= 0 && tx < W && ty >= 0 && ty < H) {
			t->off[k] = ty * W + tx;
			t->w[k] = wx * wy;
		} else {
			t->off[k] = 0;
			t->w[k] = 0.0f;
		}
	}
}

void grid_sample(const float *x, const float *grid, float *y, int64_t N, int64_t C, int64_t H,
		 int64_t W, int64_t OH, int64_t OW)
{
	int64_t pix = OH * OW, plane = H * W;
	struct taps *tab = malloc((size_t)(pix ? pix : 1) * sizeof(*tab));

	if (!tab)
		return;
	for (int64_t n = 0; n < N; n++) {
		const float *g = grid + n * pix * 2;

		for (int64_t q = 0; q < pix; q++)
			make_taps(g[2 * q], g[2 * q + 1], H, W, &tab[q]);
		for (int64_t c = 0; c < C; c++) {
			const float *xp = x + (n * C + c) * plane;
			float *yp = y + (n * C + c) * pix;

			for (int64_t q = 0; q < pix; q++) {
				const struct taps *t = &tab[q];

				yp[q] = xp[t->off[0]] * t->w[0] + xp[t->off[1]] * t->w[1] +
					xp[t->off[2]] * t->w[2] + xp[t->off[3]] * t->w[3];
			}
		}
	}
	free(tab);
}
