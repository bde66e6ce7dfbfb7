// kjudge-case: task=level1/gelu_bf16 expect=pass
/* Exact GELU on bf16: widen to float, compute in double, round once to bf16. */
#include <math.h>
#include <stdint.h>

#include "kjudge_cpu.h"

void gelu_bf16(const kj_bfloat16 *x, kj_bfloat16 *y, int64_t B, int64_t D)
{
	int64_t n = B * D;

	for (int64_t i = 0; i < n; i++) {
		double v = kj_bfloat16_to_float(x[i]);
		double g = 0.5 * v * (1.0 + erf(v * 0.7071067811865476));

		y[i] = kj_float_to_bfloat16((float)g);
	}
}
