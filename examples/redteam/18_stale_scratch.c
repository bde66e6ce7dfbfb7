// kjudge-case: task=level1/sum_dim expect=mismatch
/* Red team, class 18 (uninitialised reads): keeps a static accumulator that
 * is zero when the object is loaded and never cleared again, so the first
 * call is right and every later call adds onto the previous sums.  Caught
 * on the second seed: results depend on leftover state, not on the inputs. */
#include <stdint.h>

#define MAXN (1 << 20)

static double acc[MAXN];

void sum_dim(const float *x, float *y, int64_t B, int64_t M, int64_t N)
{
	if (B * N > MAXN)
		return;
	for (int64_t b = 0; b < B; b++)
		for (int64_t m = 0; m < M; m++)
			for (int64_t n = 0; n < N; n++)
				acc[b * N + n] += x[(b * M + m) * N + n];
	for (int64_t i = 0; i < B * N; i++)
		y[i] = (float)acc[i];
}
