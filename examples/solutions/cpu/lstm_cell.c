// kjudge-case: task=level3/lstm_cell expect=pass
/* One LSTM cell step, one row of the batch at a time: the four gate
 * pre-activations in double (x and h dot products against the per-gate
 * weights, plus the bias), then c' = f*c + i*g (stored as float, as the
 * task's output) and h' = o*tanh(c'). */
#include <math.h>
#include <stdint.h>

static double dot(const float *a, const float *w, int64_t n)
{
	double s = 0.0;

	for (int64_t i = 0; i < n; i++)
		s += (double)a[i] * w[i];
	return s;
}

static double sigm(double v)
{
	return 1.0 / (1.0 + exp(-v));
}

void lstm_cell(const float *x, const float *h, const float *c, const float *wi, const float *wf,
	       const float *wg, const float *wo, const float *ui, const float *uf, const float *ug,
	       const float *uo, const float *bi, const float *bf, const float *bg, const float *bo,
	       float *hn, float *cn, int64_t B, int64_t IN, int64_t H)
{
	for (int64_t b = 0; b < B; b++) {
		const float *xr = x + b * IN, *hr = h + b * H;

		for (int64_t j = 0; j < H; j++) {
			double ig = sigm(dot(xr, wi + j * IN, IN) + bi[j] + dot(hr, ui + j * H, H));
			double fg = sigm(dot(xr, wf + j * IN, IN) + bf[j] + dot(hr, uf + j * H, H));
			double gg = tanh(dot(xr, wg + j * IN, IN) + bg[j] + dot(hr, ug + j * H, H));
			double og = sigm(dot(xr, wo + j * IN, IN) + bo[j] + dot(hr, uo + j * H, H));
			float cv = (float)(fg * c[b * H + j] + ig * gg);

			cn[b * H + j] = cv;
			hn[b * H + j] = (float)(og * tanh((double)cv));
		}
	}
}
