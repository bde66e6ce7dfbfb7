// kjudge-case: task=level1/gaussian_noise expect=mismatch
/* Broken: randn_like's earlier layout, two normals per Philox4x32-10 block
 * (counter i / 2, words 2 (i % 2) and 2 (i % 2) + 1, cosine only) instead of
 * four (counter i / 4, pair (i / 2) % 2, cosine for even i and sine for odd
 * i).  The values are standard normals with the right statistics and element
 * 0 agrees, but element 1 gets the cosine of the block's second pair where
 * the task wants the sine of its first, so every shape with more than one
 * element misses by ~0.1 * |z1 - z2|. */
#include <math.h>
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

void gaussian_noise(const float *x, float *y, int64_t B, int64_t N)
{
	const double two_pi = 6.283185307179586;
	int64_t n = B * N;

	for (int64_t i = 0; i < n; i += 2) {
		uint32_t w[4];

		philox((uint64_t)(i / 2), 31337, w);
		for (int64_t k = 0; k < 2 && i + k < n; k++) {
			double u1 = (double)((w[2 * k] >> 8) + 1) / 16777216.0;
			double u2 = (double)(w[2 * k + 1] >> 8) / 16777216.0;

			y[i + k] = (float)(x[i + k] + 0.1 * sqrt(-2.0 * log(u1)) * cos(two_pi * u2));
		}
	}
}
