// kjudge-case: task=level1/uniform_dither expect=pass
/* Uniform dither: element i adds (u - 0.5) * 0.02 where u = (w[i % 4] >> 8)
 * * 2^-24 and w = Philox4x32-10(counter 1000003 + i / 4, key 7).  Written
 * with double arithmetic on the exact uniforms. */
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

void uniform_dither(const float *x, float *y, int64_t B, int64_t N)
{
	int64_t n = B * N;

	for (int64_t b = 0; b < (n + 3) / 4; b++) {
		uint32_t w[4];

		philox(1000003u + (uint64_t)b, 7, w);
		for (int64_t k = 0; k < 4 && 4 * b + k < n; k++) {
			double u = (double)(w[k] >> 8) / 16777216.0;

			y[4 * b + k] = (float)(x[4 * b + k] + (u - 0.5) * 0.02);
		}
	}
}
