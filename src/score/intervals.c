/*
 * The speedups' intervals in the scores (docs/scores.md): read from each
 * verdict's JSON, the strict reading of fast_p (--strict-intervals), and
 * the significance of a change between two runs.
 */
#include <math.h>

#include "kjudge/interval.h"
#include "score/score_int.h"

static double positive(json_t *o, const char *k)
{
	json_t *x = json_object_get(o, k);
	return json_is_number(x) && json_number_value(x) > 0 ? json_number_value(x) : NAN;
}

void kj_score_read_interval(struct kj_score_cand *c, json_t *v)
{
	json_t *nf = json_object_get(v, "noise_floor");
	c->speedup_lo = positive(v, "speedup_lo");
	c->speedup_hi = positive(v, "speedup_hi");
	if (!(c->speedup_lo <= c->speedup_hi))
		c->speedup_lo = c->speedup_hi = NAN;
	c->noise_floor = json_is_number(nf) && json_number_value(nf) >= 0 ? json_number_value(nf) : NAN;
}

void kj_score_strict_intervals(kj_score_run *r)
{
	r->strict_intervals = 1;
	r->no_interval = 0;
	for (size_t i = 0; i < r->n; i++) {
		struct kj_score_cand *c = &r->c[i];
		c->strict = 1;
		if (c->correct && isfinite(c->speedup) && isnan(c->speedup_lo))
			r->no_interval++;
	}
}

double kj_score_fast_speedup(const struct kj_score_cand *c)
{
	return c->strict ? c->speedup_lo : c->speedup;
}

int kj_score_significant(const struct kj_score_cand *a, const struct kj_score_cand *b)
{
	return kj_interval_separate(a->speedup_lo, a->speedup_hi, b->speedup_lo, b->speedup_hi);
}

void kj_score_cmp_intervals(struct kj_score_cmp_task *t, const struct kj_score_cand *x,
			    const struct kj_score_cand *y)
{
	int both = isfinite(x->speedup_lo) && isfinite(y->speedup_lo);
	t->with_intervals += both;
	t->significant += both && kj_score_significant(x, y);
	if (t->both_timed == 1) {
		t->lo_a = x->speedup_lo;
		t->hi_a = x->speedup_hi;
		t->lo_b = y->speedup_lo;
		t->hi_b = y->speedup_hi;
	} else {
		t->lo_a = t->hi_a = t->lo_b = t->hi_b = NAN;
	}
}
