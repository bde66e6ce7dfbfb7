/* sum_tight's rows summed in f32 in the eager baseline's order, with that
 * order's error against an fp64 sum made 1.5 times larger: off the declared
 * tolerance, within the error budget (tests/cli/t19_budget.sh). */
#include <stdint.h>

void sum_tight(const float *x, float *y, int64_t B, int64_t N)
{
	for (int64_t b = 0; b < B; b++) {
		float s = 0;
		double d = 0;
		for (int64_t j = 0; j < N; j++) {
			s += x[b * N + j];
			d += x[b * N + j];
		}
		y[b] = (float)((double)s + 0.5 * ((double)s - d));
	}
}
