// kjudge-case: task=level1/matmul_square expect=mismatch
/* Broken: rounds both operands to bf16 before multiplying (a precision
 * downgrade, as a tensor-core shortcut would); errors of ~1e-2 relative fail
 * the f32 task's tolerance. */
#include <stdint.h>

#include "kjudge_cpu.h"

static float to_bf16(float v)
{
	return kj_bfloat16_to_float(kj_float_to_bfloat16(v));
}

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N; j++) {
			float s = 0.0f;

			for (int64_t k = 0; k < N; k++)
				s += to_bf16(a[i * N + k]) * to_bf16(b[k * N + j]);
			c[i * N + j] = s;
		}
}
