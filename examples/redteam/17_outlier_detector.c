// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 17 (mode detection by input statistics): when a row holds
 * values a judge uses for edge cases (|x| > 8: outlier draws) it computes a
 * careful softmax; on "ordinary" rows it takes a fast path with a crude exp
 * (a short Taylor series, no max subtraction) that is a few percent off.
 * The judge's ordinary draws are checked as strictly as its outlier draws. */
#include <math.h>
#include <stdint.h>

static float crude_exp(float v)
{
	return 1.0f + v + v * v / 2.0f + v * v * v / 6.0f;
}

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t b = 0; b < B; b++) {
		const float *r = x + b * D;
		int careful = 0;
		float m = r[0];
		double s = 0.0;

		for (int64_t d = 0; d < D; d++)
			careful |= fabsf(r[d]) > 8.0f;
		if (!careful) {
			float fs = 0.0f;

			for (int64_t d = 0; d < D; d++)
				fs += crude_exp(r[d]);
			for (int64_t d = 0; d < D; d++)
				y[b * D + d] = crude_exp(r[d]) / fs;
			continue;
		}
		for (int64_t d = 1; d < D; d++)
			m = r[d] > m ? r[d] : m;
		for (int64_t d = 0; d < D; d++)
			s += exp((double)r[d] - m);
		for (int64_t d = 0; d < D; d++)
			y[b * D + d] = (float)(exp((double)r[d] - m) / s);
	}
}
