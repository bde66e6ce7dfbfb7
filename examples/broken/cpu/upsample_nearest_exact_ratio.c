// kjudge-case: task=level1/upsample_nearest expect=mismatch
/* Broken: the source index from the exact ratio, floor(dst * in / out) in
 * integers, instead of PyTorch's float product dst * f32(in / out).  The two
 * agree on most sizes (every bench shape) but not on 26 -> 22, 14 -> 46 or
 * 21 -> 69 (check shapes), where this picks the next pixel. */
#include <stdint.h>

void upsample_nearest(const float *x, float *y, int64_t N, int64_t C, int64_t H, int64_t W,
		      int64_t OH, int64_t OW)
{
	for (int64_t p = 0; p < N * C; p++)
		for (int64_t r = 0; r < OH; r++) {
			int64_t sr = r * H / OH;
			const float *xr = x + (p * H + (sr < H - 1 ? sr : H - 1)) * W;

			for (int64_t c = 0; c < OW; c++) {
				int64_t sc = c * W / OW;

				y[(p * OH + r) * OW + c] = xr[sc < W - 1 ? sc : W - 1];
			}
		}
}
