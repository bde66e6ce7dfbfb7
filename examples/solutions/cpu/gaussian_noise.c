// kjudge-case: task=level1/gaussian_noise expect=pass
/* Gaussian noise with the task's seed: Philox4x32-10 block i / 4 (key 31337)
 * holds two Box-Muller pairs; pair p = (i / 2) % 2 takes the words a = w[2p],
 * b = w[2p + 1], u1 = ((a >> 8) + 1) * 2^-24, u2 = (b >> 8) * 2^-24, r =
 * sqrt(-2 ln u1), and gives element 4k + 2p the cosine r cos(2 pi u2) and
 * element 4k + 2p + 1 the sine r sin(2 pi u2), in double; y = x + 0.1 * z. */
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

	for (int64_t i = 0; i < n; i += 4) {
		uint32_t w[4];
		double z[4];

		philox((uint64_t)(i / 4), 31337, w);
		for (int p = 0; p < 2; p++) {
			double u1 = (double)((w[2 * p] >> 8) + 1) / 16777216.0;
			double u2 = (double)(w[2 * p + 1] >> 8) / 16777216.0;
			double r = sqrt(-2.0 * log(u1));

			z[2 * p] = r * cos(two_pi * u2);
			z[2 * p + 1] = r * sin(two_pi * u2);
		}
		for (int64_t k = 0; k < 4 && i + k < n; k++)
			y[i + k] = (float)(x[i + k] + 0.1 * z[k]);
	}
}
