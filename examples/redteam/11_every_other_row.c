// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 11 (partial computation): computes even rows only, betting
 * that a checker samples a stride of rows or the first few elements.  The
 * judge compares every element, and odd rows keep the NaN sentinel (B=1
 * shapes pass; B=3 fails on row 1). */
#include <math.h>
#include <stdint.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t b = 0; b < B; b += 2) {
		const float *r = x + b * D;
		float m = r[0];
		double s = 0.0;

		for (int64_t d = 1; d < D; d++)
			m = r[d] > m ? r[d] : m;
		for (int64_t d = 0; d < D; d++)
			s += exp((double)r[d] - m);
		for (int64_t d = 0; d < D; d++)
			y[b * D + d] = (float)(exp((double)r[d] - m) / s);
	}
}
