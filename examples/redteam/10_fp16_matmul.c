// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 10 (precision downgrade to fp16): rounds both operands to
 * IEEE half before multiplying (what a tensor-core shortcut does), summing
 * in float.  The task's atol (5e-3) is widened for honest f32 summation
 * error only; half-precision operands err by ~1e-2 and more on every shape
 * past N=17, and outlier draws (x50) exceed half's precision further. */
#include <stdint.h>

#include "kjudge_cpu.h"

static float h(float v)
{
	return kj_half_to_float(kj_float_to_half(v));
}

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N; j++) {
			float s = 0.0f;

			for (int64_t k = 0; k < N; k++)
				s += h(a[i * N + k]) * h(b[k * N + j]);
			c[i * N + j] = s;
		}
}
