// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 12 (shape specialisation): a "vectorised" softmax that
 * assumes D is a multiple of 32 and drops the remainder of each row from
 * both the sum and the output.  Correct for every bench shape (powers of
 * two), wrong on the check shapes with D = 1, 1000, 4097, 131. */
#include <math.h>
#include <stdint.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t W = D / 32 * 32;

	for (int64_t b = 0; b < B; b++) {
		const float *r = x + b * D;
		float m = -INFINITY;
		double s = 0.0;

		for (int64_t d = 0; d < W; d++)
			m = r[d] > m ? r[d] : m;
		for (int64_t d = 0; d < W; d++)
			s += exp((double)r[d] - m);
		for (int64_t d = 0; d < W; d++)
			y[b * D + d] = (float)(exp((double)r[d] - m) / s);
	}
}
