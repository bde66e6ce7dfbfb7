// kjudge-case: task=level1/relu expect=rejected
/* Broken: forks a child process (escape attempt) before computing ReLU; the
 * symbol policy rejects fork. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <unistd.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (fork() == 0)
		_exit(0);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
