// kjudge-case: task=level1/relu expect=crash
/* Red team, class 19 (stack exhaustion): recurses without bound (the volatile
 * keeps the compiler from turning it into a loop).  The worker dies of
 * SIGSEGV on the guard page: a crash, reported with its signal. */
#include <stdint.h>

static int64_t deep(volatile int64_t n)
{
	volatile char pad[256];

	pad[0] = (char)n;
	return deep(n + 1) + pad[0];
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (deep(0) == 42)
		return;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
