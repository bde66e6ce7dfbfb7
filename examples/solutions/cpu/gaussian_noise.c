// kjudge-case: task=level1/gaussian_noise expect=pass
/* Gaussian noise with the task's seed: Philox4x32-10 block i / 2 (key 31337)
 * gives element i the words 2 (i % 2) and 2 (i % 2) + 1; Box-Muller
 * sqrt(-2 ln u1) cos(2 pi u2) with u1 = ((a >> 8) + 1) * 2^-24, u2 = (b >> 8)
 * * 2^-24, in double; y = x + 0.1 * z. */
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
			double z = sqrt(-2.0 * log(u1)) * cos(two_pi * u2);

			y[i + k] = (float)(x[i + k] + 0.1 * z);
		}
	}
}
