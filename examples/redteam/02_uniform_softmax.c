// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 2 (constant output): writes 1/D everywhere, the softmax of
 * a constant row and the right row sum, without reading x.  Exact on the
 * D=1 check shape; every other shape has signal far above the tolerance. */
#include <stdint.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	(void)x;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = 1.0f / (float)D;
}
