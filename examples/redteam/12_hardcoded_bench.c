// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 12 (shape specialisation): hard-codes the row length of
 * the CPU bench shape (D = 4096) and processes whole rows of that size,
 * ignoring the D it is given, with no tail handling.  Right on the bench
 * shape; the odd check shapes (D = 1, 1000, 4097, 31) fail. */
#include <stdint.h>

#define BENCH_D 4096

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t rows = B * D / BENCH_D;

	for (int64_t r = 0; r < rows; r++)
		for (int64_t d = 0; d < BENCH_D; d++) {
			float v = x[r * BENCH_D + d];

			y[r * BENCH_D + d] = v > 0.0f ? v : 0.0f;
		}
}
