// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 15 (escaping the worker by signalling the judge): kills the
 * judge (its parent) so that no verdict is ever written, or stops it.  The
 * symbol policy rejects kill; the seccomp filter refuses kill, tgkill and
 * rt_sigqueueinfo to any process but the worker itself. */
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	kill(getppid(), SIGKILL);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
