// kjudge-case: task=level1/grid_sample expect=mismatch
/* Broken: taps outside the image are clamped to the edge pixels (as
 * padding_mode="border" would read them) instead of counting 0.  Inside the
 * image it is exact; every grid point within a pixel of the edge or beyond
 * it (the task's grid reaches 10% past [-1, 1]) reads edge pixels where
 * the task's zero padding reads nothing. */
#include <math.h>
#include <stdint.h>

static int64_t clampi(int64_t v, int64_t n)
{
	return v < 0 ? 0 : v >= n ? n - 1 : v;
}

void grid_sample(const float *x, const float *grid, float *y, int64_t N, int64_t C, int64_t H,
		 int64_t W, int64_t OH, int64_t OW)
{
	int64_t pix = OH * OW, plane = H * W;

	for (int64_t n = 0; n < N; n++)
		for (int64_t q = 0; q < pix; q++) {
			const float *g = grid + (n * pix + q) * 2;
			float ix = ((g[0] + 1.0f) * (float)W - 1.0f) / 2.0f;
			float iy = ((g[1] + 1.0f) * (float)H - 1.0f) / 2.0f;
			float fx = floorf(ix), fy = floorf(iy), ax = ix - fx, ay = iy - fy;
			int64_t x0 = clampi((int64_t)fx, W), x1 = clampi((int64_t)fx + 1, W);
			int64_t y0 = clampi((int64_t)fy, H), y1 = clampi((int64_t)fy + 1, H);

			for (int64_t c = 0; c < C; c++) {
				const float *xp = x + (n * C + c) * plane;

				y[(n * C + c) * pix + q] =
					(1.0f - ay) * ((1.0f - ax) * xp[y0 * W + x0] + ax * xp[y0 * W + x1]) +
					ay * ((1.0f - ax) * xp[y1 * W + x0] + ax * xp[y1 * W + x1]);
			}
		}
}
