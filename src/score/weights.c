/*
 * Importance-weighted figures of a run (a trace-driven suite's task weights,
 * docs/suites.md): the same per-item values as summary.c (first-round mean
 * of S and of fast_p per (model, task) item), averaged with the weight of
 * the item's task instead of equally.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/score.h"

void kj_score_weights_release(struct kj_score_weights *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->task[i]);
	free(w->task);
	free(w->w);
	free(w->source);
	memset(w, 0, sizeof(*w));
}

/* The last path component of a task id, without ".kt". */
static size_t base_of(const char *id, const char **b)
{
	const char *s = strrchr(id, '/');
	size_t n;
	*b = s ? s + 1 : id;
	n = strlen(*b);
	if (n > 3 && !strcmp(*b + n - 3, ".kt"))
		n -= 3;
	return n;
}

/* The weight of task id, or -1 when w has none. */
static double weight_of(const struct kj_score_weights *w, const char *id)
{
	const char *b;
	size_t n = base_of(id, &b);
	for (size_t i = 0; i < w->n; i++)
		if (strlen(w->task[i]) == n && !strncmp(w->task[i], b, n))
			return w->w[i];
	return -1;
}

static int cmp_cand(const void *a, const void *b)
{
	const struct kj_score_cand *x = *(const struct kj_score_cand *const *)a;
	const struct kj_score_cand *y = *(const struct kj_score_cand *const *)b;
	int d = strcmp(x->model, y->model);
	if (!d)
		d = strcmp(x->task, y->task);
	if (!d)
		d = (x->round > y->round) - (x->round < y->round);
	if (!d)
		d = (x->id > y->id) - (x->id < y->id);
	return d;
}

/* S of one correct candidate: kj_score_task_sol over its shapes. */
static double cand_s(const struct kj_score_cand *c, int *have_sol)
{
	double w[64], sol[64], ms[64];
	int n = c->nshapes < 64 ? c->nshapes : 64;
	for (int i = 0; i < n; i++) {
		w[i] = c->shapes[i].weight;
		sol[i] = c->shapes[i].sol_ms;
		ms[i] = c->shapes[i].ms;
		if (isfinite(sol[i]) && sol[i] > 0)
			*have_sol = 1;
	}
	if (!c->correct)
		return 0;
	double s = kj_score_task_sol(w, sol, ms, (size_t)n, 1);
	return isfinite(s) ? s : 0;
}

int kj_score_weigh(const kj_score_run *r, const struct kj_score_weights *w,
		   struct kj_score_weighted *out, struct kj_err *err)
{
	const struct kj_score_cand **v = malloc((r->n ? r->n : 1) * sizeof(*v));
	double wsum = 0, ssum = 0, csum = 0, fp[KJ_SCORE_NP] = { 0 };
	double lsum = 0, lw = 0, suite_total = 0, suite_seen = 0;
	int have_sol = 0;
	char *seen;
	memset(out, 0, sizeof(*out));
	if (!v)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory weighing run '%s'", r->name);
	seen = calloc(w->n ? w->n : 1, 1);
	if (!seen) {
		free(v);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory weighing run '%s'", r->name);
	}
	for (size_t i = 0; i < r->n; i++)
		v[i] = &r->c[i];
	qsort(v, r->n, sizeof(*v), cmp_cand);
	for (size_t i = 0; i < r->n;) {
		size_t j = i;
		int first = v[i]->round, nfirst = 0;
		double W = weight_of(w, v[i]->task), s = 0, c = 0, f[KJ_SCORE_NP] = { 0 };
		int new_task = i == 0 || strcmp(v[i]->task, v[i - 1]->task);
		while (j < r->n && !strcmp(v[j]->model, v[i]->model) && !strcmp(v[j]->task, v[i]->task))
			j++;
		if (W < 0) {
			if (new_task)
				out->tasks_unweighted++;
			i = j;
			continue;
		}
		if (new_task) {
			const char *b;
			size_t n = base_of(v[i]->task, &b);
			out->tasks_weighted++;
			for (size_t k = 0; k < w->n; k++)
				if (strlen(w->task[k]) == n && !strncmp(w->task[k], b, n))
					seen[k] = 1;
		}
		out->items++;
		for (size_t k = i; k < j; k++) {
			const struct kj_score_cand *cd = v[k];
			if (cd->correct && isfinite(cd->speedup) && cd->speedup > 0 && W > 0) {
				lsum += W * log(cd->speedup);
				lw += W;
			}
			if (cd->round != first)
				continue;
			nfirst++;
			s += cand_s(cd, &have_sol);
			c += cd->correct;
			for (int p = 0; p < KJ_SCORE_NP; p++)
				f[p] += cd->correct && kj_score_fast_speedup(cd) > kj_score_p[p];
		}
		wsum += W;
		ssum += W * s / nfirst;
		csum += W * c / nfirst;
		for (int p = 0; p < KJ_SCORE_NP; p++)
			fp[p] += W * f[p] / nfirst;
		i = j;
	}
	for (size_t k = 0; k < w->n; k++) {
		suite_total += w->w[k];
		if (seen[k])
			suite_seen += w->w[k];
	}
	out->coverage = suite_total > 0 ? suite_seen / suite_total : NAN;
	out->s_agg = have_sol && wsum > 0 ? ssum / wsum : NAN;
	out->correct_rate = wsum > 0 ? csum / wsum : NAN;
	for (int p = 0; p < KJ_SCORE_NP; p++)
		out->fast_p[p] = wsum > 0 ? fp[p] / wsum : NAN;
	out->speedup_geomean = lw > 0 ? exp(lsum / lw) : NAN;
	out->source = w->source ? strdup(w->source) : NULL;
	free(seen);
	free(v);
	return 0;
}
