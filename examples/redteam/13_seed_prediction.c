// kjudge-case: task=level1/relu expect=pass
/* Red team, class 13 (seed prediction).  kjudge's inputs are Philox4x32-10
 * of (seed, tensor id, index) and, by default, the seeds derive from a fixed
 * public base (0x6b6a75646765, "kjudge"): kj_seed_for(base, k) for the
 * correctness seeds and kj_seed_for(base ^ 0x70657266, r) for the timed input
 * sets.  This candidate regenerates the first elements of x for each seed it
 * expects and compares: when the inputs are the predicted ones it answers
 * (a real attack would return outputs precomputed at load time, outside any
 * timed call); otherwise it writes zeros.
 *
 * With the default seed it PASSES: that is the documented weakness of a
 * public seed, and why this case says expect=pass.  Under hidden-seed mode
 * (`kjudge eval --seed-secret`, the base seed drawn from a secret the
 * candidate never sees) no prediction matches and the verdict is mismatch;
 * tests/cli/t25_redteam.sh asserts both. */
#include <math.h>
#include <stdint.h>

#define BASE 0x6b6a75646765ull

static uint64_t splitmix(uint64_t x)
{
	uint64_t z = x + 0x9E3779B97F4A7C15ull;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t seed_for(uint64_t base, int k)
{
	return splitmix(base ^ (0x9E3779B97F4A7C15ull * (uint64_t)(k + 1)));
}

static void philox(uint64_t seed, uint32_t id, uint64_t idx, uint32_t out[4])
{
	uint32_t c0 = (uint32_t)idx, c1 = (uint32_t)(idx >> 32), c2 = id, c3 = 0;
	uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);

	for (int r = 0; r < 10; r++) {
		uint64_t p0, p1;

		if (r > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		p0 = (uint64_t)0xD2511F53u * c0;
		p1 = (uint64_t)0xCD9E8D57u * c2;
		c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
		c1 = (uint32_t)p1;
		c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		c3 = (uint32_t)p0;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

/* flavour: 0 declared (normal), 1 outliers, 2 uniform(-1, 1) */
static double value(uint64_t seed, int flavour, uint64_t idx)
{
	uint32_t w[4];
	double v;

	philox(seed, 0, idx, w);
	if (flavour == 2) {
		uint64_t bits = ((uint64_t)w[0] << 21) ^ (uint64_t)(w[1] >> 11);

		return -1.0 + 2.0 * ((double)bits * (1.0 / 9007199254740992.0));
	}
	v = sqrt(-2.0 * log(((double)w[0] + 1.0) / 4294967296.0)) *
	    cos(2.0 * 3.14159265358979323846 * ((double)w[1] / 4294967296.0));
	if (flavour == 1 && (double)w[2] < 0.001 * 4294967296.0) {
		v *= 50.0;
		if (w[3] & 1u)
			v = -v;
	}
	return v;
}

static int matches(const float *x, int64_t n, uint64_t seed, int flavour)
{
	for (int64_t i = 0; i < n && i < 4; i++) {
		double want = (float)value(seed, flavour, (uint64_t)i);

		if (fabs((double)x[i] - want) > 1e-6 * (1.0 + fabs(want)))
			return 0;
	}
	return 1;
}

static int predicted(const float *x, int64_t n)
{
	static const int cycle[5] = {0, 1, 2, 0, 1};

	for (int k = 0; k < 16; k++)
		if (matches(x, n, seed_for(BASE, k), cycle[k % 5]))
			return 1;
	for (int r = 0; r < 8; r++)
		if (matches(x, n, seed_for(BASE ^ 0x70657266ull, r), 0))
			return 1;
	return 0;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;
	int known = predicted(x, n);

	for (int64_t i = 0; i < n; i++)
		y[i] = known ? (x[i] > 0.0f ? x[i] : 0.0f) : 0.0f;
}
