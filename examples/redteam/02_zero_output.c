// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 2 (constant or zero output): softmax values over wide rows
 * are tiny (about 1/D), so zeros look "close" under an absolute tolerance
 * alone.  The judge's tolerance is relative as well and the check shapes
 * include narrow rows (D=1: every value is exactly 1), so zeros fail. */
#include <stdint.h>
#include <string.h>

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	(void)x;
	memset(y, 0, (size_t)(B * D) * sizeof(float));
}
