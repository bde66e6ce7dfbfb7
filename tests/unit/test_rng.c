/* Counter-based inputs: Philox known answers, the log/cos polynomials against
 * libm, the documented recipes bit for bit, distribution moments over fixed
 * streams (deterministic: the bounds are loose, the draws never change),
 * outliers and the seed schedule. */
#include "kjudge/rng.h"

#include "tap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_STAT 1000000

static const long double two_pi_l = 6.283185307179586476925286766559005768L;

static void test_philox(void)
{
	static const struct {
		uint32_t ctr[4], key[2], out[4];
	} kat[] = {
		{ { 0, 0, 0, 0 }, { 0, 0 }, { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 } },
		{ { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff }, { 0xffffffff, 0xffffffff },
		  { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd } },
		{ { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 }, { 0xa4093822, 0x299f31d0 },
		  { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 } },
	};
	size_t i;
	for (i = 0; i < sizeof(kat) / sizeof(kat[0]); i++) {
		uint32_t out[4];
		kj_philox4x32_10(kat[i].ctr, kat[i].key, out);
		ok(memcmp(out, kat[i].out, sizeof(out)) == 0, "Philox4x32-10 known answer %zu", i);
		if (memcmp(out, kat[i].out, sizeof(out)))
			printf("#   got %08x %08x %08x %08x\n", out[0], out[1], out[2], out[3]);
	}
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s;
}

static double ulp_diff(double a, double b)
{
	int64_t ia, ib;
	memcpy(&ia, &a, 8);
	memcpy(&ib, &b, 8);
	return (double)(ia > ib ? ia - ib : ib - ia);
}

/* The reference is libm's long double log (64-bit mantissa); glibc's double
 * log is itself off by one ulp in about 1e-3 of cases, so against it we ask
 * for one ulp at most. */
static void test_log(void)
{
	uint64_t s = 7;
	double max_rel = 0, max_ulp = 0;
	int i;

	for (i = 0; i < 100000; i++) {
		uint64_t r = lcg(&s);
		double x, got;
		long double want;
		switch (i % 4) {
		case 0: /* the normal transform's u1 */
		case 1:
			x = ((double)(uint32_t)(r >> 32) + 1.0) * 0x1p-32;
			break;
		case 2:
			x = ((double)(r >> 11) + 1.0) * 0x1p-53;
			break;
		default: /* near 1, where log is small and cancellation bites */
			x = 1.0 - (double)((r >> 40) + 1) * 0x1p-53;
			break;
		}
		got = kj_rng_log(x);
		want = logl((long double)x);
		if (fabsl((got - want) / want) > max_rel)
			max_rel = (double)fabsl((got - want) / want);
		if (ulp_diff(got, log(x)) > max_ulp)
			max_ulp = ulp_diff(got, log(x));
	}
	ok(max_rel <= 2e-16, "log: max relative error %.3g <= 2e-16 against logl over 1e5 points", max_rel);
	ok(max_ulp <= 1, "log: within one ulp of libm's log (max %g)", max_ulp);

	ok(kj_rng_log(1.0) == 0.0, "log(1) = 0 exactly");
	is_near(kj_rng_log(0.5), -0.69314718055994530942, 1e-17, "log(1/2)");
	ok(kj_rng_log(0.5) == -0x1.62e42fefa39efp-1, "log(1/2) is -ln 2 correctly rounded");
	ok(kj_rng_log(0x1p-32) == (double)(-32.0L * 0.693147180559945309417232121458176568L),
	   "log(2^-32) = -32 ln 2 correctly rounded");
	is_near(kj_rng_log(0x1p-1074), -744.44007192138126231, 1e-16, "log of the smallest subnormal");
	is_near(kj_rng_log(10.0), 2.3025850929940456840, 1e-16, "log(10) (outside the domain used)");
	ok(isinf(kj_rng_log(0.0)) && kj_rng_log(0.0) < 0, "log(0) = -inf");
	ok(isnan(kj_rng_log(-1.0)), "log(-1) is NaN");
	ok(isnan(kj_rng_log(NAN)), "log(NaN) is NaN");
}

static void test_cos2pi(void)
{
	uint64_t s = 11;
	double max_l = 0, max_d = 0;
	int i;

	for (i = 0; i < 100000; i++) {
		double u = (i % 2) ? (double)(lcg(&s) >> 11) * 0x1p-53 : (double)(uint32_t)(lcg(&s) >> 32) * 0x1p-32;
		double got = kj_rng_cos2pi(u);
		double el = (double)fabsl(got - cosl(two_pi_l * u));
		double ed = fabs(got - cos(2.0 * M_PI * u));
		if (el > max_l)
			max_l = el;
		if (ed > max_d)
			max_d = ed;
	}
	ok(max_l <= 1e-15, "cos2pi: max abs error %.3g <= 1e-15 against cosl over 1e5 points", max_l);
	ok(max_d <= 1e-15, "cos2pi: max abs difference %.3g <= 1e-15 from cos(2*M_PI*u)", max_d);
	ok(kj_rng_cos2pi(0.0) == 1.0, "cos2pi(0) = 1");
	ok(kj_rng_cos2pi(0.5) == -1.0, "cos2pi(1/2) = -1");
	ok(kj_rng_cos2pi(0.25) == 0.0 && kj_rng_cos2pi(0.75) == 0.0, "cos2pi(1/4) = cos2pi(3/4) = 0");
	is_near(kj_rng_cos2pi(0.125), 0.70710678118654752440, 1e-16, "cos2pi(1/8)");
	is_near(kj_rng_cos2pi(1.0 / 3.0), -0.5, 1e-15, "cos2pi(1/3)");
	is_near(kj_rng_cos2pi(1.25), 0.0, 1e-16, "cos2pi reduces u >= 1");
}

static void block(uint64_t seed, uint32_t tid, uint64_t idx, uint32_t w[4])
{
	uint32_t ctr[4] = { (uint32_t)idx, (uint32_t)(idx >> 32), tid, 0 };
	uint32_t key[2] = { (uint32_t)seed, (uint32_t)(seed >> 32) };
	kj_philox4x32_10(ctr, key, w);
}

static int same(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* The documented recipes, rebuilt from the Philox words. */
static void test_recipes(void)
{
	kj_dist nd = { KJ_DIST_NORMAL, 0.5, 2.0 }, ud = { KJ_DIST_UNIFORM, -3.0, 5.0 };
	kj_dist rd = { KJ_DIST_RANDINT, -10.0, 1000.0 }, bigd = { KJ_DIST_RANDINT, 0.0, 1e15 };
	kj_dist kd = { KJ_DIST_KAIMING, 0.125, 0.0 };
	kj_outliers o = { 0.25, 50.0 };
	uint64_t seeds[3] = { 0, 0x0123456789abcdefull, UINT64_MAX };
	int bad_n = 0, bad_u = 0, bad_r = 0, bad_big = 0, bad_k = 0, bad_o = 0, i;
	uint32_t w[4];
	double v;

	for (i = 0; i < 3000; i++) {
		uint64_t seed = seeds[i % 3], idx = (uint64_t)i * 0x100000001ull;
		uint32_t tid = (uint32_t)i * 7u;
		double u1, u2, u01, want;
		uint64_t x53;
		block(seed, tid, idx, w);
		u1 = ((double)w[0] + 1.0) * 0x1p-32;
		u2 = (double)w[1] * 0x1p-32;
		want = 0.5 + 2.0 * (sqrt(-2.0 * kj_rng_log(u1)) * kj_rng_cos2pi(u2));
		if (!same(kj_gen_value(&nd, NULL, seed, tid, idx), want))
			bad_n++;
		x53 = ((uint64_t)w[0] << 21) | (w[1] >> 11);
		u01 = (double)x53 * 0x1p-53;
		if (!same(kj_gen_value(&ud, NULL, seed, tid, idx), -3.0 + 8.0 * u01))
			bad_u++;
		if (!same(kj_gen_value(&kd, NULL, seed, tid, idx), -0.125 + 0.25 * u01))
			bad_k++;
		if (kj_gen_value(&rd, NULL, seed, tid, idx) != -10.0 + (double)(((uint64_t)w[0] * 1010u) >> 32))
			bad_r++;
		{
			uint64_t x64 = ((uint64_t)w[0] << 32) | w[1];
			unsigned __int128 p = (unsigned __int128)x64 * 1000000000000000ull;
			if (kj_gen_value(&bigd, NULL, seed, tid, idx) != (double)(uint64_t)(p >> 64))
				bad_big++;
		}
		v = kj_gen_value(&ud, &o, seed, tid, idx);
		want = -3.0 + 8.0 * u01;
		if ((double)w[2] < 0.25 * 4294967296.0)
			want = (w[3] & 1) ? -(want * 50.0) : want * 50.0;
		if (!same(v, want))
			bad_o++;
	}
	is_int(bad_n, 0, "normal = a + b * (sqrt(-2 log((w0+1)/2^32)) * cos2pi(w1/2^32))");
	is_int(bad_u, 0, "uniform = a + (b-a) * (((w0 << 21) | (w1 >> 11)) / 2^53)");
	is_int(bad_k, 0, "kaiming = uniform(-a, a)");
	is_int(bad_r, 0, "randint = a + ((w0 * (b-a)) >> 32) for a small range");
	is_int(bad_big, 0, "randint = a + high64(((w0 << 32) | w1) * (b-a)) for a range over 2^32");
	is_int(bad_o, 0, "outlier when w2 < prob * 2^32: times scale, sign flipped when w3 is odd");

	/* The first Philox known answer is element 0 of tensor 0 under seed 0. */
	{
		kj_dist std = { KJ_DIST_NORMAL, 0.0, 1.0 };
		long double u1 = (0x6627e8d5 + 1.0L) / 4294967296.0L, u2 = 0xe169c58d / 4294967296.0L;
		long double want = sqrtl(-2.0L * logl(u1)) * cosl(two_pi_l * u2);
		is_near(kj_gen_value(&std, NULL, 0, 0, 0), (double)want, 1e-15,
			"normal element 0 of tensor 0, seed 0, from the Philox known answer");
	}
}

struct moments {
	double mean, var, kurt, min, max;
};

static struct moments moments_of(const kj_dist *d, const kj_outliers *o, uint64_t seed, uint32_t tid)
{
	struct moments m = { 0, 0, 0, INFINITY, -INFINITY };
	double s1 = 0, s2 = 0, s4 = 0;
	int i;
	for (i = 0; i < N_STAT; i++) {
		double v = kj_gen_value(d, o, seed, tid, (uint64_t)i);
		s1 += v;
		if (v < m.min)
			m.min = v;
		if (v > m.max)
			m.max = v;
	}
	m.mean = s1 / N_STAT;
	for (i = 0; i < N_STAT; i++) {
		double c = kj_gen_value(d, o, seed, tid, (uint64_t)i) - m.mean;
		s2 += c * c;
		s4 += c * c * c * c;
	}
	m.var = s2 / N_STAT;
	m.kurt = (s4 / N_STAT) / (m.var * m.var);
	return m;
}

static void test_distributions(void)
{
	kj_dist ud = { KJ_DIST_UNIFORM, -1.0, 1.0 }, nd = { KJ_DIST_NORMAL, 0.0, 1.0 };
	kj_dist nd2 = { KJ_DIST_NORMAL, 2.0, 3.0 }, kd = { KJ_DIST_KAIMING, 0.1, 0.0 };
	kj_dist rd = { KJ_DIST_RANDINT, -3.0, 4.0 }, big = { KJ_DIST_RANDINT, 0.0, 1e12 };
	kj_dist one = { KJ_DIST_ONES, 0, 0 }, zero = { KJ_DIST_ZEROS, 0, 0 };
	struct moments m;
	long counts[7] = { 0 }, in1 = 0, bad = 0;
	double bigsum = 0;
	int i;

	m = moments_of(&ud, NULL, 1, 0);
	ok(fabs(m.mean) < 0.005, "uniform(-1,1): mean %.5f within 0.005 of 0", m.mean);
	ok(fabs(m.var - 1.0 / 3.0) < 0.005, "uniform(-1,1): variance %.5f within 0.005 of 1/3", m.var);
	ok(m.min >= -1.0 && m.max < 1.0 && m.min < -0.9999 && m.max > 0.9999,
	   "uniform(-1,1): range [%.6f, %.6f] inside [-1, 1) and filling it", m.min, m.max);

	m = moments_of(&nd, NULL, 2, 0);
	ok(fabs(m.mean) < 0.005, "normal(0,1): mean %.5f within 0.005 of 0", m.mean);
	ok(fabs(sqrt(m.var) - 1.0) < 0.005, "normal(0,1): std %.5f within 0.005 of 1", sqrt(m.var));
	ok(fabs(m.kurt - 3.0) < 0.05, "normal(0,1): kurtosis %.4f within 0.05 of 3", m.kurt);
	ok(m.max < 6.67 && m.min > -6.67 && m.max > 4.0 && m.min < -4.0,
	   "normal(0,1): tails reach past 4 and stop at sqrt(2 * 32 ln 2) = 6.66 (%.3f, %.3f)", m.min, m.max);
	for (i = 0; i < N_STAT; i++)
		in1 += fabs(kj_gen_value(&nd, NULL, 2, 0, (uint64_t)i)) < 1.0;
	ok(fabs((double)in1 / N_STAT - 0.682689) < 0.003, "normal(0,1): %.4f within one sigma (0.6827)",
	   (double)in1 / N_STAT);

	m = moments_of(&nd2, NULL, 3, 5);
	ok(fabs(m.mean - 2.0) < 0.015 && fabs(sqrt(m.var) - 3.0) < 0.015,
	   "normal(2,3): mean %.4f, std %.4f", m.mean, sqrt(m.var));

	m = moments_of(&kd, NULL, 4, 1);
	ok(m.min >= -0.1 && m.max < 0.1 && fabs(m.mean) < 0.0005 && fabs(m.var - 0.01 / 3.0) < 0.0001,
	   "kaiming a=0.1: in [-0.1, 0.1), mean %.6f, variance %.6f (1/300)", m.mean, m.var);

	for (i = 0; i < N_STAT; i++) {
		double v = kj_gen_value(&rd, NULL, 5, 2, (uint64_t)i);
		if (v != floor(v) || v < -3 || v >= 4)
			bad++;
		else
			counts[(int)v + 3]++;
	}
	is_int(bad, 0, "randint(-3,4): every value an integer in [-3, 4)");
	for (i = 0; i < 7; i++)
		ok(fabs((double)counts[i] / N_STAT - 1.0 / 7.0) < 0.003, "randint(-3,4): value %d drawn %ld times",
		   i - 3, counts[i]);
	bad = 0;
	for (i = 0; i < N_STAT; i++) {
		double v = kj_gen_value(&big, NULL, 6, 2, (uint64_t)i);
		if (v != floor(v) || v < 0 || v >= 1e12)
			bad++;
		bigsum += v;
	}
	is_int(bad, 0, "randint(0,1e12): integers in range");
	ok(fabs(bigsum / N_STAT / 5e11 - 1.0) < 0.01, "randint(0,1e12): mean %.4g near 5e11", bigsum / N_STAT);
	{
		kj_dist empty = { KJ_DIST_RANDINT, 5.0, 5.0 };
		is_near(kj_gen_value(&empty, NULL, 1, 1, 1), 5.0, 0, "randint(5,5) gives a");
	}
	ok(kj_gen_value(&one, NULL, 9, 9, 9) == 1.0 && kj_gen_value(&zero, NULL, 9, 9, 9) == 0.0,
	   "ones and zeros");
}

static void test_outliers(void)
{
	kj_dist nd = { KJ_DIST_NORMAL, 0.0, 1.0 }, rd = { KJ_DIST_RANDINT, 0.0, 100.0 };
	kj_dist one = { KJ_DIST_ONES, 0, 0 };
	kj_outliers o = { 0.001, 50.0 }, none = { 0.0, 50.0 };
	long n_out = 0, n_neg = 0, bad = 0, changed = 0;
	int i;

	for (i = 0; i < N_STAT; i++) {
		double base = kj_gen_value(&nd, NULL, 77, 3, (uint64_t)i);
		double v = kj_gen_value(&nd, &o, 77, 3, (uint64_t)i);
		if (same(v, base))
			continue;
		n_out++;
		if (same(v, -50.0 * base))
			n_neg++;
		else if (!same(v, 50.0 * base))
			bad++;
	}
	ok(n_out >= 700 && n_out <= 1300, "outliers: %ld of 1e6 (rate 0.0007..0.0013)", n_out);
	is_int(bad, 0, "outliers: each is the normal value times +-50 exactly");
	ok(n_neg > n_out * 4 / 10 && n_neg < n_out * 6 / 10, "outliers: %ld of %ld sign-flipped", n_neg, n_out);
	for (i = 0; i < 10000; i++) {
		if (!same(kj_gen_value(&nd, &none, 77, 3, (uint64_t)i), kj_gen_value(&nd, NULL, 77, 3, (uint64_t)i)))
			changed++;
		if (!same(kj_gen_value(&rd, &o, 77, 3, (uint64_t)i), kj_gen_value(&rd, NULL, 77, 3, (uint64_t)i)))
			changed++;
		if (kj_gen_value(&one, &o, 77, 3, (uint64_t)i) != 1.0)
			changed++;
	}
	is_int(changed, 0, "no outliers with prob 0, nor on randint or ones");
}

static void test_streams(void)
{
	kj_dist nd = { KJ_DIST_NORMAL, 0.0, 1.0 };
	kj_outliers o = { 0.001, 50.0 };
	long eq_tid = 0, eq_seed = 0, eq_hi = 0, diff_again = 0;
	float fbuf[1000];
	int32_t ibuf[1000];
	uint16_t hbuf[1000];
	int i, bad_fill = 0;

	for (i = 0; i < 1000; i++) {
		double v = kj_gen_value(&nd, NULL, 5, 1, (uint64_t)i);
		if (!same(v, kj_gen_value(&nd, NULL, 5, 1, (uint64_t)i)))
			diff_again++;
		if (same(v, kj_gen_value(&nd, NULL, 5, 2, (uint64_t)i)))
			eq_tid++;
		if (same(v, kj_gen_value(&nd, NULL, 6, 1, (uint64_t)i)))
			eq_seed++;
		if (same(v, kj_gen_value(&nd, NULL, 5, 1, (uint64_t)i + (1ull << 32))))
			eq_hi++;
	}
	is_int(diff_again, 0, "same (seed, tensor, index) gives the same value");
	is_int(eq_tid, 0, "another tensor id gives another stream");
	is_int(eq_seed, 0, "another seed gives another stream");
	is_int(eq_hi, 0, "the index's high word is part of the counter");

	kj_gen_fill(fbuf, KJ_F32, 1000, &nd, &o, 5, 1);
	kj_gen_fill(hbuf, KJ_F16, 1000, &nd, &o, 5, 1);
	kj_gen_fill(ibuf, KJ_I32, 1000, &nd, &o, 5, 1);
	for (i = 0; i < 1000; i++) {
		double v = kj_gen_value(&nd, &o, 5, 1, (uint64_t)i);
		if (fbuf[i] != (float)v || hbuf[i] != kj_f32_to_f16((float)v) ||
		    ibuf[i] != (int32_t)kj_gen_value(&nd, NULL, 5, 1, (uint64_t)i))
			bad_fill++;
	}
	is_int(bad_fill, 0, "gen_fill stores gen_value per element; integer tensors get no outliers");
}

static void test_seeds(void)
{
	static const char *flav[10] = { "declared", "outliers", "uniform", "declared", "outliers",
					"declared", "outliers", "uniform", "declared", "outliers" };
	uint64_t seen[1000];
	int i, j, dup = 0, bad = 0;

	is_int(kj_splitmix64(1234567) == 6457827717110365317ull, 1, "splitmix64 first output from 1234567");
	is_int(kj_splitmix64(1234567 + 0x9E3779B97F4A7C15ull) == 3203168211198807973ull, 1,
	       "splitmix64 second output from 1234567");
	for (i = 0; i < 1000; i++) {
		seen[i] = kj_seed_for(42, i);
		if (seen[i] != kj_splitmix64(42 ^ (0x9E3779B97F4A7C15ull * (uint64_t)(i + 1))))
			bad++;
		for (j = 0; j < i; j++)
			dup += seen[j] == seen[i];
	}
	is_int(bad, 0, "seed_for(base, k) = splitmix64(base ^ (0x9E3779B97F4A7C15 * (k + 1)))");
	is_int(dup, 0, "1000 seeds of one base are distinct");
	ok(kj_seed_for(42, 0) != kj_seed_for(43, 0), "seed 0 depends on the base");
	for (i = 0; i < 10; i++)
		is_str(kj_seed_flavour_name(kj_seed_flavour_for(i)), flav[i], "flavour of seed %d", i);
	is_str(kj_seed_flavour_name(KJ_SEED_UNIFORM), "uniform", "flavour name uniform");
	is_str(kj_dist_name(KJ_DIST_NORMAL), "normal", "dist name normal");
	is_str(kj_dist_name(KJ_DIST_KAIMING), "kaiming", "dist name kaiming");
	is_str(kj_dist_name(KJ_DIST_ZEROS), "zeros", "dist name zeros");
}

int main(void)
{
	test_philox();
	test_log();
	test_cos2pi();
	test_recipes();
	test_distributions();
	test_outliers();
	test_streams();
	test_seeds();
	return done_testing();
}
