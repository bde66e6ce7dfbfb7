/*
 * Confidence intervals on speedups (docs/verdict.md, "Intervals"): a
 * deterministic percentile bootstrap of the ratio of medians baseline /
 * candidate over the two sample sets of each timed shape, the same
 * replicates combined into the weighted geometric mean of a verdict, each
 * end widened by the drift the samples show in time order (what resampling
 * independent draws cannot see), and the noise floor: the spread the
 * baseline shows against itself.
 *
 * Pure arithmetic on caller's arrays: nothing is allocated that outlives a
 * call, nothing is read from the environment; the same samples give the same
 * interval on every machine (a fixed-seed generator of our own).
 */
#ifndef KJUDGE_INTERVAL_H
#define KJUDGE_INTERVAL_H

#include <stdint.h>

#define KJ_BOOT_RESAMPLES 2000
#define KJ_BOOT_SEED 0x6b6a2d626f6f7431ULL /* "kj-boot1" */
#define KJ_BOOT_LEVEL 0.95

/* One side of a ratio: samples in the order they were taken (xs, n > 0),
 * or, where only a summary is left (a baseline cached before the samples
 * were kept), the median, IQR and count of them (xs NULL): the median's
 * sampling distribution is then taken as normal with the standard error of
 * a median, 1.2533 (iqr / 1.349) / sqrt(count). */
struct kj_boot_side {
	const double *xs;
	int n;
	double med, iqr; /* xs == NULL only */
	int count;       /* xs == NULL only */
};

/* One timed shape: speedup = median(base) / median(cand) x scale.  scale is
 * 1 where the shape's times are the samples' medians; where they are not
 * (a short shape timed as trains: the speedup is the trains' ratio, and the
 * samples are the single calls), it is that speedup over the samples'
 * ratio, so the bootstrap carries the single calls' relative spread over to
 * the trains.  widen >= 0: a further relative spread known from outside
 * the samples (the spread of a train's few timed passes), applied as the
 * drift is. */
struct kj_boot_shape {
	struct kj_boot_side base, cand;
	double weight; /* > 0 */
	double scale;  /* > 0 */
	double widen;  /* >= 0 */
};

/* The relative drift of samples in time order: d = median(first half) /
 * median(second half) - 1, less what independent noise explains: sqrt(max(0,
 * d^2 - e1^2 - e2^2)), e the halves' medians' relative standard errors from
 * their own IQRs (1.2533 (IQR / 1.349) / sqrt(n) / median), since the
 * resamples hold that noise already (n >= 4; 0 for fewer, and for a summary
 * side). */
double kj_boot_drift(const struct kj_boot_side *s);

/* The intervals of n shapes (n >= 1): for each resample r of
 * KJ_BOOT_RESAMPLES, each shape's ratio of resampled medians x scale, and
 * the weighted geometric mean of those ratios; lo/hi the 2.5th and 97.5th
 * percentiles (stretched to hold the point estimate, the ratio of the
 * samples' medians x scale, should the resamples all fall to one side of
 * it), each end then moved out by the factor 1 + sqrt(drift(base)^2 +
 * drift(cand)^2 + widen^2) (independent errors; for the geometric mean: the
 * weighted geometric mean of the shapes' factors).  shape_lo/shape_hi (may be NULL) get each
 * shape's interval; *lo and *hi (may be NULL) the geometric mean's.  seed picks
 * the resamples (KJ_BOOT_SEED for verdicts).  Returns 0, or -1 when a shape
 * has an empty side, a median <= 0, or memory runs out (nothing set). */
int kj_boot_speedups(const struct kj_boot_shape *shapes, int n, uint64_t seed, double *shape_lo,
		     double *shape_hi, double *lo, double *hi);

/* The noise floor of one side: the relative half-width of the interval the
 * bootstrap gives the ratio of the side's median to itself (two independent
 * resamples of the same samples), plus the side's drift: the smallest
 * relative change between two timings of the same code that this run
 * could tell from noise.  0 for identical samples; -1 on an empty side. */
double kj_boot_noise_floor(const struct kj_boot_side *s, uint64_t seed);

/* Whether two intervals [alo, ahi] and [blo, bhi] separate (no common
 * point).  0 when an end is not finite or positive (unknown). */
int kj_interval_separate(double alo, double ahi, double blo, double bhi);

#endif
