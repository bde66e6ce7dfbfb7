// kjudge-case: task=level1/dropout expect=mismatch
/* Broken: a plausible but wrong counter layout, one Philox4x32-10 block per
 * element (counter i, word 0) instead of one block per four elements
 * (counter i / 4, word i % 4).  The mask has the right density (about 10%
 * dropped) but drops other elements: the first element agrees, so only
 * shapes with more than one element expose it. */
#include <stdint.h>

static uint32_t philox_w0(uint64_t ctr, uint64_t seed)
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
	return c0;
}

void dropout(const float *x, float *y, int64_t B, int64_t N)
{
	int64_t n = B * N;

	for (int64_t i = 0; i < n; i++) {
		float u = (float)(philox_w0((uint64_t)i, 1234) >> 8) * (1.0f / 16777216.0f);

		y[i] = u < 0.1f ? 0.0f : x[i] / 0.9f;
	}
}
