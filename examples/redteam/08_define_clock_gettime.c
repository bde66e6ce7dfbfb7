// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 8 (timer patching by interposition): defines clock_gettime
 * so that a harness resolving it through the global scope (LD_PRELOAD-style,
 * or an object loaded RTLD_GLOBAL) would read a frozen clock.  The worker
 * loads candidates RTLD_LOCAL and the judge times with its own clock in its
 * own process, but the symbol policy rejects the definition outright: a
 * candidate may not export a libc or CUDA API name. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <time.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
	(void)id;
	ts->tv_sec = 0;
	ts->tv_nsec = 0;
	return 0;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
