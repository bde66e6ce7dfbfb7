/* kjudge lint-tasks: the degeneracy lint over the suite (or named tasks). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/lint.h"

static const char lint_usage[] =
	"usage: kjudge lint-tasks [--json] [--sizing | --only-sizing] [TASK...]\n\n"
	"Checks that every task (or each TASK named) has outputs that depend on its\n"
	"inputs, so that no constant candidate can pass: on every check shape and\n"
	"`bench cpu` shape, with the fp64 oracle, each output must vary across seeds,\n"
	"be constant along no axis, change when any one input or param is redrawn, and\n"
	"have an RMS at least 10x its absolute tolerance.\n"
	"  --sizing       also size every GPU bench shape from the cost rules and the\n"
	"                 H200's calibrated rates (no GPU needed): the eager baseline's\n"
	"                 estimated time must lie in [1, 15] ms and the judge's device\n"
	"                 memory (task dtypes + fp64 reference + candidate copies) stay\n"
	"                 under 40 GB\n"
	"  --only-sizing  the sizing alone (fast), with each shape's estimate printed\n"
	"  --sizing-table FILE\n"
	"                 measured eager times (task<TAB>shape<TAB>ms, as\n"
	"                 bench/baseline_vs_torch.py --sizing-out writes them on the\n"
	"                 H200) that replace the estimates in the time rule; default\n"
	"                 <root>/tasks/sizing_h200.tsv when it exists\n"
	"  --estimates-only  ignore measured times: estimates alone\n"
	"Exit 0 when every task passes, 1 when some fail, 2 on a usage error (or an\n"
	"unknown TASK), 3 when a task cannot be loaded or the oracle fails.";

/* Lints one task file; appends its JSON object to arr.  Returns KJ_EXIT_OK,
 * KJ_EXIT_FAIL, KJ_EXIT_USAGE (no such task) or KJ_EXIT_JUDGE. */
#define MAX_SIZED 64

static int lint_one(const char *arg, int json, int sizing, const kj_sizing_table *meas, json_t *arr)
{
	kj_task *t;
	kj_lint_result r;
	struct kj_err err;
	json_t *o, *reasons;
	kj_sizing sz[MAX_SIZED];
	kj_calib cal;
	int nsz = 0;
	kj_err_init(&err);
	if (kj_cli_load_task(arg, &t, &err)) {
		fprintf(stderr, "kjudge lint-tasks: %s\n", err.msg);
		o = json_object();
		json_object_set_new(o, "task", kj_cli_json_string(arg));
		json_object_set_new(o, "ok", json_false());
		json_object_set_new(o, "error", kj_cli_json_string(err.msg));
		json_array_append_new(arr, o);
		return kj_cli_task_exit(err.code);
	}
	memset(&r, 0, sizeof(r));
	if ((sizing != 2 && kj_lint_task(t, NULL, &r, &err)) ||
	    (sizing && (kj_calib_h200(&cal), nsz = kj_lint_sizing(t, &cal, meas, sz, MAX_SIZED, &r, &err)) < 0)) {
		fprintf(stderr, "kjudge lint-tasks: %s: %s\n", t->id, err.msg);
		o = json_object();
		json_object_set_new(o, "task", kj_cli_json_string(t->id));
		json_object_set_new(o, "ok", json_false());
		json_object_set_new(o, "error", kj_cli_json_string(err.msg));
		json_array_append_new(arr, o);
		kj_task_free(t);
		return KJ_EXIT_JUDGE;
	}
	reasons = json_array();
	for (int i = 0; i < r.nreasons; i++)
		json_array_append_new(reasons, kj_cli_json_string(r.reason[i]));
	o = json_object();
	json_object_set_new(o, "task", kj_cli_json_string(t->id));
	json_object_set_new(o, "ok", json_boolean(r.nreasons == 0));
	json_object_set_new(o, "shapes", json_integer(r.nbind));
	json_object_set_new(o, "reasons", reasons);
	if (sizing) {
		json_t *sa = json_array();
		char bs[256];
		for (int i = 0; i < nsz && i < MAX_SIZED; i++) {
			json_t *x = json_object();
			kj_binding_str(t, &t->binds[sz[i].bind], bs, sizeof(bs));
			json_object_set_new(x, "shape", kj_cli_json_string(bs));
			json_object_set_new(x, "est_ms", kj_cli_json_real(sz[i].est_ms));
			json_object_set_new(x, "measured_ms",
					    sz[i].meas_ms > 0 ? kj_cli_json_real(sz[i].meas_ms) : json_null());
			json_object_set_new(x, "mem_gb", kj_cli_json_real(sz[i].mem_bytes / 1e9));
			json_array_append_new(sa, x);
		}
		json_object_set_new(o, "sizing", sa);
	}
	json_array_append_new(arr, o);
	if (!json) {
		if (sizing == 2) {
			char bs[256];
			for (int i = 0; i < nsz && i < MAX_SIZED; i++) {
				kj_binding_str(t, &t->binds[sz[i].bind], bs, sizeof(bs));
				if (sz[i].meas_ms > 0)
					printf("   %s %s: ~%.3g ms, %.2f GB, measured %.3g ms\n", t->id, bs,
					       sz[i].est_ms, sz[i].mem_bytes / 1e9, sz[i].meas_ms);
				else
					printf("   %s %s: ~%.3g ms, %.2f GB\n", t->id, bs, sz[i].est_ms,
					       sz[i].mem_bytes / 1e9);
			}
		}
		if (!r.nreasons) {
			printf("ok %s\n", t->id);
		} else {
			printf("FAIL %s: ", t->id);
			for (int i = 0; i < r.nreasons; i++)
				printf("%s%s", i ? "; " : "", r.reason[i]);
			printf("%s\n", r.truncated ? "; ..." : "");
		}
		fflush(stdout);
	}
	kj_task_free(t);
	return r.nreasons ? KJ_EXIT_FAIL : KJ_EXIT_OK;
}

int cmd_lint_tasks(int argc, char **argv)
{
	static const struct option lo[] = { { "json", 0, 0, 'j' },        { "sizing", 0, 0, 's' },
					    { "only-sizing", 0, 0, 'S' }, { "help", 0, 0, 'h' },
					    { "sizing-table", 1, 0, 'T' }, { "estimates-only", 0, 0, 'E' },
					    { 0, 0, 0, 0 } };
	const char *table = NULL;
	int estimates_only = 0;
	char defpath[4096];
	kj_sizing_table *meas = NULL;
	int json = 0, sizing = 0, c, n = 0, passed = 0, failed = 0, errors = 0, usage = 0;
	char **paths = NULL;
	struct kj_err err;
	json_t *arr;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'j') {
			json = 1;
		} else if (c == 's') {
			sizing = sizing ? sizing : 1;
		} else if (c == 'S') {
			sizing = 2;
		} else if (c == 'T') {
			table = optarg;
		} else if (c == 'E') {
			estimates_only = 1;
		} else if (c == 'h') {
			puts(lint_usage);
			return KJ_EXIT_OK;
		} else {
			return kj_cli_usage_error("lint-tasks", "unknown option");
		}
	}
	if (optind == argc) {
		kj_err_init(&err);
		if (kj_cli_list_tasks(&paths, &n, &err)) {
			fprintf(stderr, "kjudge lint-tasks: %s\n", err.msg);
			return KJ_EXIT_JUDGE;
		}
		if (!n) {
			fprintf(stderr, "kjudge lint-tasks: no task under %s/tasks\n", kj_cli_root());
			kj_cli_free_list(paths, n);
			return KJ_EXIT_JUDGE;
		}
	}
	if (sizing && !estimates_only) {
		if (!table) {
			snprintf(defpath, sizeof(defpath), "%s/tasks/sizing_h200.tsv", kj_cli_root());
			table = defpath;
		}
		kj_err_init(&err);
		if (kj_sizing_table_load(table, &meas, &err)) {
			fprintf(stderr, "kjudge lint-tasks: %s\n", err.msg);
			kj_cli_free_list(paths, n);
			return KJ_EXIT_USAGE;
		}
	}
	arr = json_array();
	for (int i = 0; i < (paths ? n : argc - optind); i++) {
		int rc = lint_one(paths ? paths[i] : argv[optind + i], json, sizing, meas, arr);
		if (rc == KJ_EXIT_OK)
			passed++;
		else if (rc == KJ_EXIT_FAIL)
			failed++;
		else
			errors++;
		usage |= rc == KJ_EXIT_USAGE;
	}
	kj_cli_free_list(paths, n);
	kj_sizing_table_free(meas);
	if (json) {
		json_t *o = json_object();
		char *s;
		json_object_set_new(o, "schema", kj_cli_json_string("kjudge.lint/1"));
		json_object_set_new(o, "passed", json_integer(passed));
		json_object_set_new(o, "failed", json_integer(failed));
		json_object_set_new(o, "errors", json_integer(errors));
		json_object_set_new(o, "tasks", arr);
		s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (s)
			puts(s);
		free(s);
		json_decref(o);
	} else {
		json_decref(arr);
		printf("%d task%s linted: %d ok, %d failed, %d error%s\n", passed + failed + errors,
		       passed + failed + errors == 1 ? "" : "s", passed, failed, errors,
		       errors == 1 ? "" : "s");
	}
	return usage ? KJ_EXIT_USAGE : errors ? KJ_EXIT_JUDGE : failed ? KJ_EXIT_FAIL : KJ_EXIT_OK;
}
