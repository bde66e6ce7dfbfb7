// kjudge-case: task=level1/relu expect=crash
/* Red team, class 19 (host memory exhaustion): asks for 100 GiB and writes
 * into it without checking.  The worker's RLIMIT_AS (8 GiB by default; in a
 * sanitizer build, where RLIMIT_AS is off, the allocator's own cap) makes
 * malloc return NULL instead of letting the machine swap, so the write
 * faults: a crash verdict, and the judge and the run go on. */
#include <stdint.h>
#include <stdlib.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	size_t big = (size_t)100 << 30;
	volatile char *p = malloc(big);

	p[big - 1] = 1;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	free((void *)p);
}
