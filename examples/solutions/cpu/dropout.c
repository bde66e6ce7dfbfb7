// kjudge-case: task=level1/dropout expect=pass
/* Dropout with the task's fixed seed: one Philox4x32-10 block per four
 * consecutive elements (row-major flat index i: counter i / 4, word i % 4),
 * uniform (w >> 8) * 2^-24, dropped below 0.1f, kept ones scaled by 1/0.9. */
#include <stdint.h>

static void philox(uint64_t ctr, uint64_t seed, uint32_t w[4])
{
	uint32_t c0 = (uint32_t)ctr, c1 = (uint32_t)(ctr >> 32), c2 = 0, c3 = 0;
	uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);

	for (int r = 0; r < 10; r++) {
		uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;

		c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
		c1 = (uint32_t)p1;
		c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c3 = (uint32_t)p0;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	w[0] = c0;
	w[1] = c1;
	w[2] = c2;
	w[3] = c3;
}

void dropout(const float *x, float *y, int64_t B, int64_t N)
{
	int64_t n = B * N;

	for (int64_t i = 0; i < n; i += 4) {
		uint32_t w[4];

		philox((uint64_t)(i / 4), 1234, w);
		for (int64_t k = 0; k < 4 && i + k < n; k++) {
			float u = (float)(w[k] >> 8) * (1.0f / 16777216.0f);

			y[i + k] = u < 0.1f ? 0.0f : x[i + k] / 0.9f;
		}
	}
}
