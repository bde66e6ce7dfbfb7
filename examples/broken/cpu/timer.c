// kjudge-case: task=level1/relu expect=rejected
/* Broken: reads the clock (mode detection: behave differently when timed);
 * the symbol policy rejects timer functions. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
