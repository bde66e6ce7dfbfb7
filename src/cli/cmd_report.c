/* kjudge report, compare and export-pairs: scores read from a results store. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kjudge/report.h"
#include "kjudge/score.h"
#include "kjudge/trace.h"

/* The store of RUN: --db, else RUN.sqlite in the current folder (as `kjudge
 * run` names it). */
static const char *db_of(const char *db, const char *run, char *buf, size_t n)
{
	if (db)
		return db;
	snprintf(buf, n, "%s.sqlite", run);
	return buf;
}

static int emit(const char *cmd, const char *text, const char *path)
{
	FILE *f = path ? fopen(path, "w") : stdout;
	size_t n = strlen(text);
	if (!f) {
		fprintf(stderr, "kjudge %s: cannot open '%s' for writing\n", cmd, path);
		return KJ_EXIT_FAIL;
	}
	if (fwrite(text, 1, n, f) != n || (path ? fclose(f) : fflush(f))) {
		fprintf(stderr, "kjudge %s: cannot write '%s'\n", cmd, path ? path : "stdout");
		return KJ_EXIT_FAIL;
	}
	return KJ_EXIT_OK;
}

/* A SQLite file or a postgresql:// store: kj_score_load reads both through
 * the store's API, opened read-only. */
static int load(const char *cmd, const char *db, const char *run, kj_score_run **r)
{
	char buf[4096];
	struct kj_err err;
	kj_err_init(&err);
	if (kj_score_load(db_of(db, run, buf, sizeof(buf)), run, r, &err)) {
		fprintf(stderr, "kjudge %s: %s\n", cmd, err.msg);
		return KJ_EXIT_FAIL;
	}
	return KJ_EXIT_OK;
}

/* The KernelBench problem of each candidate's task (c->kb), from the task
 * file's `about` (tasks/ of this kjudge): a task that is not found, or names
 * no KernelBench problem, gets none. */
static void name_kernelbench(kj_score_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		kj_task *t = NULL;
		struct kj_err err;
		size_t k;
		for (k = 0; k < i && strcmp(r->c[k].task, r->c[i].task); k++)
			;
		if (k < i) {
			r->c[i].kb = r->c[k].kb;
			continue;
		}
		kj_err_init(&err);
		if (kj_cli_load_task(r->c[i].task, &t, &err) == 0)
			kj_kernelbench_origin(t->about, &r->c[i].kb);
		kj_task_free(t);
	}
}

static int report_kernelbench(kj_score_run *r, enum kj_report_format fmt, const char *outp)
{
	struct kj_err err;
	char *text;
	int rc;
	kj_err_init(&err);
	rc = kj_report_kernelbench(r, fmt, &text, &err);
	kj_score_run_free(r);
	if (rc) {
		fprintf(stderr, "kjudge report: %s\n", err.msg);
		return rc == KJ_E_USAGE ? KJ_EXIT_USAGE : KJ_EXIT_FAIL;
	}
	rc = emit("report", text, outp);
	free(text);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct option lo[] = { { "db", 1, 0, 'd' },     { "format", 1, 0, 'f' },
					    { "output", 1, 0, 'o' }, { "help", 0, 0, 'h' },
					    { "weights", 1, 0, 'w' }, { "strict-intervals", 0, 0, 's' },
					    { "kernelbench", 0, 0, 'k' }, { 0, 0, 0, 0 } };
	const char *db = NULL, *outp = NULL, *weights = NULL;
	int strict = 0, kernelbench = 0;
	struct kj_score_weighted *wt = NULL;
	enum kj_report_format fmt = KJ_REPORT_MD;
	kj_score_run *r;
	kj_score_summary s;
	struct kj_err err;
	char *text;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'o')
			outp = optarg;
		else if (c == 'w')
			weights = optarg;
		else if (c == 's')
			strict = 1;
		else if (c == 'k')
			kernelbench = 1;
		else if (c == 'f') {
			if (kj_report_format_parse(optarg, &fmt))
				return kj_cli_usage_error("report", "unknown format '%s' (md, json, html, csv)", optarg);
		} else if (c == 'h') {
			puts("usage: kjudge report RUN [--db FILE] [--format md|json|html|csv] [-o FILE]\n"
			     "                         [--weights MANIFEST] [--strict-intervals] [--kernelbench]\n\n"
			     "Scores run RUN of a results store (default RUN.sqlite), opened read-only:\n"
			     "the run's settings and devices, rates, fast_p, fast_p@k, fast_p@N, speedups,\n"
			     "SOL/IOU/MFU, S_agg, fallback rate, error classes, fix vs optimise, code\n"
			     "metrics and attribution, for the whole run and per level, category, dtype\n"
			     "and model, then per task and per candidate (status, reason, speedup and its\n"
			     "spread, SOL, flags; docs/scores.md).  A --no-perf run is reported as\n"
			     "correctness only.  html is one self-contained page with SVG charts; csv is\n"
			     "one row per candidate.  --weights MANIFEST (a suite.json of\n"
			     "`kjudge trace import`, or its folder) adds the figures with each task weighted\n"
			     "by its share of the trace's GPU time (\"weighted\" in JSON; docs/suites.md).\n"
			     "--strict-intervals counts a candidate in fast_p only when its speedup's 95%\n"
			     "interval lies above p (speedup_lo > p); verdicts without an interval do not\n"
			     "count (docs/verdict.md, docs/scores.md).\n"
			     "--kernelbench prints KernelBench's per-problem results instead (md, json or csv):\n"
			     "per candidate the KernelBench level and problem its task mirrors (from the task's\n"
			     "about), sample, compiled, correctness, runtime and ref runtime (ms), speedup,\n"
			     "beside kjudge's task, model, round, status, stage and flags (docs/scores.md).");
			return KJ_EXIT_OK;
		} else {
			return kj_cli_usage_error("report", "unknown option");
		}
	}
	if (optind == argc)
		return kj_cli_usage_error("report", "missing RUN");
	if (optind + 1 != argc)
		return kj_cli_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
	if (kernelbench && (weights || fmt == KJ_REPORT_HTML))
		return kj_cli_usage_error("report", "--kernelbench prints md, json or csv, without --weights");
	if ((rc = load("report", db, argv[optind], &r)))
		return rc;
	if (strict)
		kj_score_strict_intervals(r);
	name_kernelbench(r);
	if (kernelbench)
		return report_kernelbench(r, fmt, outp);
	kj_err_init(&err);
	if (weights) {
		struct kj_score_weights w;
		if (kj_suite_weights_load(weights, &w, &err)) {
			fprintf(stderr, "kjudge report: %s\n", err.msg);
			kj_score_run_free(r);
			return KJ_EXIT_FAIL;
		}
		wt = malloc(sizeof(*wt));
		rc = !wt ? KJ_E_NOMEM : kj_score_weigh(r, &w, wt, &err);
		kj_score_weights_release(&w);
		if (rc) {
			fprintf(stderr, "kjudge report: %s\n", wt ? err.msg : "out of memory");
			free(wt);
			kj_score_run_free(r);
			return KJ_EXIT_FAIL;
		}
	}
	if (kj_score_summarise(r, &s, &err)) {
		fprintf(stderr, "kjudge report: %s\n", err.msg);
		if (wt)
			free(wt->source);
		free(wt);
		kj_score_summary_release(&s);
		kj_score_run_free(r);
		return KJ_EXIT_FAIL;
	}
	s.weighted = wt; /* released with the summary */
	if (kj_report_render(r, &s, fmt, &text, &err)) {
		fprintf(stderr, "kjudge report: %s\n", err.msg);
		kj_score_summary_release(&s);
		kj_score_run_free(r);
		return KJ_EXIT_FAIL;
	}
	rc = emit("report", text, outp);
	free(text);
	kj_score_summary_release(&s);
	kj_score_run_free(r);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option lo[] = { { "db", 1, 0, 'd' }, { "db-b", 1, 0, 'b' },
					    { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' },
					    { 0, 0, 0, 0 } };
	const char *db = NULL, *db_b = NULL;
	int c, rc, json = 0;
	kj_score_run *a = NULL, *b = NULL;
	struct kj_score_compare cmp;
	struct kj_err err;
	char *text = NULL;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'b')
			db_b = optarg;
		else if (c == 'j')
			json = 1;
		else if (c == 'h') {
			puts("usage: kjudge compare RUN_A RUN_B [--db FILE] [--db-b FILE] [--json]\n\n"
			     "Matches the candidates of two runs (same task, model, sample and round, else\n"
			     "the same source) and compares their speedups per task: the max/min ratio of\n"
			     "the two (cross-GPU transfer), its median and worst over tasks.  --db names\n"
			     "the store of both runs (default RUN.sqlite each), --db-b that of RUN_B.\n"
			     "A change is significant only where the two verdicts' speedup intervals\n"
			     "separate (the `significant` column; docs/scores.md).");
			return KJ_EXIT_OK;
		} else {
			return kj_cli_usage_error("compare", "unknown option");
		}
	}
	if (optind + 2 != argc)
		return kj_cli_usage_error("compare", "expected two runs");
	if ((rc = load("compare", db, argv[optind], &a)) ||
	    (rc = load("compare", db_b ? db_b : db, argv[optind + 1], &b))) {
		kj_score_run_free(a);
		return rc;
	}
	kj_err_init(&err);
	rc = KJ_EXIT_OK;
	if (kj_score_compare_runs(a, b, &cmp, &err) == 0) {
		if (kj_report_compare(a, b, &cmp, json, &text, &err) == 0)
			rc = emit("compare", text, NULL);
		else
			rc = KJ_EXIT_FAIL;
		kj_score_compare_release(&cmp);
	} else {
		rc = KJ_EXIT_FAIL;
	}
	if (rc && err.msg[0])
		fprintf(stderr, "kjudge compare: %s\n", err.msg);
	free(text);
	kj_score_run_free(a);
	kj_score_run_free(b);
	return rc;
}

int cmd_export_pairs(int argc, char **argv)
{
	static const struct option lo[] = { { "db", 1, 0, 'd' }, { "output", 1, 0, 'o' },
					    { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	const char *db = NULL, *outp = NULL;
	kj_score_run *r;
	struct kj_score_pair *pairs;
	struct kj_err err;
	size_t n;
	char *text;
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		if (c == 'd')
			db = optarg;
		else if (c == 'o')
			outp = optarg;
		else if (c == 'h') {
			puts("usage: kjudge export-pairs RUN [--db FILE] [-o FILE]\n\n"
			     "Writes JSONL: one line per (error, correction) pair (\"kind\": \"fix\": round n\n"
			     "fails, n+1 of the same model, task and sample passes) and per (slow, fast)\n"
			     "pair (\"kind\": \"speedup\": both pass and n+1 is faster beyond timing\n"
			     "noise), each with both sides' sha, status, reason, speedup and source.");
			return KJ_EXIT_OK;
		} else {
			return kj_cli_usage_error("export-pairs", "unknown option");
		}
	}
	if (optind == argc)
		return kj_cli_usage_error("export-pairs", "missing RUN");
	if (optind + 1 != argc)
		return kj_cli_usage_error("export-pairs", "unexpected argument '%s'", argv[optind + 1]);
	if ((rc = load("export-pairs", db, argv[optind], &r)))
		return rc;
	kj_err_init(&err);
	if (kj_score_pairs(r, &pairs, &n, NULL, &err) || kj_report_pairs_jsonl(pairs, n, &text, &err)) {
		fprintf(stderr, "kjudge export-pairs: %s\n", err.msg);
		free(pairs);
		kj_score_run_free(r);
		return KJ_EXIT_FAIL;
	}
	rc = emit("export-pairs", text, outp);
	free(text);
	free(pairs);
	kj_score_run_free(r);
	return rc;
}
