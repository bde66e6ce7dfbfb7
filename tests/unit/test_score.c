/* Scores: the formulas on hand-made numbers, then a whole summary of a small
 * store built row by row, whose every figure is worked out by hand below. */
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/score.h"
#include "report/report_internal.h"
#include "store/schema.h"
#include "tap.h"

static void test_pass_at_k(void)
{
	is_near(kj_score_pass_at_k(10, 3, 1), 0.3, 1e-12, "pass@1 is c/n");
	is_near(kj_score_pass_at_k(10, 3, 2), 1 - 21.0 / 45.0, 1e-12, "pass@2 of 3 in 10 is 1 - C(7,2)/C(10,2)");
	is_near(kj_score_pass_at_k(10, 3, 5), 1 - 21.0 / 252.0, 1e-12, "pass@5 of 3 in 10 is 1 - C(7,5)/C(10,5)");
	is_near(kj_score_pass_at_k(4, 2, 3), 1.0, 0, "pass@k is 1 when n - c < k");
	is_near(kj_score_pass_at_k(5, 0, 3), 0.0, 0, "pass@k is 0 without a success");
	is_near(kj_score_pass_at_k(2, 1, 5), 1.0, 0, "k > n: best of the n samples (a success)");
	is_near(kj_score_pass_at_k(2, 0, 5), 0.0, 0, "k > n: best of the n samples (none)");
	ok(isnan(kj_score_pass_at_k(0, 0, 1)), "pass@k of no samples is NAN");
}

static void test_fast_p(void)
{
	int correct[] = { 1, 1, 0, 1, 0 };
	double sp[] = { 0.5, 1.2, 3.0, NAN, 2.5 };
	is_near(kj_score_fast_p(correct, sp, 5, 0), 0.4, 1e-12, "fast_0: failures and untimed passes are misses");
	is_near(kj_score_fast_p(correct, sp, 5, 0.5), 0.2, 1e-12, "fast_0.5 needs speedup > p, not >=");
	is_near(kj_score_fast_p(correct, sp, 5, 1), 0.2, 1e-12, "fast_1: a fast failure does not count");
	is_near(kj_score_fast_p(correct, sp, 5, 2), 0.0, 0, "fast_2 is 0");
	ok(isnan(kj_score_fast_p(correct, sp, 0, 0)), "fast_p of no items is NAN");
}

static void test_means(void)
{
	double g1[] = { 1, 4, 16 }, g2[] = { 2, 8, -1, NAN, 0 }, m1[] = { 3, 1, 2 }, m2[] = { 4, NAN, 1, 3, 2 };
	is_near(kj_score_geomean(g1, 3), 4.0, 1e-12, "geometric mean of 1, 4, 16");
	is_near(kj_score_geomean(g2, 5), 4.0, 1e-12, "geometric mean skips non-positive and NAN");
	ok(isnan(kj_score_geomean(g2 + 2, 3)), "geometric mean of nothing usable is NAN");
	is_near(kj_score_median(m1, 3), 2.0, 0, "median of an odd count");
	is_near(kj_score_median(m2, 5), 2.5, 0, "median of an even count, NAN skipped");
	ok(isnan(kj_score_median(m1, 0)), "median of nothing is NAN");
}

static void test_task_sol(void)
{
	double w[] = { 0.7, 0.3 }, wn[] = { NAN, NAN }, sol[] = { 1, 2 }, ms[] = { 2, 8 };
	double sol_fast[] = { 1, 9 };
	is_near(kj_score_task_sol(w, sol, ms, 2, 1), 0.7 * 0.5 + 0.3 * 0.25, 1e-12, "S = sum w_i T_sol/T_i");
	is_near(kj_score_task_sol(w, sol, ms, 2, 0), 0.0, 0, "S of an incorrect candidate is 0");
	is_near(kj_score_task_sol(wn, sol, ms, 2, 1), 0.375, 1e-12, "unknown weights count equally");
	is_near(kj_score_task_sol(w, sol_fast, ms, 2, 1), 0.35, 1e-12, "a shape below T_sol earns nothing");
	ok(kj_score_is_optimisation(1.0, 1.06, 0), "6%% faster with no noise is an optimisation");
	ok(!kj_score_is_optimisation(1.0, 1.04, 0), "4%% faster is within the 5%% floor");
	ok(!kj_score_is_optimisation(1.0, 1.2, 0.1), "20%% faster is within 3x a 10%% IQR");
	ok(kj_score_is_optimisation(1.0, 1.31, 0.1), "31%% faster beats 3x a 10%% IQR");
	ok(!kj_score_is_optimisation(NAN, 2.0, 0), "an unknown speedup is no optimisation");
}

/* Deviance of the saturated-per-group fit: the closed form the IRLS must reach. */
static double closed_form_dev(const int *y, const int *g, size_t n, int ng)
{
	double d = 0;
	for (int k = 0; k < ng; k++) {
		double s = 0, m = 0;
		for (size_t i = 0; i < n; i++)
			if (g[i] == k)
				s += y[i], m++;
		if (m && s > 0 && s < m)
			d += -2 * (s * log(s / m) + (m - s) * log(1 - s / m));
	}
	return d;
}

static double closed_form_D(const int *y, const int *g, size_t n, int ng)
{
	int z[64] = { 0 };
	return 1 - closed_form_dev(y, g, n, ng) / closed_form_dev(y, z, n, 1);
}

static void test_logit(void)
{
	int y1[] = { 1, 1, 0, 0, 0, 1 }, g1[] = { 0, 0, 0, 1, 1, 1 };
	int y2[] = { 1, 1, 0, 0 }, g2[] = { 0, 0, 1, 1 };
	int y3[] = { 1, 0, 1, 1, 0, 0, 0, 1, 1 }, g3[] = { 0, 0, 0, 1, 1, 2, 2, 2, 2 };
	int yc[] = { 1, 1, 1 }, gc[] = { 0, 1, 1 }, bad[] = { 0, 5, 0 };
	double dev, nd;
	ok(kj_score_logit_deviance(y1, g1, 6, 2, &dev, &nd, NULL) == 0, "IRLS fits 2 groups");
	is_near(nd, 12 * log(2), 1e-9, "null deviance of 3/6 is 12 ln 2");
	is_near(dev, -4 * (2 * log(2.0 / 3) + log(1.0 / 3)), 1e-9, "deviance of p = 2/3 and 1/3");
	is_near(kj_score_deviance_explained(y1, g1, 6, 2),
		1 + 4 * (2 * log(2.0 / 3) + log(1.0 / 3)) / (12 * log(2)), 1e-9, "D of a non-separable set");
	is_near(kj_score_deviance_explained(y2, g2, 4, 2), 1.0, 1e-9, "D of a separable set is 1");
	is_near(kj_score_deviance_explained(y3, g3, 9, 3), closed_form_D(y3, g3, 9, 3), 1e-9,
		"D of 3 groups equals the closed form of group means");
	ok(isnan(kj_score_deviance_explained(yc, gc, 3, 2)), "D of a constant outcome is NAN");
	ok(kj_score_logit_deviance(y1, bad, 3, 2, &dev, &nd, NULL) == KJ_E_USAGE, "a group out of range is refused");
}

static void test_code_metrics(void)
{
	static const char src[] =
		"// header comment\n"
		"#include <stdio.h>\n"
		"/* block\n"
		"   comment */\n"
		"int f(int a, int b) {\n"
		"\tif (a && b) return 1; // trailing\n"
		"\tfor (int i = 0; i < a; i++) { while (b) b--; }\n"
		"\tconst char *s = \"if for while && || ?\"; (void)s;\n"
		"\treturn a > b ? a : b;\n"
		"\n"
		"}\n";
	struct kj_code_metrics m;
	kj_score_code_metrics(src, strlen(src), &m);
	is_int(m.lines, 7, "7 lines hold code");
	is_int(m.comment_lines, 4, "4 lines hold a comment");
	is_int(m.blank_lines, 1, "1 blank line");
	is_int(m.cyclomatic, 6, "cyclomatic 1 + if + && + for + while + ?");
	is_near(m.comment_ratio, 0.4, 1e-12, "comment ratio 4 / 10 non-blank lines");
}

/* ---- a store built by hand --------------------------------------------- */

static sqlite3 *db;

static void sql(const char *q)
{
	char *msg = NULL;
	if (sqlite3_exec(db, q, NULL, NULL, &msg) != SQLITE_OK) {
		printf("# SQL failed: %s\n# %s\n", msg ? msg : "?", q);
		sqlite3_free(msg);
		exit(1);
	}
}

#define GOOD "int f(int a){\n\treturn a;\n}\n"
#define BAD "// bad\nint f(int a){\n\tif (a) return 1;\n\treturn 0;\n}\n"

struct row {
	int id;
	const char *model, *task;
	int sample, round;
	const char *status, *stage; /* NULL: pending */
	double speedup;             /* NAN: NULL */
	const char *flags, *json, *sha;
};

static void add(int run, const struct row *r)
{
	char q[2048];
	snprintf(q, sizeof(q),
		 "INSERT INTO candidates (id, run_id, task, source, sha256, model, sample, round)"
		 " VALUES (%d, %d, '%s', '%s', '%s', '%s', %d, %d)",
		 r->id, run, r->task, r->status && !strcmp(r->status, "pass") ? GOOD : BAD,
		 r->sha ? r->sha : "x", r->model, r->sample, r->round);
	sql(q);
	if (!r->status)
		return;
	if (isnan(r->speedup))
		snprintf(q, sizeof(q),
			 "INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id,"
			 " status, stage, flags, json) VALUES (%d, %d, '%s', 'x', 'cpu', 1, '%s', '%s', '%s', '%s')",
			 r->id, run, r->task, r->status, r->stage, r->flags ? r->flags : "",
			 r->json ? r->json : "{}");
	else
		snprintf(q, sizeof(q),
			 "INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id,"
			 " status, stage, flags, speedup, json) VALUES (%d, %d, '%s', 'x', 'cpu', 1, '%s', '%s',"
			 " '%s', %.17g, '{}')",
			 r->id, run, r->task, r->status, r->stage, r->flags ? r->flags : "", r->speedup);
	sql(q);
}

static void shape(int cand, int bind, double w, double ms, double iqr, double sol)
{
	char q[512];
	snprintf(q, sizeof(q),
		 "INSERT INTO verdict_shapes (candidate_id, bind, shape, weight, ms, iqr_ms, sol_ms, sol_frac)"
		 " VALUES (%d, %d, 'N=%d', %.17g, %.17g, %.17g, %.17g, %.17g)",
		 cand, bind, bind, w, ms, iqr, sol, sol / ms);
	sql(q);
}

static const struct row run1[] = {
	{ 1, "A", "level1/relu", 0, 0, "pass", "done", 2.0, NULL, NULL, NULL },
	{ 2, "A", "level1/relu", 1, 0, "mismatch", "correctness", NAN, NULL, NULL, NULL },
	{ 3, "A", "level1/relu", 0, 1, "pass", "done", 2.5, NULL, NULL, NULL },
	{ 4, "A", "level1/relu", 1, 1, "pass", "done", 0.9, NULL, NULL, NULL },
	{ 5, "A", "level1/softmax", 0, 0, "compile_error", "compile", NAN, NULL, NULL, NULL },
	{ 6, "A", "level1/softmax", 1, 0, "pass", "done", 1.2, NULL, NULL, "s6" },
	{ 7, "A", "level1/softmax", 0, 1, "compile_error", "compile", NAN, NULL, NULL, NULL },
	{ 8, "B", "level1/relu", 0, 0, "pass", "done", 0.8, "fallback", NULL, NULL },
	{ 9, "B", "level1/relu", 0, 1, "crash", "call", NAN, NULL, NULL, NULL },
	{ 10, "B", "level2/gemm", 0, 0, "rejected", "static", NAN, NULL,
	  "{\"compile\": {\"seconds\": 0, \"cached\": false}}", NULL },
	{ 11, "B", "level2/gemm", 0, 1, "pass", "done", 1.6, NULL, NULL, NULL },
	{ 12, "B", "level2/gemm", 1, 0, NULL, NULL, NAN, NULL, NULL, NULL },
	/* a symbol rejection after a compile, in another run */
	{ 13, "A", "level1/relu", 0, 0, "rejected", "static", NAN, NULL,
	  "{\"compile\": {\"seconds\": 0.5, \"cached\": false}}", NULL },
};

static const struct row run2[] = {
	{ 21, "A", "level1/relu", 0, 0, "pass", "done", 4.0, NULL, NULL, NULL },
	{ 22, "A", "level1/relu", 0, 1, "pass", "done", 2.5, NULL, NULL, NULL },
	{ 23, "A", "level1/relu", 1, 0, "pass", "done", 1.0, NULL, NULL, NULL },
	{ 24, "C", "level1/softmax", 1, 0, "pass", "done", 0.6, NULL, NULL, "s6" },
};

static void build_store(const char *path)
{
	if (sqlite3_open(path, &db) != SQLITE_OK)
		exit(1);
	sql(kj_store_schema_sql);
	sql("INSERT INTO runs (id, name, backend) VALUES (1, 'r1', 'cpu'), (2, 'r2', 'cpu'), (3, 'r3', 'cpu')");
	sql("INSERT INTO tasks (id, level, category, dtype) VALUES"
	    " ('level1/relu', 1, 'Activation', 'f32'), ('level1/softmax', 1, 'Normalization', 'f32'),"
	    " ('level2/gemm', 2, 'Fusion', 'f16')");
	sql("INSERT INTO devices (id, name, uuid) VALUES (1, 'host', 'cpu:host')");
	sql("INSERT INTO calibrations (device_id, copy_gbs, rates, created) VALUES"
	    " (1, 50, '{\"fp32\": 1}', '2020-01-01T00:00:00.000Z'),"
	    " (1, 100, '{\"fp32\": 50, \"fp16\": 400, \"bad\": \"x\"}', '2021-01-01T00:00:00.000Z')");
	for (size_t i = 0; i < 12; i++)
		add(1, &run1[i]);
	add(3, &run1[12]);
	for (size_t i = 0; i < sizeof(run2) / sizeof(run2[0]); i++)
		add(2, &run2[i]);
	shape(1, 0, 0.5, 1, 0.01, 0.5);
	shape(1, 1, 0.5, 2, 0.02, 0.5);
	shape(3, 0, 0.5, 0.8, 0.008, 0.5);
	shape(3, 1, 0.5, 1.6, 0.016, 0.5);
	shape(4, 0, 1, 2, 0, 0.5);
	shape(6, 0, 1, 1, 0, 0.6);
	shape(8, 0, 1, 4, 0, 0.5);
	shape(11, 0, 1, 2, 0, 1);
	/* runs 4 and 5: the same two candidates judged with --no-perf (no timing) */
	sql("INSERT INTO runs (id, name, backend, settings) VALUES (4, 'np', 'cpu', '{\"no_perf\": true}'),"
	    " (5, 'np2', 'cpu', '{\"no_perf\": true}')");
	for (int run = 4; run <= 5; run++) {
		char q[512];
		for (int k = 0; k < 2; k++) {
			snprintf(q, sizeof(q),
				 "INSERT INTO candidates (id, run_id, task, source, sha256, model)"
				 " VALUES (%d, %d, 'level1/%s', '%s', 'np%d', 'A')", 40 + 2 * run + k, run,
				 k ? "softmax" : "relu", k ? BAD : GOOD, k);
			sql(q);
			snprintf(q, sizeof(q),
				 "INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id,"
				 " cache_key, status, stage, json, judged_at) VALUES (%d, %d, 'level1/%s', 'np%d',"
				 " 'cpu', 1, 'seeds=5;perf=0;timeout=10', '%s', '%s', '{}', '2024-0%d-01')",
				 40 + 2 * run + k, run, k ? "softmax" : "relu", k, k ? "mismatch" : "pass",
				 k ? "correctness" : "done", k + 1);
			sql(q);
		}
	}
	/* run 6: two CUDA verdicts that say which kjudge and baseline judged
	 * them and what the GPU's state was; the second drifted */
	sql("INSERT INTO runs (id, name, backend, settings) VALUES (6, 'gs', 'cuda', '{}')");
	for (int k = 0; k < 2; k++) {
		char q[2048];
		snprintf(q, sizeof(q),
			 "INSERT INTO candidates (id, run_id, task, source, sha256, model, sample) VALUES (%d, 6, "
			 "'level1/relu', '%s', 'gs%d', 'A', %d)", 60 + k, GOOD, k, k);
		sql(q);
		snprintf(q, sizeof(q),
			 "INSERT INTO verdicts (candidate_id, run_id, task, sha256, backend, device_id, cache_key, "
			 "status, stage, json, judged_at) VALUES (%d, 6, 'level1/relu', 'gs%d', 'cuda', 1, "
			 "'seeds=5;perf=0', 'pass', 'done', '{\"kjudge_version\": \"0.1+gabc\", "
			 "\"baseline_id\": \"harness/123\", \"gpu_state\": {\"start\": {\"driver\": \"580.1\", "
			 "\"temp_c\": %d, \"power_limit_w\": 700, \"app_sm_mhz\": 1980}, \"end\": {\"driver\": "
			 "\"580.1\", \"temp_c\": %d, \"power_limit_w\": %d, \"app_sm_mhz\": 1980}, \"drift\": %s}}', "
			 "'2024-06-01')",
			 60 + k, k, 30 + k, 41 + 40 * k, k ? 500 : 700,
			 k ? "\"the power limit (W) changed from 700 to 500\"" : "null");
		sql(q);
	}
	sqlite3_close(db);
}

/* What the verdicts say of the judge and the GPU, in the run's summary and
 * its manifest. */
static void test_judge_state(const char *path)
{
	kj_score_run *r = NULL;
	kj_score_summary s;
	struct kjr_item it[KJR_MAX_ITEMS];
	struct kj_err err;
	int n, seen = 0;
	kj_err_init(&err);
	if (!ok(kj_score_load(path, "gs", &r, &err) == 0, "run gs loads (%s)", err.msg))
		return;
	is_int(r->js.readings, 2, "two verdicts with GPU readings");
	is_int(r->js.drift, 1, "one drifted");
	like(r->js.drift_why, "power limit", "the drift's reason is kept");
	is_int(r->js.temp_min, 30, "lowest temperature");
	is_int(r->js.temp_max, 81, "highest temperature");
	is_int(r->js.power_limit_min, 500, "lowest power limit");
	is_int(r->js.power_limit_max, 700, "highest power limit");
	is_int(r->js.versions, 1, "one kjudge version");
	ok(!strcmp(r->js.version, "0.1+gabc") && !strcmp(r->js.baseline_id, "harness/123"),
	   "the version and baseline id are kept");
	ok(kj_score_summarise(r, &s, &err) == 0, "summarised");
	n = kjr_manifest(r, &s, it, KJR_MAX_ITEMS);
	for (int i = 0; i < n; i++) {
		if (!strcmp(it[i].key, "GPU drift") && strstr(it[i].val, "1 verdicts flagged gpu_drift"))
			seen |= 1;
		if (!strcmp(it[i].key, "GPU state") && strstr(it[i].val, "500-700 W") &&
		    strstr(it[i].val, "30-81 C"))
			seen |= 2;
		if (!strcmp(it[i].key, "judged by") && strstr(it[i].val, "0.1+gabc"))
			seen |= 4;
	}
	is_int(seen, 7, "the manifest says the drift, the GPU's ranges and the judge's version");
	kj_score_summary_release(&s);
	kj_score_run_free(r);
}

static void test_untimed(const char *path)
{
	kj_score_run *r = NULL, *r2 = NULL;
	kj_score_summary s;
	struct kj_score_compare cmp;
	struct kj_err err;
	kj_err_init(&err);
	if (!ok(kj_score_load(path, "np", &r, &err) == 0 && kj_score_load(path, "np2", &r2, &err) == 0,
		"the --no-perf runs load")) {
		printf("# %s\n", err.msg);
		kj_score_run_free(r);
		return;
	}
	ok(r->c[0].no_perf && r->c[1].no_perf, "their verdicts' settings say perf=0");
	is_str(r->settings, "{\"no_perf\": true}", "the run's settings are read");
	is_str(r->first_judged, "2024-01-01", "the first verdict's date");
	is_str(r->last_judged, "2024-02-01", "the last verdict's date");
	is_int(r->verdict_settings, 1, "one verdict setting");
	is_int(r->ndevices, 1, "one device");
	if (ok(kj_score_summarise(r, &s, &err) == 0, "summarise the untimed run")) {
		is_int(s.all.correct, 1, "1 of 2 correct");
		ok(s.all.not_timed && s.all.timed == 0 && s.all.untimed == 2, "the run was not timed");
		ok(isnan(s.all.fast_p[0]) && isnan(s.all.fast_p[5]), "fast_p is unknown, not 0");
		ok(s.n_rounds == 1 && isnan(s.fast_p_at_n[0][0]), "fast_p@N is unknown");
		ok(s.max_k == 1 && isnan(s.fast_p_at_k[0][0]), "fast_p@k is unknown");
		ok(s.n_model == 1 && isnan(s.by_model[0].fast_p[0]) && isnan(s.by_model[0].fast_p_at_n[0][0]),
		   "per model too");
		kj_score_summary_release(&s);
	}
	if (ok(kj_score_compare_runs(r, r2, &cmp, &err) == 0, "compare the untimed runs")) {
		is_int(cmp.matched, 2, "2 matched");
		ok(cmp.n == 2 && cmp.t[0].both_correct == 1 && cmp.t[1].both_correct == 0 &&
		   cmp.both_correct == 1, "a pair correct in both counts without timing");
		ok(cmp.n == 2 && cmp.t[0].both_timed == 0 && isnan(cmp.t[0].ratio), "and has no ratio");
		kj_score_compare_release(&cmp);
	}
	kj_score_run_free(r);
	kj_score_run_free(r2);
}

static const struct kj_score_group *find_group(const struct kj_score_group *g, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(g[i].key, key))
			return &g[i];
	return NULL;
}

static int count_of(const struct kj_score_count *c, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].name, name))
			return c[i].count;
	return -1;
}

static void test_summary(const char *path)
{
	kj_score_run *r = NULL, *r2 = NULL, *r3 = NULL;
	kj_score_summary s;
	struct kj_err err;
	const struct kj_score_group *g;
	struct kj_score_pair *pairs;
	struct kj_score_compare cmp;
	size_t np;
	int y[] = { 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1 };
	int gcat[] = { 0, 0, 0, 0, 1, 1, 1, 0, 0, 2, 2 }, gmod[] = { 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1 };

	kj_err_init(&err);
	ok(kj_score_load(path, "nope", &r, &err) == KJ_E_NOTFOUND, "an unknown run is KJ_E_NOTFOUND");
	like(err.msg, "no run 'nope'", "the message names the run");
	ok(kj_score_load("/nonexistent/x.sqlite", "r1", &r, &err) == KJ_E_IO, "a missing database is KJ_E_IO");
	if (!ok(kj_score_load(path, "r1", &r, &err) == 0, "run r1 loads")) {
		printf("# %s\n", err.msg);
		return;
	}
	is_int(r->n, 12, "12 candidates");
	is_int(r->c[0].nshapes, 2, "candidate 1 has 2 shapes");
	is_near(r->c[0].rel_iqr, 0.01, 1e-12, "relative IQR is the largest iqr/ms");
	is_int(r->nroofs, 1, "one calibrated device");
	is_near(r->roofs[0].copy_gbs, 100, 0, "the newest calibration is used");
	is_int(r->roofs[0].nrates, 2, "numeric rates only");
	ok(r->c[9].judged && !r->c[9].compiled, "a source rejection did not compile");
	ok(r->c[8].compiled && !r->c[8].call_ok, "a crash in the call compiled but did not run");
	ok(r->c[1].call_ok && !r->c[1].correct, "a mismatch ran");
	is_int(r->c[1].code.lines, 4, "code metrics are computed per candidate");

	if (!ok(kj_score_summarise(r, &s, &err) == 0, "summarise"))
		return;
	is_int(s.all.candidates, 12, "candidates");
	is_int(s.all.judged, 11, "judged");
	is_int(s.all.compiled, 8, "compiled");
	is_int(s.all.call_ok, 7, "call ok");
	is_int(s.all.correct, 6, "correct");
	is_int(s.all.tasks, 4, "4 (model, task) items");
	is_near(s.all.compile_rate, 8.0 / 12, 1e-12, "compile rate");
	is_near(s.all.correct_per_compile, 0.75, 1e-12, "Correct/Compile");
	is_near(s.all.fast_p[0], 0.5, 1e-12, "fast_0 over items at round 0, samples averaged");
	is_near(s.all.fast_p[1], 0.5, 1e-12, "fast_0.5");
	is_near(s.all.fast_p[2], 0.25, 1e-12, "fast_0.8: 0.8 is not > 0.8");
	is_near(s.all.fast_p[3], 0.25, 1e-12, "fast_1");
	is_near(s.all.fast_p[4], 0.125, 1e-12, "fast_1.5");
	is_near(s.all.fast_p[5], 0.0, 0, "fast_2");
	is_near(s.all.speedup_geomean, pow(2.0 * 2.5 * 0.9 * 1.2 * 0.8 * 1.6, 1 / 6.0), 1e-12,
		"geometric-mean speedup over correct candidates");
	is_near(s.all.s_agg, (0.1875 + 0.3 + 0.125 + 0) / 4, 1e-12, "S_agg");
	is_near(s.all.sol_frac_median, 0.40625, 1e-12, "median SOL fraction over shapes of correct candidates");
	ok(isnan(s.all.iou_median) && isnan(s.all.mfu_median), "IOU and MFU unknown without values");
	is_near(s.all.fallback_rate, 1.0 / 6, 1e-12, "fallback rate");
	is_int(s.max_k, 2, "2 samples per item at most");
	is_near(s.fast_p_at_k[0][0], 0.5, 1e-12, "fast_0@1 is fast_0");
	is_near(s.fast_p_at_k[1][0], 0.75, 1e-12, "fast_0@2");
	is_int(s.n_rounds, 2, "rounds 0 and 1");
	is_near(s.fast_p_at_n[0][0], 0.5, 1e-12, "fast_0@N=0");
	is_near(s.fast_p_at_n[1][0], 0.75, 1e-12, "fast_0@N=1");
	is_near(s.fast_p_at_n[1][3], 0.375, 1e-12, "fast_1@N=1");
	is_int(count_of(s.status, s.n_status, "pass"), 6, "status pass");
	is_int(count_of(s.status, s.n_status, "compile_error"), 2, "status compile_error");
	is_int(count_of(s.stage, s.n_stage, "call"), 1, "stage call");
	is_int(s.pending, 1, "pending");
	is_int(s.fvo.pairs, 5, "5 consecutive judged round pairs");
	is_int(s.fvo.fixes, 2, "2 fixes");
	is_int(s.fvo.optimisations, 1, "1 optimisation");
	is_int(s.fvo.regressions, 1, "1 regression");
	is_int(s.fvo.unchanged_fail, 1, "1 still failing");
	is_int(s.code_correct.n, 6, "code metrics of 6 correct candidates");
	is_near(s.code_correct.lines, 3, 1e-12, "mean lines of correct candidates");
	is_near(s.code_incorrect.cyclomatic, 2, 1e-12, "mean cyclomatic complexity of incorrect ones");
	is_near(s.code_incorrect.comment_ratio, 0.2, 1e-12, "mean comment ratio of incorrect ones");
	is_int(s.attribution_n, 11, "attribution over judged candidates");
	is_near(s.attribution_category, closed_form_D(y, gcat, 11, 3), 1e-9, "deviance explained by category");
	is_near(s.attribution_model, closed_form_D(y, gmod, 11, 2), 1e-9, "deviance explained by model");
	is_int(s.n_level, 2, "2 levels");
	g = find_group(s.by_level, s.n_level, "1");
	ok(g && g->candidates == 9 && g->correct == 5, "level 1: 9 candidates, 5 correct");
	is_near(g ? g->fast_p[0] : -1, 2.0 / 3, 1e-12, "level 1 fast_0");
	g = find_group(s.by_model, s.n_model, "B");
	ok(g && g->candidates == 5 && g->correct == 2 && g->tasks == 2, "model B: 5 candidates, 2 correct, 2 tasks");
	is_near(g ? g->fast_p[0] : -1, 0.5, 1e-12, "model B fast_0 is over its own tasks");
	g = find_group(s.by_category, s.n_category, "Fusion");
	ok(g && g->candidates == 3 && isnan(g->fast_p[0]) == 0 && g->fast_p[0] == 0, "category Fusion");
	g = find_group(s.by_dtype, s.n_dtype, "f32");
	ok(g && g->candidates == 9, "dtype f32: 9 candidates");
	kj_score_summary_release(&s);

	ok(kj_score_pairs(r, &pairs, &np, NULL, &err) == 0, "pairs");
	is_int(np, 3, "3 pairs: 2 fixes and 1 speedup");
	ok(np == 3 && pairs[0].kind == KJ_PAIR_SPEEDUP && pairs[0].before->id == 1 && pairs[0].after->id == 3,
	   "A relu sample 0: slow -> fast");
	ok(np == 3 && pairs[1].kind == KJ_PAIR_FIX && pairs[1].before->id == 2 && pairs[1].after->id == 4,
	   "A relu sample 1: error -> correction");
	ok(np == 3 && pairs[2].kind == KJ_PAIR_FIX && pairs[2].before->id == 10, "B gemm sample 0: fix");
	free(pairs);

	ok(kj_score_load(path, "r3", &r3, &err) == 0 && r3->n == 1 && r3->c[0].compiled,
	   "a rejection after compiling counts as compiled");
	ok(kj_score_load(path, "r2", &r2, &err) == 0, "run r2 loads");
	if (r2 && kj_score_compare_runs(r, r2, &cmp, &err) == 0) {
		is_int(cmp.matched, 4, "4 candidates matched");
		is_int(cmp.matched_by_sha, 1, "1 matched by sha256");
		is_int(cmp.unmatched_a, 8, "8 of r1 unmatched");
		is_int(cmp.status_changed, 1, "1 status changed");
		is_int(cmp.n, 2, "2 tasks");
		is_near(cmp.t[0].ratio, sqrt(2.0), 1e-12, "relu: ratio of geometric means");
		is_near(cmp.median_ratio, (sqrt(2.0) + 2) / 2, 1e-12, "median ratio");
		is_near(cmp.worst_ratio, 2, 1e-12, "worst ratio");
		is_str(cmp.worst_task, "level1/softmax", "worst task");
		kj_score_compare_release(&cmp);
	} else {
		ok(0, "compare runs: %s", err.msg);
	}
	kj_score_run_free(r);
	kj_score_run_free(r2);
	kj_score_run_free(r3);
}

int main(void)
{
	char dir[] = "/tmp/kjscore.XXXXXX", path[64];
	test_pass_at_k();
	test_fast_p();
	test_means();
	test_task_sol();
	test_logit();
	test_code_metrics();
	if (!mkdtemp(dir))
		return 1;
	snprintf(path, sizeof(path), "%s/s.sqlite", dir);
	build_store(path);
	test_summary(path);
	test_untimed(path);
	test_judge_state(path);
	unlink(path);
	rmdir(dir);
	return done_testing();
}
