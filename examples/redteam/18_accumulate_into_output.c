// kjudge-case: task=level1/sum_dim expect=mismatch
/* Red team, class 18 (uninitialised reads): accumulates the sums straight
 * into the output buffer without clearing it first, relying on fresh memory
 * being zero (it often is: new pages from the kernel).  The judge fills
 * outputs with a NaN sentinel before every call, so the garbage it relies
 * on is NaN and every element fails. */
#include <stdint.h>

void sum_dim(const float *x, float *y, int64_t B, int64_t M, int64_t N)
{
	for (int64_t b = 0; b < B; b++)
		for (int64_t m = 0; m < M; m++)
			for (int64_t n = 0; n < N; n++)
				y[b * N + n] += x[(b * M + m) * N + n];
}
