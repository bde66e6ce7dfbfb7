// kjudge-case: task=level1/relu expect=pass
/* Red team, class 28 (skipping unchecked timed calls), CPU: honest for
 * exactly the calls the correctness stage makes on level1/relu (4 check
 * shapes and the CPU bench shape, 5 seeds each, then the 2 determinism
 * reruns: 27 calls), then does no work on every second call, betting that
 * the judge verifies only some of the timed calls (as the CUDA track did
 * on shapes whose fp64 reference is costly) and times them all: half the
 * work, twice the speed.  The header is the verdict under --no-perf (what
 * t20_cases.sh runs): the timed calls never happen, pass.  With perf on,
 * every timed call is checked at least cheaply, and a skipped call keeps
 * its NaN sentinels: mismatch (t25_redteam.sh runs it with perf). */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int calls;

	if (++calls > 27 && calls % 2 == 0)
		return;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
