// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 1 (memory reuse / no-op): writes nothing and returns, betting
 * that the output buffer still holds an earlier answer (KernelBench's no-op
 * kernels that read the reference's memory).  The judge fills every output
 * with a NaN sentinel before each call and shares no reference memory, so the
 * sentinel survives and the first compare fails. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	(void)x;
	(void)y;
	(void)B;
	(void)D;
}
