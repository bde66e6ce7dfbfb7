// kjudge-case: task=level1/relu expect=crash
/* Red team, class 15 (escaping the worker): writes the right answer and then
 * kills its own process with raise(SIGKILL), hoping that a harness which
 * loses its worker keeps the outputs it saw.  Signals to itself are allowed
 * (abort needs them); the judge treats any worker death during a call as a
 * crash, whatever the outputs hold. */
#include <signal.h>
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	raise(SIGKILL);
}
