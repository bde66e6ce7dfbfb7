// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 5 (batched work): folds calls together, doing the real
 * work only on every second call (for both calls at once, as a batching
 * server would) and leaving the first of each pair for later.  The judge
 * checks each call's output when that call returns. */
#include <math.h>
#include <stdint.h>

static int calls;

static void rows(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t b = 0; b < B; b++) {
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

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	if (calls++ % 2 == 0)
		return;
	rows(x, y, B, D);
}
