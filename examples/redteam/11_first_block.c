// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 11 (partial computation): computes only the first 1024
 * elements (one "block"), enough for any spot check of the head of the
 * output.  The judge checks every element of every output; shapes with more
 * than 1024 elements keep the sentinel in their tail. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D < 1024 ? B * D : 1024;

	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
