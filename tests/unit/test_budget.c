/*
 * The error budget (docs/verdict.md): kjj_judge_output's rule per measure,
 * max(declared limit, KJ_BUDGET_MULT x the eager baseline's distance), and
 * what gets no budget (NaN/Inf disagreements, exact outputs, an infinite
 * baseline ratio); the cheap check's bound widening with it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_internal.h"
#include "kjudge/task.h"
#include "tap.h"

static kj_task *parse(const char *text)
{
	struct kj_err err;
	kj_task *t = NULL;
	kj_err_init(&err);
	if (kj_task_parse(text, strlen(text), "budget.kt", &t, &err)) {
		printf("# %s\n", err.msg);
		return NULL;
	}
	return t;
}

/* A float output of n elements whose worst normalised error is ratio, with
 * nbad elements outside the declared tolerance and nfbad NaN/Inf
 * disagreements. */
static struct errstat elem(double ratio, int64_t nbad, int64_t nfbad)
{
	struct errstat st;
	memset(&st, 0, sizeof(st));
	st.n = 100;
	st.nbad = nbad;
	st.nfbad = nfbad;
	st.first_bad = nbad ? 0 : -1;
	st.ratio = ratio;
	st.gg = st.rr = st.dot = 1;
	return st;
}

static void test_elementwise(void)
{
	kj_task *t = parse("task b\nlevel 1\ncategory Math\nabout \"x\"\ninput x: f32[N] ~ normal\n"
			   "output y: f32[N]\ny = x * 2.0\ntol atol=1e-6 rtol=1e-6\ncheck N=4\n");
	/* the baseline 1x the tolerance: the budget is K; a candidate half way */
	const double K = KJ_BUDGET_MULT, mid = (1 + KJ_BUDGET_MULT) / 2;
	struct kjj_base_dist bd = { 1, 1, 0, 0, 0 };
	struct kjj_judged jd;
	struct errstat st;
	if (!ok(t != NULL, "an atol/rtol task parses"))
		return;
	st = elem(0.9, 0, 0);
	ok(kjj_judge_output(t, &st, &bd, &jd) && jd.declared_pass && !jd.budget_used,
	   "within the declared tolerance: passes, no budget used");
	st = elem(mid, 3, 0);
	ok(kjj_judge_output(t, &st, &bd, &jd) && !jd.declared_pass && jd.budget_used,
	   "(1 + K)/2 x the tolerance, the baseline 1x: passes on the budget");
	is_str(jd.metric, "elementwise", "the governing measure is elementwise");
	is_near(jd.limit, K, 1e-12, "the limit is max(1, K x 1)");
	is_near(jd.base_ratio, 1, 1e-12, "the baseline's ratio is kept");
	st = elem(K * 1.01, 3, 0);
	ok(!kjj_judge_output(t, &st, &bd, &jd) && !jd.budget_used, "1%% past K x the baseline's: fails");
	st = elem(mid, 3, 0);
	ok(!kjj_judge_output(t, &st, NULL, &jd) && isnan(jd.base_ratio) && jd.limit == 1,
	   "without a baseline the declared tolerance applies alone");
	st = elem(0.1, 1, 1);
	ok(!kjj_judge_output(t, &st, &bd, &jd) && jd.nonfinite, "a NaN/Inf disagreement fails whatever the budget");
	bd.ratio = INFINITY;
	st = elem(1e9, 3, 0);
	ok(!kjj_judge_output(t, &st, &bd, &jd) && jd.limit == 1,
	   "an infinite baseline ratio (a zero tolerance it misses) gives no budget");
	bd.ratio = 0.5 / K;
	st = elem(1.2, 3, 0);
	ok(!kjj_judge_output(t, &st, &bd, &jd) && jd.limit == 1,
	   "a baseline well within tolerance (K x its ratio < 1): the declared tolerance governs");
	st = elem(mid, 3, 0);
	st.exact = 1;
	bd.ratio = 1e6;
	ok(!kjj_judge_output(t, &st, &bd, &jd) && jd.limit == 1, "an exact (integer) output gets no budget");
	kj_task_free(t);
}

static void test_metric(void)
{
	kj_task *t = parse("task m\nlevel 1\ncategory Math\nabout \"x\"\ninput x: f32[N] ~ normal\n"
			   "output y: f32[N]\ny = x * 2.0\nmetric cos>=0.99 l1<=0.01 rmse<=0.1\ncheck N=4\n");
	/* the baseline: 1 - cos at the declared limit, L1 and RMSE well below */
	const double K = KJ_BUDGET_MULT, mid = (1 + KJ_BUDGET_MULT) / 2;
	struct kjj_base_dist bd = { 1, 0, 0.01, 0.001 / KJ_BUDGET_MULT, 0.01 };
	struct kjj_judged jd;
	struct errstat st = elem(0, 0, 0);
	if (!ok(t != NULL, "a metric task parses"))
		return;
	/* 1 - cos (1 + K)/2 times the declared 0.01; the baseline's 1x */
	st.dot = 1 - 0.01 * mid;
	st.l1num = 0.005;
	st.l1den = 1;
	st.sq = 0.0001 * (double)st.n;
	ok(kjj_judge_output(t, &st, &bd, &jd) && jd.budget_used, "cos (1+K)/2 x off, the baseline's 1x: passes on the budget");
	is_str(jd.metric, "cos", "and the budgeted measure governs");
	is_near(jd.ratio, mid, 1e-9, "with the candidate's (1 - cos) over the declared (1 - cos_min)");
	st.dot = 1 - 0.01 * (K + 1);
	ok(!kjj_judge_output(t, &st, &bd, &jd), "cos (K+1)x off, past K x 1: fails");
	is_str(jd.metric, "cos", "the failing measure governs");
	st.dot = 0.995;
	st.l1num = 0.02; /* 2x the declared L1; the baseline's 0.1/K x: K times that is 0.1 */
	ok(!kjj_judge_output(t, &st, &bd, &jd), "each metric has its own budget: L1 2x off with a tiny baseline L1 fails");
	is_str(jd.metric, "l1", "and names L1");
	st.l1num = 0.005;
	st.dot = NAN;
	ok(!kjj_judge_output(t, &st, &bd, &jd), "a NaN cosine fails, budget or not");
	st.dot = 0.995;
	st.nfbad = 1;
	st.nbad = 1;
	ok(!kjj_judge_output(t, &st, &bd, &jd) && jd.nonfinite, "a NaN/Inf disagreement fails a metric task");
	kj_task_free(t);
}

static void test_bound(void)
{
	kj_task *t = parse("task b\nlevel 1\ncategory Math\nabout \"x\"\ninput x: f32[N] ~ normal\n"
			   "output y: f32[N]\ny = x * 2.0\ntol atol=1e-6 rtol=1e-6\ncheck N=4\n");
	struct kjj_base_dist bd = { 1, 10, 0, 0, 0 };
	double b0, b1;
	if (!t)
		return;
	b0 = kjj_base_bound(t, KJ_F32, 1e6, 1e3, 1e5, 1e-3, NULL);
	b1 = kjj_base_bound(t, KJ_F32, 1e6, 1e3, 1e5, 1e-3, &bd);
	/* the tolerance's part (all but 4 x base_l2) scales by max(1, K x 10) */
	is_near(b1 - 4e-3, (b0 - 4e-3) * KJ_BUDGET_MULT * 10, 1e-9, "the cheap check's bound widens by the budget (%g -> %g)",
		b0, b1);
	kj_task_free(t);
}

int main(void)
{
	test_elementwise();
	test_metric();
	test_bound();
	return done_testing();
}
