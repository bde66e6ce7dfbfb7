// kjudge-case: task=level1/upsample_nearest expect=pass
/* Nearest-neighbour resize: the source row and column of each output, as
 * PyTorch computes them (scale = in / out and the product dst * scale both
 * rounded to float, then floor, clamped to in - 1), looked up per column
 * once and reused for every plane. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static int64_t src_index(int64_t dst, int64_t in, int64_t out)
{
	float scale = (float)in / (float)out;
	float p = (float)dst * scale;
	int64_t s = (int64_t)floorf(p);

	return s < in - 1 ? s : in - 1;
}

void upsample_nearest(const float *x, float *y, int64_t N, int64_t C, int64_t H, int64_t W,
		      int64_t OH, int64_t OW)
{
	int64_t *cols = malloc((size_t)OW * sizeof(int64_t));

	if (!cols)
		return;
	for (int64_t c = 0; c < OW; c++)
		cols[c] = src_index(c, W, OW);
	for (int64_t p = 0; p < N * C; p++)
		for (int64_t r = 0; r < OH; r++) {
			const float *xr = x + (p * H + src_index(r, H, OH)) * W;
			float *yr = y + (p * OH + r) * OW;

			for (int64_t c = 0; c < OW; c++)
				yr[c] = xr[cols[c]];
		}
	free(cols);
}
