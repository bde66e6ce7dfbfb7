// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 5 (deferred work): returns at once and does each call's
 * work at the start of the next call (when the harness "is not looking"),
 * writing the previous output buffer.  On the CPU there is nothing to run the
 * work in between without a thread (rejected, see 07_*), and the judge
 * reads every output as soon as the call returns: the first call's output
 * is still the sentinel. */
#include <stdint.h>

static const float *pend_x;
static float *pend_y;
static int64_t pend_n;

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (pend_y)
		for (int64_t i = 0; i < pend_n; i++)
			pend_y[i] = pend_x[i] > 0.0f ? pend_x[i] : 0.0f;
	pend_x = x;
	pend_y = y;
	pend_n = B * D;
}
