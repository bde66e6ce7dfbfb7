// kjudge-case: task=level1/relu expect=timeout
/* Red team, class 19 (host hang without burning CPU): sleeps instead of
 * spinning, so a CPU-time limit alone would never fire.  The judge's
 * wall-clock watchdog kills the worker's process group: timeout. */
#include <stdint.h>
#include <unistd.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (;;)
		sleep(1000);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
