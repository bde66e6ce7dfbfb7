/*
 * Two runs of the same candidates (two GPUs, two harness settings, two
 * methods): KernelBench-X's cross-GPU transfer figure, the max/min ratio of a
 * task's speedups on the two, with its median and worst over tasks.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/score.h"
#include "score/score_int.h"

struct pair {
	const struct kj_score_cand *a, *b;
};

static int cmp_origin(const struct kj_score_cand *x, const struct kj_score_cand *y)
{
	int d = strcmp(x->task, y->task);
	if (!d)
		d = strcmp(x->model, y->model);
	if (!d)
		d = (x->sample > y->sample) - (x->sample < y->sample);
	if (!d)
		d = (x->round > y->round) - (x->round < y->round);
	return d;
}

static int cmp_origin_p(const void *a, const void *b)
{
	return cmp_origin(*(const struct kj_score_cand *const *)a, *(const struct kj_score_cand *const *)b);
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	return cmp_origin(x->a, y->a);
}

static const struct kj_score_cand **index_run(const kj_score_run *r)
{
	const struct kj_score_cand **v = malloc((r->n ? r->n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		v[i] = &r->c[i];
	qsort(v, r->n, sizeof(*v), cmp_origin_p);
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int kj_score_compare_runs(const kj_score_run *a, const kj_score_run *b,
			  struct kj_score_compare *out, struct kj_err *err)
{
	const struct kj_score_cand **va = index_run(a), **vb = index_run(b);
	char *used_a = calloc(a->n + 1, 1), *used_b = calloc(b->n + 1, 1);
	struct pair *p = malloc((a->n + 1) * sizeof(*p));
	double *ratios = NULL;
	size_t np = 0, nr = 0;
	memset(out, 0, sizeof(*out));
	out->median_ratio = out->worst_ratio = NAN;
	if (!va || !vb || !used_a || !used_b || !p)
		goto nomem;
	/* by origin: both lists are sorted the same way, so merge them */
	for (size_t i = 0, j = 0; i < a->n && j < b->n;) {
		int d = cmp_origin(va[i], vb[j]);
		if (d < 0) {
			i++;
		} else if (d > 0) {
			j++;
		} else {
			p[np].a = va[i];
			p[np].b = vb[j];
			np++;
			used_a[i++] = 1;
			used_b[j++] = 1;
		}
	}
	/* the rest by content: the same source of the same task */
	for (size_t i = 0; i < a->n; i++) {
		if (used_a[i])
			continue;
		for (size_t j = 0; j < b->n; j++) {
			if (used_b[j] || strcmp(va[i]->task, vb[j]->task) ||
			    strcmp(va[i]->sha256, vb[j]->sha256))
				continue;
			p[np].a = va[i];
			p[np].b = vb[j];
			np++;
			out->matched_by_sha++;
			used_a[i] = used_b[j] = 1;
			break;
		}
	}
	for (size_t i = 0; i < a->n; i++)
		out->unmatched_a += !used_a[i];
	for (size_t j = 0; j < b->n; j++)
		out->unmatched_b += !used_b[j];
	out->matched = (int)np;
	qsort(p, np, sizeof(*p), cmp_pair);
	out->t = calloc(np ? np : 1, sizeof(*out->t));
	ratios = malloc((np ? np : 1) * sizeof(double));
	if (!out->t || !ratios)
		goto nomem;
	for (size_t i = 0; i < np;) {
		struct kj_score_cmp_task *t = &out->t[out->n++];
		double la = 0, lb = 0;
		size_t e = i;
		t->task = p[i].a->task;
		t->lo_a = t->hi_a = t->lo_b = t->hi_b = NAN;
		while (e < np && !strcmp(p[e].a->task, t->task)) {
			const struct kj_score_cand *x = p[e].a, *y = p[e].b;
			t->matched++;
			if (x->judged && y->judged && strcmp(x->status, y->status)) {
				t->status_changed++;
				out->status_changed++;
			}
			t->both_correct += x->correct && y->correct;
			if (x->correct && y->correct && x->speedup > 0 && y->speedup > 0 &&
			    isfinite(x->speedup) && isfinite(y->speedup)) {
				t->both_timed++;
				kj_score_cmp_intervals(t, x, y);
				la += log(x->speedup);
				lb += log(y->speedup);
			}
			e++;
		}
		out->both_correct += t->both_correct;
		out->both_timed += t->both_timed;
		out->with_intervals += t->with_intervals;
		out->significant += t->significant;
		t->speedup_a = t->speedup_b = t->ratio = NAN;
		if (t->both_timed) {
			t->speedup_a = exp(la / t->both_timed);
			t->speedup_b = exp(lb / t->both_timed);
			t->ratio = t->speedup_a > t->speedup_b ? t->speedup_a / t->speedup_b
							       : t->speedup_b / t->speedup_a;
			ratios[nr++] = t->ratio;
			if (!(t->ratio <= out->worst_ratio)) {
				out->worst_ratio = t->ratio;
				out->worst_task = t->task;
			}
		}
		i = e;
	}
	if (nr) {
		qsort(ratios, nr, sizeof(double), cmp_double);
		out->median_ratio = nr % 2 ? ratios[nr / 2] : 0.5 * (ratios[nr / 2 - 1] + ratios[nr / 2]);
	}
	free(va), free(vb), free(used_a), free(used_b), free(p), free(ratios);
	return 0;
nomem:
	free(va), free(vb), free(used_a), free(used_b), free(p), free(ratios);
	kj_score_compare_release(out);
	return kj_err_set(err, KJ_E_NOMEM, "out of memory comparing runs");
}

void kj_score_compare_release(struct kj_score_compare *c)
{
	free(c->t);
	c->t = NULL;
	c->n = 0;
}
