// kjudge-case: task=level1/relu expect=rejected
/* Broken: forks a child process (escape attempt) before computing ReLU; the
 * symbol policy rejects fork.  Nothing else here is disallowed, so the verdict
 * can only come from fork; were it ever run, the child dies at once (abort). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (fork() == 0)
		abort();
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
