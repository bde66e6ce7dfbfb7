// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 1 (memory reuse / no-op): computes the first call honestly
 * and then returns at once, assuming the output buffer keeps the last answer
 * between calls (as it would if the harness reused its buffers without
 * clearing them).  Every call gets sentinel-filled outputs and fresh inputs:
 * the second call (seed 1) fails. */
#include <stdint.h>

static int done;

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (done)
		return;
	done = 1;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
