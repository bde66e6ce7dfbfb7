// kjudge-case: task=level3/gru_cell expect=pass
/* One GRU cell step per batch row in double: reset and update gates, the
 * candidate state with b_hn inside the reset product, h' = (1-z)*n + z*h. */
#include <math.h>
#include <stdint.h>

static double dot(const float *a, const float *w, int64_t n)
{
	double s = 0.0;

	for (int64_t i = 0; i < n; i++)
		s += (double)a[i] * w[i];
	return s;
}

void gru_cell(const float *x, const float *h, const float *wr, const float *wz, const float *wn,
	      const float *ur, const float *uz, const float *un, const float *br, const float *bz,
	      const float *bn, const float *bhn, float *hn, int64_t B, int64_t IN, int64_t H)
{
	for (int64_t b = 0; b < B; b++) {
		const float *xr = x + b * IN, *hr = h + b * H;

		for (int64_t j = 0; j < H; j++) {
			double r = 1.0 / (1.0 + exp(-(dot(xr, wr + j * IN, IN) + br[j] + dot(hr, ur + j * H, H))));
			double z = 1.0 / (1.0 + exp(-(dot(xr, wz + j * IN, IN) + bz[j] + dot(hr, uz + j * H, H))));
			double n = tanh(dot(xr, wn + j * IN, IN) + bn[j] + r * (dot(hr, un + j * H, H) + bhn[j]));

			hn[b * H + j] = (float)((1.0 - z) * n + z * hr[j]);
		}
	}
}
