/*
 * The summary of a loaded run: every figure of docs/scores.md, for the whole
 * run and per level, category, dtype class and model.
 *
 * An item is a (model, task) pair: fast_p, S_agg, fast_p@k and fast_p@N
 * average over items, as KernelBench averages over tasks (per model: over the
 * model's tasks).  Counts and rates are over candidates.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/score.h"

struct item {
	const struct kj_score_cand **c; /* sorted by sample, round */
	size_t n;
	int first_round;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct kj_score_cand *x = *(const struct kj_score_cand *const *)a;
	const struct kj_score_cand *y = *(const struct kj_score_cand *const *)b;
	int d = strcmp(x->model, y->model);
	if (!d)
		d = strcmp(x->task, y->task);
	if (!d)
		d = (x->sample > y->sample) - (x->sample < y->sample);
	if (!d)
		d = (x->round > y->round) - (x->round < y->round);
	if (!d)
		d = (x->id > y->id) - (x->id < y->id);
	return d;
}

/* The candidates of r sorted by (model, task, sample, round); caller frees. */
static const struct kj_score_cand **sorted_cands(const kj_score_run *r)
{
	const struct kj_score_cand **v = malloc((r->n ? r->n : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		v[i] = &r->c[i];
	qsort(v, r->n, sizeof(*v), cmp_cand);
	return v;
}

static struct item *make_items(const struct kj_score_cand **v, size_t n, size_t *nitems)
{
	struct item *it = malloc((n ? n : 1) * sizeof(*it));
	size_t m = 0;
	if (!it)
		return NULL;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int first = v[i]->round;
		while (j < n && !strcmp(v[j]->model, v[i]->model) && !strcmp(v[j]->task, v[i]->task)) {
			if (v[j]->round < first)
				first = v[j]->round;
			j++;
		}
		it[m].c = v + i;
		it[m].n = j - i;
		it[m].first_round = first;
		m++;
		i = j;
	}
	*nitems = m;
	return it;
}

static int fast(const struct kj_score_cand *c, double p)
{
	return c->correct && kj_score_fast_speedup(c) > p;
}

/* A candidate's roofline score on its task (kj_score_task_sol). */
static double cand_sol(const struct kj_score_cand *c)
{
	double w[64], sol[64], ms[64];
	int n = c->nshapes < 64 ? c->nshapes : 64;
	if (!c->correct)
		return 0;
	for (int i = 0; i < n; i++) {
		w[i] = c->shapes[i].weight;
		sol[i] = c->shapes[i].sol_ms;
		ms[i] = c->shapes[i].ms;
	}
	return kj_score_task_sol(w, sol, ms, (size_t)n, 1);
}

static double ratio(int a, int b)
{
	return b ? (double)a / b : NAN;
}

enum key_kind { K_ALL, K_LEVEL, K_CATEGORY, K_DTYPE, K_MODEL };

static int same_key(const struct kj_score_cand *a, const struct kj_score_cand *b, enum key_kind k)
{
	switch (k) {
	case K_LEVEL:
		return a->level == b->level;
	case K_CATEGORY:
		return !strcmp(a->category, b->category);
	case K_DTYPE:
		return !strcmp(a->dtype, b->dtype);
	case K_MODEL:
		return !strcmp(a->model, b->model);
	default:
		return 1;
	}
}

/* Fills g with the figures of the items (and their candidates) whose key
 * equals proto's (every item for K_ALL). */
static int group_compute(const struct item *it, size_t nitems, enum key_kind k,
			 const struct kj_score_cand *proto, struct kj_score_group *g)
{
	size_t cap = 16, nsp = 0, nsol = 0, niou = 0, nmfu = 0;
	double *sp = malloc(cap * sizeof(double)), *sol = malloc(cap * sizeof(double));
	double *iou = malloc(cap * sizeof(double)), *mfu = malloc(cap * sizeof(double));
	double fp[KJ_SCORE_NP] = { 0 }, sagg = 0;
	int fallback = 0, have_sol = 0;
	if (!sp || !sol || !iou || !mfu)
		goto nomem;
	for (size_t i = 0; i < nitems; i++) {
		const struct item *t = &it[i];
		int nfirst = 0;
		double f[KJ_SCORE_NP] = { 0 }, s = 0;
		if (k != K_ALL && !same_key(t->c[0], proto, k))
			continue;
		g->tasks++;
		for (size_t j = 0; j < t->n; j++) {
			const struct kj_score_cand *c = t->c[j];
			g->candidates++;
			g->judged += c->judged;
			g->compiled += c->compiled;
			g->call_ok += c->call_ok;
			g->correct += c->correct;
			g->untimed += c->judged && c->no_perf;
			g->timed += c->correct && isfinite(c->speedup);
			fallback += c->correct && c->fallback;
			/* the arrays grow together; sol, iou and mfu hold the same count */
			size_t need = (nsol > nsp ? nsol : nsp) + (size_t)c->nshapes + 1;
			if (need > cap) {
				size_t ncap = 2 * need;
				double *a = realloc(sp, ncap * sizeof(double));
				if (a)
					sp = a;
				a = a ? realloc(sol, ncap * sizeof(double)) : NULL;
				if (a)
					sol = a;
				a = a ? realloc(iou, ncap * sizeof(double)) : NULL;
				if (a)
					iou = a;
				a = a ? realloc(mfu, ncap * sizeof(double)) : NULL;
				if (!a)
					goto nomem;
				mfu = a;
				cap = ncap;
			}
			for (int q = 0; q < c->nshapes; q++)
				if (isfinite(c->shapes[q].sol_ms))
					have_sol = 1;
			if (c->correct && isfinite(c->speedup))
				sp[nsp++] = c->speedup;
			if (c->correct) {
				for (int q = 0; q < c->nshapes; q++) {
					sol[nsol++] = c->shapes[q].sol_frac;
					iou[niou++] = c->shapes[q].iou;
					mfu[nmfu++] = c->shapes[q].mfu;
				}
			}
			if (c->round != t->first_round)
				continue;
			nfirst++;
			for (int p = 0; p < KJ_SCORE_NP; p++)
				f[p] += fast(c, kj_score_p[p]);
			if (c->correct) {
				double cs = cand_sol(c);
				s += isfinite(cs) ? cs : 0;
			}
		}
		for (int p = 0; p < KJ_SCORE_NP; p++)
			fp[p] += f[p] / nfirst;
		sagg += s / nfirst;
	}
	/* judged without timing, or nothing correct was timed: fast_p is not
	   known, and a zero would read as "nothing was fast" */
	g->not_timed = (g->judged > 0 && g->untimed == g->judged) || (g->correct > 0 && g->timed == 0);
	for (int p = 0; p < KJ_SCORE_NP; p++)
		g->fast_p[p] = g->tasks && !g->not_timed ? fp[p] / g->tasks : NAN;
	g->compile_rate = ratio(g->compiled, g->candidates);
	g->call_rate = ratio(g->call_ok, g->candidates);
	g->correct_rate = ratio(g->correct, g->candidates);
	g->correct_per_compile = ratio(g->correct, g->compiled);
	g->speedup_geomean = kj_score_geomean(sp, nsp);
	g->speedups = (int)nsp;
	g->sol_frac_median = kj_score_median(sol, nsol);
	g->iou_median = kj_score_median(iou, niou);
	g->mfu_median = kj_score_median(mfu, nmfu);
	g->s_agg = have_sol && g->tasks ? sagg / g->tasks : NAN;
	g->fallback_rate = ratio(fallback, g->correct);
	free(sp), free(sol), free(iou), free(mfu);
	return 0;
nomem:
	free(sp), free(sol), free(iou), free(mfu);
	return KJ_E_NOMEM;
}

static int cmp_key(const struct kj_score_cand *a, const struct kj_score_cand *b, enum key_kind k)
{
	switch (k) {
	case K_LEVEL:
		return (a->level > b->level) - (a->level < b->level);
	case K_CATEGORY:
		return strcmp(a->category, b->category);
	case K_DTYPE:
		return strcmp(a->dtype, b->dtype);
	case K_MODEL:
		return strcmp(a->model, b->model);
	default:
		return 0;
	}
}

static char *key_name(const struct kj_score_cand *c, enum key_kind k)
{
	char buf[32];
	const char *s = k == K_CATEGORY ? c->category : k == K_DTYPE ? c->dtype : c->model;
	if (k == K_LEVEL) {
		snprintf(buf, sizeof(buf), "%d", c->level);
		return strdup(buf);
	}
	return strdup(*s ? s : "(none)");
}

/* One group per distinct key value, sorted by key. */
static int groups_by(const struct item *it, size_t nitems, enum key_kind k,
		     struct kj_score_group **out, int *nout)
{
	const struct kj_score_cand **keys = malloc((nitems ? nitems : 1) * sizeof(*keys));
	struct kj_score_group *g;
	int nk = 0;
	*out = NULL;
	*nout = 0;
	if (!keys)
		return KJ_E_NOMEM;
	for (size_t i = 0; i < nitems; i++) {
		int pos = 0, found = 0;
		while (pos < nk) {
			int d = cmp_key(it[i].c[0], keys[pos], k);
			if (d == 0)
				found = 1;
			if (d <= 0)
				break;
			pos++;
		}
		if (found)
			continue;
		memmove(keys + pos + 1, keys + pos, (size_t)(nk - pos) * sizeof(*keys));
		keys[pos] = it[i].c[0];
		nk++;
	}
	g = calloc(nk ? (size_t)nk : 1, sizeof(*g));
	if (!g) {
		free(keys);
		return KJ_E_NOMEM;
	}
	for (int i = 0; i < nk; i++) {
		g[i].key = key_name(keys[i], k);
		if (!g[i].key || group_compute(it, nitems, k, keys[i], &g[i])) {
			*out = g;
			*nout = i + 1;
			free(keys);
			return KJ_E_NOMEM;
		}
	}
	free(keys);
	*out = g;
	*nout = nk;
	return 0;
}

/* fast_p@k over the items whose model is `model` (all items when NULL):
 * *maxk and *out ([k - 1][p]) are set; *out is malloc'd. */
static int at_k(const struct item *it, size_t nitems, const char *model, int *maxk_out,
		double (**out)[KJ_SCORE_NP])
{
	int maxk = 0;
	size_t nsel = 0;
	*maxk_out = 0;
	*out = NULL;
	for (size_t i = 0; i < nitems; i++) {
		int n = 0;
		if (model && strcmp(it[i].c[0]->model, model))
			continue;
		nsel++;
		for (size_t j = 0; j < it[i].n; j++)
			n += it[i].c[j]->round == it[i].first_round;
		if (n > maxk)
			maxk = n;
	}
	if (!maxk || !nsel)
		return 0;
	*out = calloc((size_t)maxk, sizeof(**out));
	if (!*out)
		return KJ_E_NOMEM;
	*maxk_out = maxk;
	for (int k = 1; k <= maxk; k++)
		for (int p = 0; p < KJ_SCORE_NP; p++) {
			double sum = 0;
			for (size_t i = 0; i < nitems; i++) {
				int n = 0, c = 0;
				if (model && strcmp(it[i].c[0]->model, model))
					continue;
				for (size_t j = 0; j < it[i].n; j++) {
					const struct kj_score_cand *x = it[i].c[j];
					if (x->round != it[i].first_round)
						continue;
					n++;
					c += fast(x, kj_score_p[p]);
				}
				sum += kj_score_pass_at_k(n, c, k);
			}
			(*out)[k - 1][p] = sum / (double)nsel;
		}
	return 0;
}

/* fast_p@N over the items of `model` (all when NULL), rounds 0 .. max. */
static int at_n(const struct item *it, size_t nitems, const char *model, int *nrounds_out,
		double (**out)[KJ_SCORE_NP])
{
	int maxr = -1;
	size_t nsel = 0;
	*nrounds_out = 0;
	*out = NULL;
	for (size_t i = 0; i < nitems; i++) {
		if (model && strcmp(it[i].c[0]->model, model))
			continue;
		nsel++;
		for (size_t j = 0; j < it[i].n; j++)
			if (it[i].c[j]->round > maxr)
				maxr = it[i].c[j]->round;
	}
	if (maxr < 0 || !nsel)
		return 0;
	*out = calloc((size_t)maxr + 1, sizeof(**out));
	if (!*out)
		return KJ_E_NOMEM;
	*nrounds_out = maxr + 1;
	for (int N = 0; N <= maxr; N++)
		for (int p = 0; p < KJ_SCORE_NP; p++) {
			double sum = 0;
			for (size_t i = 0; i < nitems; i++) {
				int samples = 0, hits = 0;
				if (model && strcmp(it[i].c[0]->model, model))
					continue;
				/* candidates are sorted by sample: one chain after another */
				for (size_t j = 0; j < it[i].n;) {
					size_t e = j;
					int hit = 0;
					while (e < it[i].n && it[i].c[e]->sample == it[i].c[j]->sample) {
						if (it[i].c[e]->round <= N && fast(it[i].c[e], kj_score_p[p]))
							hit = 1;
						e++;
					}
					samples++;
					hits += hit;
					j = e;
				}
				sum += (double)hits / samples;
			}
			(*out)[N][p] = sum / (double)nsel;
		}
	return 0;
}

static void curve_unknown(double (*v)[KJ_SCORE_NP], int n)
{
	for (int i = 0; i < n; i++)
		for (int p = 0; p < KJ_SCORE_NP; p++)
			v[i][p] = NAN;
}

/* The @k and @N curves of every model group. */
static int model_curves(const struct item *it, size_t nitems, kj_score_summary *s)
{
	for (int i = 0; i < s->n_model; i++) {
		struct kj_score_group *g = &s->by_model[i];
		if (at_k(it, nitems, g->key, &g->max_k, &g->fast_p_at_k) ||
		    at_n(it, nitems, g->key, &g->n_rounds, &g->fast_p_at_n))
			return KJ_E_NOMEM;
		if (g->not_timed) {
			curve_unknown(g->fast_p_at_k, g->max_k);
			curve_unknown(g->fast_p_at_n, g->n_rounds);
		}
	}
	return 0;
}

static int count_add(struct kj_score_count **v, int *n, const char *name)
{
	struct kj_score_count *nv;
	int pos = 0;
	while (pos < *n && strcmp((*v)[pos].name, name) < 0)
		pos++;
	if (pos < *n && !strcmp((*v)[pos].name, name)) {
		(*v)[pos].count++;
		return 0;
	}
	nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));
	if (!nv)
		return KJ_E_NOMEM;
	*v = nv;
	memmove(nv + pos + 1, nv + pos, (size_t)(*n - pos) * sizeof(*nv));
	nv[pos].name = strdup(name);
	nv[pos].count = 1;
	(*n)++;
	return nv[pos].name ? 0 : KJ_E_NOMEM;
}

static void code_side(struct kj_score_code_side *s, const struct kj_code_metrics *m)
{
	s->n++;
	s->lines += m->lines;
	s->cyclomatic += m->cyclomatic;
	s->comment_ratio += m->comment_ratio;
}

static void code_mean(struct kj_score_code_side *s)
{
	if (!s->n) {
		s->lines = s->cyclomatic = s->comment_ratio = NAN;
		return;
	}
	s->lines /= s->n;
	s->cyclomatic /= s->n;
	s->comment_ratio /= s->n;
}

/* Index of name in the first *n names, added when new. */
static int level_of(const char **names, int *n, const char *name)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	names[*n] = name;
	return (*n)++;
}

static int attribution(const kj_score_run *r, kj_score_summary *s)
{
	size_t n = 0;
	int *y = malloc((r->n ? r->n : 1) * sizeof(int));
	int *gc = malloc((r->n ? r->n : 1) * sizeof(int)), *gm = malloc((r->n ? r->n : 1) * sizeof(int));
	const char **cn = malloc((r->n ? r->n : 1) * sizeof(char *));
	const char **mn = malloc((r->n ? r->n : 1) * sizeof(char *));
	int ncat = 0, nmod = 0;
	if (!y || !gc || !gm || !cn || !mn) {
		free(y), free(gc), free(gm), free(cn), free(mn);
		return KJ_E_NOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		if (!c->judged)
			continue;
		y[n] = c->correct;
		gc[n] = level_of(cn, &ncat, c->category);
		gm[n] = level_of(mn, &nmod, c->model);
		n++;
	}
	s->attribution_n = (int)n;
	s->attribution_category = kj_score_deviance_explained(y, gc, n, ncat);
	s->attribution_model = kj_score_deviance_explained(y, gm, n, nmod);
	free(y), free(gc), free(gm), free(cn), free(mn);
	return 0;
}

int kj_score_summarise(const kj_score_run *r, kj_score_summary *s, struct kj_err *err)
{
	const struct kj_score_cand **v;
	struct item *it = NULL;
	size_t nitems = 0;
	int rc = KJ_E_NOMEM;
	memset(s, 0, sizeof(*s));
	v = sorted_cands(r);
	if (!v || !(it = make_items(v, r->n, &nitems)))
		goto out;
	s->all.key = strdup("all");
	if (!s->all.key || group_compute(it, nitems, K_ALL, NULL, &s->all) ||
	    groups_by(it, nitems, K_LEVEL, &s->by_level, &s->n_level) ||
	    groups_by(it, nitems, K_CATEGORY, &s->by_category, &s->n_category) ||
	    groups_by(it, nitems, K_DTYPE, &s->by_dtype, &s->n_dtype) ||
	    groups_by(it, nitems, K_MODEL, &s->by_model, &s->n_model) ||
	    at_k(it, nitems, NULL, &s->max_k, &s->fast_p_at_k) ||
	    at_n(it, nitems, NULL, &s->n_rounds, &s->fast_p_at_n) || model_curves(it, nitems, s))
		goto out;
	if (s->all.not_timed) {
		curve_unknown(s->fast_p_at_k, s->max_k);
		curve_unknown(s->fast_p_at_n, s->n_rounds);
	}
	s->speedups = malloc((r->n ? r->n : 1) * sizeof(double));
	if (!s->speedups)
		goto out;
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		if (!c->judged) {
			s->pending++;
			continue;
		}
		if (count_add(&s->status, &s->n_status, c->status) ||
		    count_add(&s->stage, &s->n_stage, c->stage))
			goto out;
		code_side(c->correct ? &s->code_correct : &s->code_incorrect, &c->code);
		if (c->correct && c->speedup > 0 && isfinite(c->speedup))
			s->speedups[s->n_speedups++] = c->speedup;
	}
	code_mean(&s->code_correct);
	code_mean(&s->code_incorrect);
	if (attribution(r, s))
		goto out;
	if (kj_score_pairs(r, NULL, NULL, &s->fvo, err))
		goto out;
	rc = 0;
out:
	free(it);
	free(v);
	if (rc) {
		kj_score_summary_release(s);
		return kj_err_set(err, rc, "out of memory summarising run '%s'", r->name);
	}
	return 0;
}

static void groups_free(struct kj_score_group *g, int n)
{
	for (int i = 0; i < n; i++) {
		free(g[i].key);
		free(g[i].fast_p_at_k);
		free(g[i].fast_p_at_n);
	}
	free(g);
}

static void counts_free(struct kj_score_count *c, int n)
{
	for (int i = 0; i < n; i++)
		free(c[i].name);
	free(c);
}

void kj_score_summary_release(kj_score_summary *s)
{
	free(s->all.key);
	groups_free(s->by_level, s->n_level);
	groups_free(s->by_category, s->n_category);
	groups_free(s->by_dtype, s->n_dtype);
	groups_free(s->by_model, s->n_model);
	free(s->fast_p_at_k);
	free(s->fast_p_at_n);
	counts_free(s->status, s->n_status);
	counts_free(s->stage, s->n_stage);
	free(s->speedups);
	if (s->weighted) {
		free(s->weighted->source);
		free(s->weighted);
	}
	memset(s, 0, sizeof(*s));
}

int kj_score_pairs(const kj_score_run *r, struct kj_score_pair **pairs, size_t *n,
		   struct kj_score_fvo *fvo, struct kj_err *err)
{
	const struct kj_score_cand **v = sorted_cands(r);
	struct kj_score_pair *out = NULL;
	struct kj_score_fvo f;
	size_t m = 0;
	memset(&f, 0, sizeof(f));
	if (pairs)
		*pairs = NULL;
	if (n)
		*n = 0;
	if (!v)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory pairing rounds");
	if (pairs && !(out = malloc((r->n ? r->n : 1) * sizeof(*out)))) {
		free(v);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory pairing rounds");
	}
	for (size_t i = 0; i + 1 < r->n; i++) {
		const struct kj_score_cand *a = v[i], *b = v[i + 1];
		enum kj_pair_kind kind;
		if (strcmp(a->model, b->model) || strcmp(a->task, b->task) || a->sample != b->sample ||
		    b->round != a->round + 1 || !a->judged || !b->judged)
			continue;
		f.pairs++;
		if (!a->correct && b->correct) {
			f.fixes++;
			kind = KJ_PAIR_FIX;
		} else if (a->correct && !b->correct) {
			f.regressions++;
			continue;
		} else if (!a->correct) {
			f.unchanged_fail++;
			continue;
		} else if (kj_score_is_optimisation(a->speedup, b->speedup,
						    a->rel_iqr > b->rel_iqr ? a->rel_iqr : b->rel_iqr)) {
			f.optimisations++;
			kind = KJ_PAIR_SPEEDUP;
		} else {
			f.unchanged_pass++;
			continue;
		}
		if (out) {
			out[m].kind = kind;
			out[m].before = a;
			out[m].after = b;
			m++;
		}
	}
	free(v);
	if (fvo)
		*fvo = f;
	if (pairs)
		*pairs = out;
	if (n)
		*n = m;
	return 0;
}
