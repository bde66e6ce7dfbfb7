/* The speedup intervals' bootstrap (include/kjudge/interval.h) on sample
 * sets whose answer is known: identical samples, shifted distributions,
 * summaries instead of samples, drift, determinism, the geometric mean. */
#include "kjudge/interval.h"

#include "tap.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* n samples around m with relative spread sp, from a fixed LCG */
static void fill(double *xs, int n, double m, double sp, uint32_t seed)
{
	for (int i = 0; i < n; i++) {
		seed = seed * 1664525u + 1013904223u;
		xs[i] = m * (1 + sp * ((double)(seed >> 8) / 16777216.0 - 0.5));
	}
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct kj_boot_shape shape(const double *b, int nb, const double *c, int nc)
{
	struct kj_boot_shape s = { { b, nb, 0, 0, 0 }, { c, nc, 0, 0, 0 }, 1, 1, 0 };
	return s;
}

int main(void)
{
	double b[200], c[200], b2[200], lo, hi, slo[2], shi[2], lo2, hi2;
	struct kj_boot_shape sh[2];

	/* identical samples: a zero-width interval at the ratio */
	for (int i = 0; i < 50; i++)
		b[i] = 2.0, c[i] = 1.0;
	sh[0] = shape(b, 50, c, 50);
	ok(kj_boot_speedups(sh, 1, KJ_BOOT_SEED, slo, shi, &lo, &hi) == 0, "identical samples: computed");
	ok(slo[0] == 2.0 && shi[0] == 2.0, "identical samples: the shape's interval is [2, 2] (%g, %g)", slo[0], shi[0]);
	ok(lo == 2.0 && hi == 2.0, "identical samples: the geomean's interval is [2, 2] (%g, %g)", lo, hi);
	ok(kj_boot_noise_floor(&sh[0].base, KJ_BOOT_SEED) == 0, "identical samples: noise floor 0");

	/* a candidate 20% faster than a baseline with 2% spread: the interval
	 * holds the true ratio 1.25 and excludes 1 */
	fill(b, 200, 1.0, 0.02, 1);
	fill(c, 200, 0.8, 0.02, 2);
	sh[0] = shape(b, 200, c, 200);
	kj_boot_speedups(sh, 1, KJ_BOOT_SEED, slo, shi, &lo, &hi);
	ok(lo > 1 && lo < 1.25 && hi > 1.25, "shifted: [%g, %g] holds 1.25, excludes 1", lo, hi);
	ok(hi / lo < 1.02, "shifted: 200 samples of 2%% spread give an interval under 2%% wide (%g)", hi / lo);
	ok(slo[0] == lo && shi[0] == hi, "one shape: its interval is the geomean's");
	{
		double l2, h2;
		kj_boot_speedups(sh, 1, KJ_BOOT_SEED, NULL, NULL, &l2, &h2);
		ok(l2 == lo && h2 == hi, "deterministic: the same samples give the same interval");
		kj_boot_speedups(sh, 1, KJ_BOOT_SEED + 1, NULL, NULL, &l2, &h2);
		ok(l2 != lo || h2 != hi, "another seed draws other resamples");
	}
	/* a slower candidate: the interval lies below 1 */
	sh[0] = shape(c, 200, b, 200);
	kj_boot_speedups(sh, 1, KJ_BOOT_SEED, NULL, NULL, &lo, &hi);
	ok(hi < 1 && lo < 0.8 && hi > 0.8, "slower: [%g, %g] holds 0.8, below 1", lo, hi);

	/* same distribution on both sides: the interval holds 1 */
	fill(b2, 200, 1.0, 0.02, 3);
	sh[0] = shape(b, 200, b2, 200);
	kj_boot_speedups(sh, 1, KJ_BOOT_SEED, NULL, NULL, &lo, &hi);
	ok(lo < 1 && hi > 1, "same distribution: [%g, %g] holds 1", lo, hi);
	{
		double nf = kj_boot_noise_floor(&sh[0].base, KJ_BOOT_SEED);
		ok(nf > 0 && nf < 0.01, "noise floor of 2%% spread over 200 samples is small and positive (%g)", nf);
	}

	/* few samples give a wider interval than many */
	sh[0] = shape(b, 10, c, 10);
	kj_boot_speedups(sh, 1, KJ_BOOT_SEED, NULL, NULL, &lo2, &hi2);
	sh[0] = shape(b, 200, c, 200);
	kj_boot_speedups(sh, 1, KJ_BOOT_SEED, NULL, NULL, &lo, &hi);
	ok(hi2 / lo2 > hi / lo, "10 samples: wider than 200 (%g > %g)", hi2 / lo2, hi / lo);

	/* scale and widen: trains; widen adds to the drifts in quadrature */
	{
		double db = kj_boot_drift(&sh[0].base), dc = kj_boot_drift(&sh[0].cand);
		double f0 = 1 + sqrt(db * db + dc * dc), f1 = 1 + sqrt(db * db + dc * dc + 0.01 * 0.01);
		sh[0].scale = 1.1;
		sh[0].widen = 0.01;
		kj_boot_speedups(sh, 1, KJ_BOOT_SEED, NULL, NULL, &lo2, &hi2);
		is_near(lo2, lo * f0 * 1.1 / f1, 1e-12, "scale moves the interval, widen widens it: lo");
		is_near(hi2, hi / f0 * 1.1 * f1, 1e-12, "scale moves the interval, widen widens it: hi");
		ok(f1 > f0 && f0 >= 1, "widen adds to the drifts (%g, %g)", f0, f1);
	}

	/* drift: a baseline whose second half is 10% slower than its first */
	for (int i = 0; i < 100; i++)
		b2[i] = 1.0, b2[100 + i] = 1.1;
	{
		struct kj_boot_side s = { b2, 200, 0, 0, 0 };
		is_near(kj_boot_drift(&s), 1 - 1 / 1.1, 1e-12, "drift: |1/1.1 - 1|");
		ok(kj_boot_noise_floor(&s, KJ_BOOT_SEED) >= kj_boot_drift(&s), "the noise floor holds the drift");
	}

	/* drift: a 5% trend under 2% noise stays (the halves' medians' errors
	 * are 0.1% each) */
	fill(b2, 100, 1.0, 0.02, 7);
	fill(b2 + 100, 100, 1.05, 0.02, 8);
	{
		struct kj_boot_side s = { b2, 200, 0, 0, 0 };
		double d = kj_boot_drift(&s);
		ok(fabs(d - (1 - 1 / 1.05)) < 0.004, "drift: a 5%% trend under 2%% noise is about 4.8%% (%g)", d);
	}
	/* drift: stationary noise (20 samples, 5% spread) is in the resamples
	 * already; only the halves' difference beyond it counts */
	{
		double sum = 0, sum_raw = 0;
		int under = 1;
		for (uint32_t seed = 1; seed <= 50; seed++) {
			struct kj_boot_side s = { b2, 20, 0, 0, 0 };
			double h1[10], h2[10], raw;
			fill(b2, 20, 1.0, 0.05, seed);
			for (int i = 0; i < 10; i++)
				h1[i] = b2[i], h2[i] = b2[10 + i];
			qsort(h1, 10, sizeof(double), cmp_d);
			qsort(h2, 10, sizeof(double), cmp_d);
			raw = fabs((h1[4] + h1[5]) / (h2[4] + h2[5]) - 1);
			sum += kj_boot_drift(&s);
			sum_raw += raw;
			under &= kj_boot_drift(&s) <= raw + 1e-15;
		}
		ok(under, "drift: never above the halves' whole difference");
		ok(sum < 0.5 * sum_raw, "drift: stationary noise gives under half the halves' difference (%g of %g)",
		   sum / 50, sum_raw / 50);
	}

	/* a summary side (no samples): an interval around the ratio of medians */
	{
		struct kj_boot_shape s = { { NULL, 0, 2.0, 0.02, 50 }, { c, 200, 0, 0, 0 }, 1, 1, 0 };
		int rc = kj_boot_speedups(&s, 1, KJ_BOOT_SEED, NULL, NULL, &lo, &hi);
		ok(rc == 0 && lo < 2.5 && hi > 2.5 && hi / lo < 1.05, "summary baseline: [%g, %g] around 2.5", lo, hi);
		s.base.count = 0;
		ok(kj_boot_speedups(&s, 1, KJ_BOOT_SEED, NULL, NULL, &lo, &hi) == -1, "an empty side: -1");
	}

	/* two shapes: the geomean's interval holds the geomean, narrower than
	 * the shapes' own in log terms */
	fill(b, 200, 1.0, 0.02, 1);
	fill(c, 200, 0.8, 0.02, 2);
	fill(b2, 200, 1.0, 0.02, 5);
	sh[0] = shape(b, 200, c, 200);
	sh[1] = shape(b2, 200, b, 200);
	sh[1].weight = 3;
	ok(kj_boot_speedups(sh, 2, KJ_BOOT_SEED, slo, shi, &lo, &hi) == 0, "two shapes: computed");
	{
		double g = exp((1 * log(1.25) + 3 * log(1.0)) / 4);
		ok(lo < g && hi > g, "two shapes: [%g, %g] holds the weighted geomean %g", lo, hi, g);
		ok(slo[0] > 1 && shi[1] > 1 && slo[1] < 1, "two shapes: each shape's own interval");
	}

	ok(kj_interval_separate(1.0, 1.1, 1.2, 1.3) && kj_interval_separate(1.2, 1.3, 1.0, 1.1),
	   "separate intervals");
	ok(!kj_interval_separate(1.0, 1.2, 1.1, 1.3), "overlapping intervals do not separate");
	ok(!kj_interval_separate(NAN, NAN, 1.1, 1.3), "an unknown interval separates from nothing");
	return done_testing();
}
