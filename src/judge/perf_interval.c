/*
 * The speedups' intervals and the noise floor of a verdict (docs/verdict.md,
 * "Intervals"), from the samples the performance stage kept for each perf
 * shape: the candidate's timed calls and the baseline's, in the order they
 * were taken (the CPU track's from this stage; the CUDA track's baseline from
 * its prepass or the baseline cache, j->base[pi].xs, or only its summary when
 * a cache entry predates the samples).
 *
 * A shape timed as trains (short calls on the CUDA track) has its speedup
 * from two or three timed passes of a train per side, too few to resample:
 * its interval is the single calls' bootstrap carried over to the trains'
 * ratio (kj_boot_shape.scale), widened by the spread of the passes of both
 * trains (widen: the two in quadrature).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_internal.h"
#include "kjudge/interval.h"

int kjj_keep_samples(double **into, int *nin, const double *xs, int n)
{
	free(*into);
	*into = NULL;
	*nin = 0;
	if (n <= 0)
		return 0;
	if (!(*into = malloc((size_t)n * sizeof(double))))
		return -1;
	memcpy(*into, xs, (size_t)n * sizeof(double));
	*nin = n;
	return 0;
}

double kjj_median_halfwidth(const double *xs, int n)
{
	double h, med;
	int lo, hi;
	if (n <= 0)
		return INFINITY;
	med = n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
	if (!(med > 0))
		return INFINITY;
	h = 0.98 * sqrt((double)n);
	lo = (int)floor(n / 2.0 - h);
	hi = (int)ceil(n / 2.0 + h);
	if (lo < 0)
		lo = 0;
	if (hi > n - 1)
		hi = n - 1;
	return (xs[hi] - xs[lo]) / 2 / med;
}

double kjj_passes_spread(const double *sorted, int n)
{
	double h = kjj_median_halfwidth(sorted, n);
	return isfinite(h) ? h : 0;
}

/* The baseline side of perf shape i. */
static void base_side(struct judge *j, const struct kjj_perf_keep *k, int i, struct kj_boot_side *s)
{
	memset(s, 0, sizeof(*s));
	if (k->base) {
		s->xs = k->base;
		s->n = k->nbase;
	} else if (j->base[i].xs && j->base[i].nxs > 0) {
		s->xs = j->base[i].xs;
		s->n = j->base[i].nxs;
	} else {
		s->med = j->base[i].ms;
		s->iqr = j->base[i].iqr_ms;
		s->count = j->base[i].n;
	}
}

void kjj_perf_intervals(struct judge *j, struct kjj_perf_keep *keep, const int *scored)
{
	kj_verdict *v = j->v;
	int n = v->nperf, nt = 0, ns = 0, all = 1;
	struct kj_boot_shape *sh = calloc((size_t)(n > 0 ? n : 1), sizeof(*sh));
	int *at = calloc((size_t)(n > 0 ? n : 1), sizeof(int));
	double *lo = calloc((size_t)(n > 0 ? n : 1), sizeof(double)), *hi = calloc((size_t)(n > 0 ? n : 1), sizeof(double));
	v->noise_floor = -1;
	if (!sh || !at || !lo || !hi)
		goto out;
	for (int i = 0; i < n; i++) {
		kj_perf *pf = &v->perf[i];
		struct kj_boot_shape *b = &sh[nt];
		double call_ratio;
		pf->noise_floor = -1;
		base_side(j, &keep[i], i, &b->base);
		if (b->base.xs || b->base.count > 0) {
			pf->noise_floor = kj_boot_noise_floor(&b->base, KJ_BOOT_SEED);
			if (pf->noise_floor > v->noise_floor)
				v->noise_floor = pf->noise_floor;
		}
		if (!(pf->speedup > 0) || !keep[i].cand || !(pf->call_ms > 0) || !(pf->baseline_call_ms > 0))
			continue;
		b->cand.xs = keep[i].cand;
		b->cand.n = keep[i].ncand;
		b->weight = pf->weight > 0 ? pf->weight : 1;
		/* trains: the speedup is not the single calls' ratio */
		call_ratio = pf->baseline_call_ms / pf->call_ms;
		b->scale = pf->train_reps || pf->baseline_train_reps ? pf->speedup / call_ratio : 1;
		b->widen = keep[i].widen;
		at[nt++] = i;
		all &= !!scored[i];
	}
	if (nt && kj_boot_speedups(sh, nt, KJ_BOOT_SEED, lo, hi, &v->speedup_lo, &v->speedup_hi) == 0) {
		for (int k = 0; k < nt; k++) {
			v->perf[at[k]].speedup_lo = lo[k];
			v->perf[at[k]].speedup_hi = hi[k];
		}
		if (!all) {
			/* the verdict's speedup leaves out shapes that are not
			 * scored (faster than the roofline): so does its interval */
			for (int k = 0; k < nt; k++)
				if (scored[at[k]])
					sh[ns++] = sh[k];
			if (!ns || kj_boot_speedups(sh, ns, KJ_BOOT_SEED, NULL, NULL, &v->speedup_lo,
						    &v->speedup_hi))
				v->speedup_lo = v->speedup_hi = 0;
		}
	}
	if (!(v->speedup > 0))
		v->speedup_lo = v->speedup_hi = 0;
out:
	for (int i = 0; i < n; i++) {
		free(keep[i].cand);
		free(keep[i].base);
		keep[i].cand = keep[i].base = NULL;
	}
	free(sh);
	free(at);
	free(lo);
	free(hi);
}
