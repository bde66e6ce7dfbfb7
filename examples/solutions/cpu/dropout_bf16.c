// kjudge-case: task=level1/dropout_bf16 expect=pass
/* bf16 dropout with the task's seed: the f32 uniform of element i is
 * (w[i % 4] >> 8) * 2^-24 with w = Philox4x32-10(counter i / 4, key seed);
 * dropped below 0.1f, kept ones are x / 0.9 in float rounded once to bf16. */
#include <stdint.h>

#include "kjudge_cpu.h"

static void philox(uint64_t ctr, uint64_t seed, uint32_t w[4])
{
	uint32_t c[4] = {(uint32_t)ctr, (uint32_t)(ctr >> 32), 0, 0};
	uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);

	for (int r = 0; r < 10; r++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;

		c[1] = (uint32_t)p1;
		c[3] = (uint32_t)p0;
		c[0] = n0;
		c[2] = n2;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	for (int k = 0; k < 4; k++)
		w[k] = c[k];
}

void dropout_bf16(const kj_bfloat16 *x, kj_bfloat16 *y, int64_t B, int64_t N)
{
	int64_t n = B * N;
	uint32_t w[4] = {0};

	for (int64_t i = 0; i < n; i++) {
		if (i % 4 == 0)
			philox((uint64_t)(i / 4), 20240607, w);
		if ((float)(w[i % 4] >> 8) * (1.0f / 16777216.0f) < 0.1f)
			y[i] = kj_float_to_bfloat16(0.0f);
		else
			y[i] = kj_float_to_bfloat16(kj_bfloat16_to_float(x[i]) / 0.9f);
	}
}
