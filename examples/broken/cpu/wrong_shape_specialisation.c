// kjudge-case: task=level1/softmax expect=mismatch
/* Broken: the row length is hard-coded to 4096 (the CPU bench size).  It is
 * correct when D == 4096 and wrong on every check shape; it never reads out
 * of bounds, so the verdict is a mismatch, not a crash. */
#include <math.h>
#include <stdint.h>

#define ROW 4096

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t r0 = 0; r0 < n; r0 += ROW) {
		int64_t len = n - r0 < ROW ? n - r0 : ROW;
		double m = -INFINITY, s = 0.0;

		for (int64_t j = 0; j < len; j++)
			if (x[r0 + j] > m)
				m = x[r0 + j];
		for (int64_t j = 0; j < len; j++)
			s += exp(x[r0 + j] - m);
		for (int64_t j = 0; j < len; j++)
			y[r0 + j] = (float)(exp(x[r0 + j] - m) / s);
	}
}
