// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 10 (precision downgrade to tf32): rounds both operands to
 * TF32 (10 explicit mantissa bits, round to nearest even, as cvt.rna.tf32
 * and the tensor cores do) and accumulates in float.  TF32 keeps f32's range,
 * so nothing overflows; the relative error per product is ~2^-11 and the
 * accumulated error on N >= 67 exceeds the task's atol (5e-3) + rtol. */
#include <stdint.h>
#include <string.h>

static float tf32(float v)
{
	uint32_t u;

	memcpy(&u, &v, 4);
	u = (u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu;
	memcpy(&v, &u, 4);
	return v;
}

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N; j++) {
			float s = 0.0f;

			for (int64_t k = 0; k < N; k++)
				s += tf32(a[i * N + k]) * tf32(b[k * N + j]);
			c[i * N + j] = s;
		}
}
