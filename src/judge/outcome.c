/*
 * What every candidate kind and track share (judge_internal.h): the clock,
 * the comparisons' judgement under the error budget (docs/verdict.md), the
 * verdict's checks and failure reasons, progress lines, the source's own
 * static limits, and the order of bindings the stages visit.  Nothing here
 * holds state: every function works on the judge it is given.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "judge/judge_internal.h"

#define MAX_SOURCE (1u << 20)

double kjj_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int kjj_is_output(const kj_task *t, int vi)
{
	return t->vals[vi].kind == KJ_V_OUTPUT;
}

/* ---- comparison ---- */

void kj_tolerance(const kj_task *t, kj_dtype dt, double *atol, double *rtol)
{
	if (t->tol.has_tol) {
		*atol = t->tol.atol;
		*rtol = t->tol.rtol;
	} else if (dt == KJ_F32) {
		*atol = *rtol = 1e-4;
	} else if (dt == KJ_F16 || dt == KJ_BF16) {
		*atol = *rtol = 1e-2;
	} else if (dt == KJ_F8E4M3) {
		/* one rounding of f8 (3 mantissa bits) is up to 2^-4 relative */
		*atol = *rtol = 0.125;
	} else {
		*atol = *rtol = 0;
	}
}


static void metrics_of(const struct errstat *st, double *cosv, double *l1, double *rmse)
{
	*cosv = (st->gg > 0 && st->rr > 0) ? st->dot / sqrt(st->gg * st->rr) : (st->gg == st->rr ? 1 : 0);
	*l1 = st->l1den > 0 ? st->l1num / st->l1den : st->l1num;
	*rmse = st->n ? sqrt(st->sq / (double)st->n) : 0;
}

int kjj_metric_pass(const kj_task *t, const struct errstat *st, double *cosv, double *l1,
		    double *rmse)
{
	metrics_of(st, cosv, l1, rmse);
	/* the metrics sum float elements only: an integer output of a metric
	 * task would otherwise pass whatever it holds */
	if (!t->tol.has_metric || st->exact)
		return st->nbad == 0;
	if (st->nfbad)
		return 0; /* NaN/Inf disagreement fails metric tasks too */
	if (t->tol.cos_min >= 0 && !(*cosv >= t->tol.cos_min))
		return 0;
	if (t->tol.l1_max >= 0 && !(*l1 <= t->tol.l1_max))
		return 0;
	if (t->tol.rmse_max >= 0 && !(*rmse <= t->tol.rmse_max))
		return 0;
	return 1;
}

void kjj_base_dist_of(const struct errstat *bst, struct kjj_base_dist *bd)
{
	double cosv, l1, rmse;
	metrics_of(bst, &cosv, &l1, &rmse);
	bd->have = 1;
	bd->ratio = bst->exact ? (bst->nbad ? INFINITY : 0) : bst->ratio;
	bd->omc = fmax(0, 1 - cosv);
	bd->l1 = l1;
	bd->rmse = rmse;
}

/* A distance over its declared limit: 0/0 is 0, x/0 is inf. */
static double over(double d, double lim)
{
	if (!(d > 0))
		return isnan(d) ? INFINITY : 0;
	return lim > 0 ? d / lim : INFINITY;
}

/* One measure under the budget: the candidate's distance d against the
 * declared limit lim (declared: d within it, as the declared rule tests it)
 * and the baseline's distance bdist (< 0: none).  Keeps in *out the measure
 * that governs: a failing one before one passing on the budget before one
 * within its declared limit, then the closest to its limit.  Returns whether
 * the measure passes. */
static int budget_measure(const char *name, double d, double lim, int declared, double bdist,
			  struct kjj_judged *out, double *worst)
{
	double r = over(d, lim), br = bdist >= 0 ? over(bdist, lim) : NAN, limit = 1, q;
	int pass = declared;
	if (bdist >= 0 && isfinite(br))
		limit = fmax(1, KJ_BUDGET_MULT * br);
	if (!pass && limit > 1)
		pass = r <= limit; /* d <= max(lim, K x bdist) */
	/* the class (0 declared, 1 budget, 2 failing) in the integer part */
	q = (declared ? 0 : pass ? 1 : 2) + fmin(0.5, r / limit / 4);
	if (!out->metric || q > *worst) {
		*worst = q;
		out->metric = name;
		out->ratio = r;
		out->base_ratio = br;
		out->limit = limit;
	}
	return pass;
}

int kjj_judge_output(const kj_task *t, const struct errstat *st, const struct kjj_base_dist *bd,
		     struct kjj_judged *out)
{
	int have = bd && bd->have;
	double worst = 0;
	memset(out, 0, sizeof(*out));
	out->declared_pass = kjj_metric_pass(t, st, &out->cos, &out->l1, &out->rmse);
	if (st->exact || !t->tol.has_metric) {
		/* exact outputs get no budget: their errors are no rounding */
		int fin = !st->exact && st->nfbad == 0;
		double r = st->exact ? (st->nbad ? INFINITY : 0) : st->ratio;
		out->pass = budget_measure("elementwise", r, 1, out->declared_pass,
					   have && !st->exact ? bd->ratio : -1, out, &worst);
		out->pass = out->declared_pass || (fin && out->pass);
		out->nonfinite = st->nfbad > 0;
	} else if (st->nfbad) {
		out->pass = 0;
		out->nonfinite = 1;
		out->metric = "elementwise";
		out->ratio = INFINITY;
		out->base_ratio = have ? bd->ratio : NAN;
		out->limit = 1;
	} else {
		const kj_tol *tl = &t->tol;
		int ok = 1;
		if (tl->cos_min >= 0)
			ok &= budget_measure("cos", isnan(out->cos) ? NAN : fmax(0, 1 - out->cos), 1 - tl->cos_min,
					     out->cos >= tl->cos_min,
					     have ? bd->omc : -1, out, &worst);
		if (tl->l1_max >= 0)
			ok &= budget_measure("l1", out->l1, tl->l1_max, out->l1 <= tl->l1_max, have ? bd->l1 : -1, out,
					     &worst);
		if (tl->rmse_max >= 0)
			ok &= budget_measure("rmse", out->rmse, tl->rmse_max, out->rmse <= tl->rmse_max,
					     have ? bd->rmse : -1, out, &worst);
		out->pass = ok;
	}
	if (!out->metric) {
		out->metric = "elementwise";
		out->base_ratio = NAN;
		out->limit = 1;
	}
	out->budget_used = out->pass && !out->declared_pass;
	return out->pass;
}

/* ---- the verdict's bookkeeping ---- */

void kjj_fail(struct judge *j, kj_status st, kj_stage sg,
							const char *fmt, ...)
{
	va_list ap;
	j->v->status = st;
	j->v->stage = sg;
	va_start(ap, fmt);
	vsnprintf(j->v->reason, sizeof(j->v->reason), fmt, ap);
	va_end(ap);
}

void kjj_progress(struct judge *j, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	if (!j->o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	j->o->progress(j->o->progress_ctx, line);
}

const char *kjj_shape_desc(struct judge *j, int bind, char *buf, size_t len)
{
	const kj_task *t = j->t;
	char bs[256];
	int nth = 0;
	for (int i = 0; i <= bind; i++)
		nth += t->binds[i].bench == t->binds[bind].bench;
	snprintf(buf, len, "%s shape %d (%s)",
		 t->binds[bind].bench == 0 ? "check" : t->binds[bind].bench == 1 ? "bench" : "bench cpu",
		 nth, kj_binding_str(t, &t->binds[bind], bs, sizeof(bs)));
	return buf;
}

/* Turns a failed call into the verdict.  Returns 1 when the call failed. */
int kjj_call_failed(struct judge *j, const struct kj_call_result *r, kj_stage sg, int bind)
{
	char sd[320];
	if (r->status == KJ_CALL_OK)
		return 0;
	if (j->cand && j->cand->map_error && j->cand->map_error(j, r))
		return 1;
	kjj_shape_desc(j, bind, sd, sizeof(sd));
	switch (r->status) {
	case KJ_CALL_TIMEOUT:
		kjj_fail(j, KJ_ST_TIMEOUT, sg, "call did not return within %.3g s on %s", j->o->call_timeout_s, sd);
		break;
	case KJ_CALL_SIGNALED:
		if (r->signo == SIGXCPU)
			kjj_fail(j, KJ_ST_TIMEOUT, sg, "worker exceeded its CPU time limit on %s", sd);
		else if (r->signo == SIGSYS)
			kjj_fail(j, KJ_ST_CRASH, sg,
				 "worker died: %s: the candidate made a system call the sandbox forbids, on %s",
				 kj_signal_desc(r->signo), sd);
		else
			kjj_fail(j, KJ_ST_CRASH, sg, "worker died: %s on %s", kj_signal_desc(r->signo), sd);
		break;
	case KJ_CALL_EXITED:
		kjj_fail(j, KJ_ST_CRASH, sg, "candidate ended the worker process (exit status %d) during the call on %s",
		     r->exit_code, sd);
		break;
	case KJ_CALL_FLOOD:
		kjj_fail(j, KJ_ST_RUNTIME_ERROR, sg, "candidate wrote more than %zu bytes to stdout/stderr on %s",
		     j->w.opts.flood_limit, sd);
		break;
	case KJ_CALL_ERROR:
		kjj_fail(j, KJ_ST_RUNTIME_ERROR, sg, "%s on %s", r->msg, sd);
		break;
	default:
		kjj_fail(j, KJ_ST_CRASH, sg, "worker broke the protocol (%s) on %s", r->msg, sd);
		break;
	}
	return 1;
}

static kj_check *new_check(kj_verdict *v)
{
	if (v->nchecks == v->capchecks) {
		int cap = v->capchecks ? 2 * v->capchecks : 32;
		kj_check *c = realloc(v->checks, (size_t)cap * sizeof(*c));
		if (!c)
			return NULL;
		v->checks = c;
		v->capchecks = cap;
	}
	memset(&v->checks[v->nchecks], 0, sizeof(kj_check));
	return &v->checks[v->nchecks++];
}

static void fmt_val(double x, char *buf, size_t len)
{
	snprintf(buf, len, "%.9g", x);
}

struct kjj_base_dist *kjj_bdist(struct judge *j, int bind, int vi, kj_seed_flavour fl)
{
	int o = 0;
	if (!j->bdist || bind < 0 || bind >= j->t->nbind || (int)fl < 0 || (int)fl >= KJJ_FLAVOURS)
		return NULL;
	for (int i = 0; i < vi; i++)
		o += kjj_is_output(j->t, i);
	if (o >= KJJ_MAX_OUTPUTS)
		return NULL;
	return &j->bdist[((size_t)bind * KJJ_MAX_OUTPUTS + (size_t)o) * KJJ_FLAVOURS + (size_t)fl];
}

/* Keeps the larger of each distance. */
static void bdist_merge(struct kjj_base_dist *into, const struct kjj_base_dist *d)
{
	if (!into->have) {
		*into = *d;
		return;
	}
	into->ratio = fmax(into->ratio, d->ratio);
	into->omc = fmax(into->omc, d->omc);
	into->l1 = fmax(into->l1, d->l1);
	into->rmse = fmax(into->rmse, d->rmse);
}

/* The reason's tail on a failing check under the budget. */
static void budget_note(const struct kjj_judged *jd, int64_t nfbad, char *buf, size_t len)
{
	const char *what = !strcmp(jd->metric, "elementwise") ? "worst error" : jd->metric;
	const char *dist = !strcmp(jd->metric, "cos") ? " (1 - cos)" : "";
	buf[0] = 0;
	if (nfbad) {
		snprintf(buf, len, " (%lld NaN/Inf where the reference differs: no error budget excuses them)",
			 (long long)nfbad);
		return;
	}
	if (jd->nonfinite)
		return;
	if (!(jd->limit > 1)) /* the declared tolerance governs */
		snprintf(buf, len, " (%s%s %.3gx the tolerance)", what, dist, jd->ratio);
	else
		snprintf(buf, len,
			 " (%s%s %.3gx the tolerance; the eager baseline's is %.3gx, the budget max(1, %g x %.3g) = %.3g)",
			 what, dist, jd->ratio, jd->base_ratio, KJ_BUDGET_MULT, jd->base_ratio, jd->limit);
}

/* Records the comparison of one output (st: candidate vs reference; bst:
 * eager baseline vs reference on the same inputs, or NULL: then the budget
 * is the largest the correctness stage saw for this shape, output and seed
 * flavour, if any) as a check when `record`, and sets the verdict on a
 * mismatch.  Returns 1 on a mismatch. */
int kjj_record_output(struct judge *j, int bind, int k, uint64_t seed, kj_seed_flavour fl,
		      kj_stage sg, double ms, int record, int vi, const kj_tinfo *ti,
		      const struct errstat *st, const struct errstat *bst)
{
	int64_t n = kj_shape_numel(&ti->shape);
	double bc, bl, brm;
	kj_check *c, tmp;
	struct kjj_base_dist bd = { 0 }, *kept = kjj_bdist(j, bind, vi, fl);
	struct kjj_judged jd;
	int pass;
	if (bst) {
		kjj_base_dist_of(bst, &bd);
		if (kept)
			bdist_merge(kept, &bd);
	} else if (kept) {
		bd = *kept;
	}
	pass = kjj_judge_output(j->t, st, &bd, &jd);
	c = record ? new_check(j->v) : &tmp;
	if (!c)
		c = &tmp;
	memset(c, 0, sizeof(*c));
	c->bind = bind;
	c->seed_index = k;
	c->seed = seed;
	c->flavour = fl;
	snprintf(c->output, sizeof(c->output), "%s", j->t->vals[vi].name);
	c->pass = pass;
	c->n = n;
	c->nbad = st->nbad;
	c->first_bad = st->first_bad;
	c->expected = st->expected;
	c->got = st->got;
	c->max_abs = st->max_abs;
	c->max_rel = st->max_rel;
	c->cos = jd.cos;
	c->l1 = jd.l1;
	c->rmse = jd.rmse;
	c->ms = ms;
	snprintf(c->budget_metric, sizeof(c->budget_metric), "%s", jd.metric);
	c->tol_ratio = jd.ratio;
	c->base_tol_ratio = jd.base_ratio;
	c->budget = jd.limit;
	c->budget_used = jd.budget_used;
	if (jd.budget_used && record)
		j->v->flags |= KJ_FLAG_BUDGET;
	int base_bad = 0;
	if (bst) {
		c->base_max_abs = bst->max_abs;
		c->base_max_rel = bst->max_rel;
		/* the declared tolerance asks more than the eager arithmetic
		 * gives here (the budget then governs) */
		base_bad = !kjj_metric_pass(j->t, bst, &bc, &bl, &brm);
		if (base_bad)
			j->v->flags |= KJ_FLAG_BASELINE_TOLERANCE;
	}
	if (!pass) {
		char sd[320], e[64], g[64], idx[160], also[200] = "", note[200];
		/* a check the eager baseline fails too: the tolerance may ask for
		 * more than the eager arithmetic gives (bench/baseline_check.sh) */
		if (base_bad)
			snprintf(also, sizeof(also),
				 "; the eager baseline is out of tolerance on this check too (%lld elements, max abs err %.3g)",
				 (long long)bst->nbad, bst->max_abs);
		budget_note(&jd, st->nfbad, note, sizeof(note));
		size_t off = 0, flat = (size_t)st->first_bad;
		kjj_shape_desc(j, bind, sd, sizeof(sd));
		idx[0] = 0;
		if (st->first_bad >= 0) {
			int64_t rem = (int64_t)flat, mult[KJ_MAX_RANK];
			int64_t m = 1;
			for (int d = ti->shape.rank - 1; d >= 0; d--) {
				mult[d] = m;
				m *= ti->shape.d[d];
			}
			off = (size_t)snprintf(idx, sizeof(idx), "[");
			for (int d = 0; d < ti->shape.rank && off < sizeof(idx); d++) {
				off += (size_t)snprintf(idx + off, sizeof(idx) - off, "%s%lld", d ? ", " : "",
							(long long)(rem / mult[d]));
				rem %= mult[d];
			}
			if (off < sizeof(idx))
				snprintf(idx + off, sizeof(idx) - off, "]");
		}
		fmt_val(st->expected, e, sizeof(e));
		fmt_val(st->got, g, sizeof(g));
		if (j->t->tol.has_metric && st->nbad == 0)
			kjj_fail(j, KJ_ST_MISMATCH, sg,
				 "output '%s' misses the metric (cos %.6f, l1 %.3g, rmse %.3g) on %s, seed %d (%s)%s%s",
				 c->output, jd.cos, jd.l1, jd.rmse, sd, k, kj_seed_flavour_name(fl), note, also);
		else
			kjj_fail(j, KJ_ST_MISMATCH, sg,
				 "output '%s' differs at %s: expected %s, got %s (%lld of %lld elements wrong; max abs err over finite elements %.3g) on %s, seed %d (%s)%s%s",
				 c->output, idx, e, g, (long long)st->nbad, (long long)n, st->max_abs, sd, k,
				 kj_seed_flavour_name(fl), note, also);
		return 1;
	}
	return 0;
}

int kjj_stage_static(struct judge *j, const char *src, size_t len)
{
	if (len > MAX_SOURCE) {
		kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "source is %zu bytes; the limit is %u", len, MAX_SOURCE);
		return 1;
	}
	if (memchr(src, 0, len)) {
		kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "source contains a NUL byte");
		return 1;
	}
	return 0;
}

int kjj_perf_binds(const kj_task *t, kj_backend b, int *out, int cap)
{
	int n = 0, want = b == KJ_BACKEND_CPU ? 2 : 1;
	for (int i = 0; i < t->nbind; i++)
		if (t->binds[i].bench == want && n < cap)
			out[n++] = i;
	return n;
}

int kjj_largest_check(const kj_task *t, int smallest)
{
	int best = -1;
	double bestv = 0;
	for (int i = 0; i < t->nbind; i++) {
		double prod = 1;
		if (t->binds[i].bench != 0)
			continue;
		for (int k = 0; k < t->nsyms; k++)
			prod *= (double)t->binds[i].val[k];
		if (best < 0 || (smallest ? prod < bestv : prod > bestv)) {
			best = i;
			bestv = prod;
		}
	}
	/* a task of one shape (a KernelBench problem file's): its bench shape
	 * is the check shape too */
	if (best < 0 && t->nbind > 0)
		best = 0;
	return best;
}

int kjj_correctness_order(const kj_task *t, kj_backend b, int *order, int cap)
{
	int n = 0, first = kjj_largest_check(t, 1);
	int pb[64], npb = kjj_perf_binds(t, b, pb, 64);
	order[n++] = first;
	for (int i = 0; i < t->nbind && n < cap; i++)
		if (t->binds[i].bench == 0 && i != first)
			order[n++] = i;
	for (int i = 0; i < npb && n < cap; i++)
		if (pb[i] != first)
			order[n++] = pb[i];
	return n;
}
