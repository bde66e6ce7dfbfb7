// kjudge-case: task=level1/sum_dim expect=mismatch
/* Red team, class 2 (constant output): the sum of M unit normals has mean
 * zero, so zeros are the "expected" answer and within atol on average for
 * tiny M.  The sums have standard deviation sqrt(M) >> atol on every shape
 * with M > 1 (and exactly x on M = 1), so zeros fail. */
#include <stdint.h>
#include <string.h>

void sum_dim(const float *x, float *y, int64_t B, int64_t M, int64_t N)
{
	(void)x;
	(void)M;
	memset(y, 0, (size_t)(B * N) * sizeof(float));
}
