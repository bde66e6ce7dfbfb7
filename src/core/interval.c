/*
 * The bootstrap of speedup intervals (include/kjudge/interval.h).
 *
 * A resample of n samples draws n indices uniformly with replacement; its
 * median is an order statistic of the sorted samples, found by counting how
 * often each index was drawn (O(n) per resample, no sort).  The generator is
 * splitmix64 from a fixed seed, one stream per shape and side, so a verdict's
 * intervals repeat exactly for the same samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/interval.h"

static uint64_t mix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n), n < 2^32 */
static uint32_t draw(uint64_t *state, uint32_t n)
{
	return (uint32_t)(((mix64(state) >> 32) * (uint64_t)n) >> 32);
}

/* uniform in (0, 1) */
static double unit(uint64_t *state)
{
	return ((double)(mix64(state) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(uint64_t *state)
{
	double u = unit(state), v = unit(state);
	return sqrt(-2 * log(u)) * cos(6.283185307179586 * v);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_sorted(const double *xs, int n)
{
	return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

static double median_of(const double *xs, int n, double *tmp)
{
	memcpy(tmp, xs, (size_t)n * sizeof(double));
	qsort(tmp, (size_t)n, sizeof(double), cmp_double);
	return median_sorted(tmp, n);
}

/* A side ready to resample: its samples sorted, a count per index. */
struct side {
	const struct kj_boot_side *in;
	double *sorted;
	int *count;
	double med;
	double se;     /* summary sides: the median's standard error */
	uint64_t state;
};

static int side_init(struct side *s, const struct kj_boot_side *in, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->in = in;
	s->state = seed;
	if (in->xs) {
		if (in->n <= 0)
			return -1;
		s->sorted = malloc((size_t)in->n * sizeof(double));
		s->count = malloc((size_t)in->n * sizeof(int));
		if (!s->sorted || !s->count)
			return -1;
		s->med = median_of(in->xs, in->n, s->sorted);
		return s->med > 0 ? 0 : -1;
	}
	if (in->count <= 0 || !(in->med > 0))
		return -1;
	s->med = in->med;
	s->se = in->iqr > 0 ? 1.2533 * (in->iqr / 1.349) / sqrt((double)in->count) : 0;
	return 0;
}

static void side_release(struct side *s)
{
	free(s->sorted);
	free(s->count);
}

/* The median of one resample. */
static double side_resample(struct side *s)
{
	int n = s->in->n, want, seen = 0, k = 0;
	double a = 0;
	if (!s->in->xs) {
		double m = s->med + s->se * normal(&s->state);
		return m > 0.01 * s->med ? m : 0.01 * s->med;
	}
	memset(s->count, 0, (size_t)n * sizeof(int));
	for (int i = 0; i < n; i++)
		s->count[draw(&s->state, (uint32_t)n)]++;
	/* the order statistics n/2 - 1 and n/2 (0-based) of the resample */
	want = n % 2 ? n / 2 : n / 2 - 1;
	for (; k < n; k++) {
		seen += s->count[k];
		if (seen > want)
			break;
	}
	if (n % 2)
		return s->sorted[k];
	a = s->sorted[k];
	if (seen > want + 1)
		return a;
	for (k++; k < n && !s->count[k]; k++)
		;
	return 0.5 * (a + s->sorted[k < n ? k : n - 1]);
}

/* The standard error of the median of n sorted samples relative to that
 * median, from their IQR as a normal side's is (side_init). */
static double median_rel_se(const double *sorted, int n, double med)
{
	double iqr = sorted[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1] - sorted[n / 4];
	return med > 0 ? 1.2533 * (iqr / 1.349) / sqrt((double)n) / med : 0;
}

double kj_boot_drift(const struct kj_boot_side *s)
{
	double *tmp, a, b, ea, eb, d;
	int h;
	if (!s->xs || s->n < 4)
		return 0;
	if (!(tmp = malloc((size_t)s->n * sizeof(double))))
		return 0;
	h = s->n / 2;
	a = median_of(s->xs, h, tmp);
	ea = median_rel_se(tmp, h, a);
	b = median_of(s->xs + h, s->n - h, tmp);
	eb = median_rel_se(tmp, s->n - h, b);
	free(tmp);
	if (!(a > 0 && b > 0))
		return 0;
	/* what independent noise of the halves' own spread gives their
	 * medians' ratio in the mean square is in the bootstrap already */
	d = a / b - 1;
	d = d * d - ea * ea - eb * eb;
	return d > 0 ? sqrt(d) : 0;
}

static void percentiles(double *v, int n, double *lo, double *hi)
{
	double tail = (1 - KJ_BOOT_LEVEL) / 2;
	qsort(v, (size_t)n, sizeof(double), cmp_double);
	*lo = v[(int)floor(tail * (n - 1))];
	*hi = v[(int)ceil((1 - tail) * (n - 1))];
}

int kj_boot_speedups(const struct kj_boot_shape *shapes, int n, uint64_t seed, double *shape_lo,
		     double *shape_hi, double *lo, double *hi)
{
	const int R = KJ_BOOT_RESAMPLES;
	double *lsum = NULL, *v = NULL, wsum = 0, lwiden = 0, lpoint = 0;
	int rc = -1;
	if (n < 1)
		return -1;
	lsum = calloc((size_t)R, sizeof(double));
	v = malloc((size_t)R * sizeof(double));
	if (!lsum || !v)
		goto out;
	for (int i = 0; i < n; i++) {
		const struct kj_boot_shape *sh = &shapes[i];
		struct side b, c;
		double f, l, h, point;
		int bad;
		if (!(sh->weight > 0) || !(sh->scale > 0))
			goto out;
		memset(&c, 0, sizeof(c));
		bad = side_init(&b, &sh->base, seed ^ (0x62617365ULL + 2 * (uint64_t)i) * 0x2545f4914f6cdd1dULL) ||
		      side_init(&c, &sh->cand, seed ^ (0x63616e64ULL + 2 * (uint64_t)i + 1) * 0x2545f4914f6cdd1dULL);
		if (!bad)
			for (int r = 0; r < R; r++) {
				v[r] = side_resample(&b) / side_resample(&c) * sh->scale;
				lsum[r] += sh->weight * log(v[r]);
			}
		side_release(&b);
		side_release(&c);
		if (bad)
			goto out;
		/* independent sources of error: they add in quadrature */
		{
			double db = kj_boot_drift(&sh->base), dc = kj_boot_drift(&sh->cand);
			f = 1 + sqrt(db * db + dc * dc + sh->widen * sh->widen);
		}
		point = b.med / c.med * sh->scale;
		percentiles(v, R, &l, &h);
		/* the interval holds the speedup it is for, however the
		 * resamples fell */
		if (shape_lo)
			shape_lo[i] = (l < point ? l : point) / f;
		if (shape_hi)
			shape_hi[i] = (h > point ? h : point) * f;
		wsum += sh->weight;
		lwiden += sh->weight * log(f);
		lpoint += sh->weight * log(point);
	}
	for (int r = 0; r < R; r++)
		v[r] = lsum[r] / wsum;
	{
		double l, h, f = exp(lwiden / wsum), lp = lpoint / wsum;
		percentiles(v, R, &l, &h);
		if (lp < l)
			l = lp;
		if (lp > h)
			h = lp;
		if (lo)
			*lo = exp(l) / f;
		if (hi)
			*hi = exp(h) * f;
	}
	rc = 0;
out:
	free(lsum);
	free(v);
	return rc;
}

double kj_boot_noise_floor(const struct kj_boot_side *s, uint64_t seed)
{
	const int R = KJ_BOOT_RESAMPLES;
	struct side a, b;
	double *v = malloc((size_t)R * sizeof(double)), l = 1, h = 1;
	int bad;
	if (!v)
		return -1;
	memset(&b, 0, sizeof(b));
	bad = side_init(&a, s, seed ^ 0x6e6f697365ULL) || side_init(&b, s, seed ^ 0x666c6f6f72ULL);
	if (!bad) {
		for (int r = 0; r < R; r++)
			v[r] = side_resample(&a) / side_resample(&b);
		percentiles(v, R, &l, &h);
	}
	side_release(&a);
	side_release(&b);
	free(v);
	return bad ? -1 : (h - l) / 2 + kj_boot_drift(s);
}

int kj_interval_separate(double alo, double ahi, double blo, double bhi)
{
	if (!(alo > 0) || !(blo > 0) || !isfinite(ahi) || !isfinite(bhi) || !(ahi > 0) || !(bhi > 0))
		return 0;
	return ahi < blo || bhi < alo;
}
