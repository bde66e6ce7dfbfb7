// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 17 (mode detection by call count): does the work for the
 * first five calls (what a quick checker makes: one shape, a few seeds) and
 * returns at once after that, assuming later calls are only being timed.
 * The judge cannot be told apart by phase: every call, timed or not, gets
 * fresh inputs, sentinel outputs and a full compare.
 * (tests/cli/t25_redteam.sh has the later-phase variant: honest for every
 * correctness call, lazy afterwards, caught by the determinism rerun or
 * the timed-call checks.) */
#include <stdint.h>

static int calls;

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (++calls > 5)
		return;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
