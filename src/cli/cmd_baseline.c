/*
 * kjudge baseline: times the CUDA eager baseline of a task on its GPU bench
 * shapes, alone, the way the judge times it (inputs from the judge's seed 0,
 * L2 flushed before every call, CUDA events, adaptive repetition), so that
 * the baseline can be compared with other eager implementations (bench/).
 * `kjudge baseline --knobs` lists the baseline's tuning knobs (KJ_* in the
 * environment, include/kjudge/knobs.h) with their values here.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/knobs.h"

#define BASE_SEED 0x6b6a75646765ULL /* the judge's default base seed ("kjudge") */
#define MIN_SAMPLES 10
#define MAX_SAMPLES 2000

#define NODE_RUNS 11
#define CHECK_SEEDS 3 /* --check: the judge's first three seeds (declared, outliers, uniform) */ /* profiled calls per shape with --nodes (median per node) */

typedef struct shape_result {
	int bind;
	double ms, iqr_ms, bytes, flops;
	int n, stable;
	int nnodes;
	int nerr; /* --check: outputs in errs */
	kj_base_err errs[8];
	double *node_ms; /* owned; NULL unless --nodes */
	char (*node_out)[64]; /* each node's output, "f32[8, 16]"; owned */
} shape_result;

/* Median time of each node over NODE_RUNS profiled calls (L2 flushed before
 * each), and each node's output type for the table. */
static int profile_nodes(const kj_task *t, const kj_plan *p, kj_gpu_exec *x, shape_result *r,
			 struct kj_err *err)
{
	int nn = t->nnodes, rc = 0;
	double *runs = malloc((size_t)NODE_RUNS * (size_t)(nn + 1) * sizeof(double));
	double col[NODE_RUNS], iqr;
	int stable;
	r->node_ms = calloc((size_t)nn + 1, sizeof(double));
	r->node_out = calloc((size_t)nn + 1, sizeof(*r->node_out));
	if (!runs || !r->node_ms || !r->node_out) {
		free(runs);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	r->nnodes = nn;
	for (int k = 0; k < NODE_RUNS && !rc; k++)
		rc = kj_gpu_exec_profile(x, 1, runs + (size_t)k * (size_t)(nn + 1), err);
	for (int n = 0; n < nn && !rc; n++) {
		char sh[48];
		for (int k = 0; k < NODE_RUNS; k++)
			col[k] = runs[(size_t)k * (size_t)(nn + 1) + (size_t)n];
		kj_timing_summary(col, NODE_RUNS, &r->node_ms[n], &iqr, &stable);
		snprintf(r->node_out[n], sizeof(r->node_out[n]), "%s%s",
			 kj_dtype_name(p->nodes[n].out.dtype), kj_shape_str(&p->nodes[n].out.shape, sh, sizeof(sh)));
	}
	free(runs);
	return rc;
}

static void shape_result_release(shape_result *r)
{
	free(r->node_ms);
	free(r->node_out);
	r->node_ms = NULL;
	r->node_out = NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Inputs and params as the judge generates them for seed 0: tensor ids count
 * the non-output values in ABI order. */
static int gen_inputs(kj_gpu *g, const kj_task *t, const kj_plan *p, kj_gpu_exec *x,
		      struct kj_err *err)
{
	int abi[64], nabi = kj_task_abi_values(t, abi, 64), rc;
	uint64_t seed = kj_seed_for(BASE_SEED, 0);
	uint32_t tensor_id = 0;
	if (nabi > 64)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: more than 64 tensors", t->id);
	for (int i = 0; i < nabi; i++) {
		int vi = abi[i];
		size_t n = (size_t)kj_shape_numel(&p->vals[vi].shape);
		if (t->vals[vi].kind == KJ_V_OUTPUT)
			continue;
		rc = kj_gpu_gen(g, kj_gpu_exec_buf(x, vi), p->vals[vi].dtype, n, &p->dists[vi], NULL, seed,
				tensor_id++, err);
		if (rc)
			return rc;
	}
	return kj_gpu_sync(g, err);
}

/* Times the baseline on binding `bind`: one warm-up call, then samples until
 * the median is stable or budget_s has passed (at least MIN_SAMPLES). */
static int time_shape(kj_gpu *g, const kj_task *t, int bind, double budget_s, int nodes,
		      shape_result *r, struct kj_err *err)
{
	kj_plan p;
	kj_gpu_exec *x = NULL;
	double *samples = malloc(MAX_SAMPLES * sizeof(double)), *tmp = malloc(MAX_SAMPLES * sizeof(double));
	double t0, ms, med, iqr;
	int rc, ns = 0, stable = 0;
	memset(r, 0, sizeof(*r));
	r->bind = bind;
	if (!samples || !tmp) {
		free(samples);
		free(tmp);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	if ((rc = kj_plan_build(t, bind, &p, err))) {
		free(samples);
		free(tmp);
		return rc;
	}
	r->bytes = p.min_bytes;
	r->flops = p.flops;
	if ((rc = kj_gpu_exec_init(g, &p, 0, &x, err)) || (rc = gen_inputs(g, t, &p, x, err)) ||
	    (rc = kj_gpu_time_exec(g, x, 1, &ms, err)))
		goto out;
	t0 = now_s();
	while (ns < MAX_SAMPLES) {
		if ((rc = kj_gpu_time_exec(g, x, 1, &ms, err)))
			goto out;
		samples[ns++] = ms;
		if (ns >= MIN_SAMPLES) {
			memcpy(tmp, samples, (size_t)ns * sizeof(double));
			kj_timing_summary(tmp, ns, &med, &iqr, &stable);
			if (stable || now_s() - t0 > budget_s)
				break;
		}
	}
	kj_timing_summary(samples, ns, &r->ms, &r->iqr_ms, &r->stable);
	r->n = ns;
	if (nodes)
		rc = profile_nodes(t, &p, x, r, err);
out:
	if (x)
		kj_gpu_exec_free(x);
	kj_plan_release(&p);
	free(samples);
	free(tmp);
	return rc;
}

static json_t *result_json(const kj_task *t, const shape_result *r)
{
	json_t *o = json_object(), *dims = json_object();
	const kj_binding *b = &t->binds[r->bind];
	for (int i = 0; i < t->nsyms; i++)
		json_object_set_new(dims, t->syms[i], json_integer((json_int_t)b->val[i]));
	json_object_set_new(o, "dims", dims);
	json_object_set_new(o, "weight", json_real(b->weight));
	json_object_set_new(o, "ms", json_real(r->ms));
	json_object_set_new(o, "iqr_ms", json_real(r->iqr_ms));
	json_object_set_new(o, "n", json_integer(r->n));
	json_object_set_new(o, "stable", json_boolean(r->stable));
	json_object_set_new(o, "bytes", json_real(r->bytes));
	json_object_set_new(o, "flops", json_real(r->flops));
	json_object_set_new(o, "gbs", json_real(r->ms > 0 ? r->bytes / (r->ms * 1e-3) / 1e9 : 0));
	json_object_set_new(o, "tflops", json_real(r->ms > 0 ? r->flops / (r->ms * 1e-3) / 1e12 : 0));
	if (r->nerr) {
		json_t *arr = json_array();
		for (int i = 0; i < r->nerr; i++) {
			const kj_base_err *e = &r->errs[i];
			json_t *x = json_object();
			json_object_set_new(x, "output", json_string(e->output));
			json_object_set_new(x, "seeds", json_integer(e->seeds));
			json_object_set_new(x, "elements", json_integer(e->n));
			json_object_set_new(x, "outside_tolerance", json_integer(e->nbad));
			json_object_set_new(x, "max_abs_err", json_real(e->max_abs));
			json_object_set_new(x, "max_rel_err", json_real(e->max_rel));
			if (t->tol.has_metric) {
				json_object_set_new(x, "cosine", json_real(e->cos));
				json_object_set_new(x, "l1", json_real(e->l1));
				json_object_set_new(x, "rmse", json_real(e->rmse));
			}
			json_object_set_new(x, "pass", json_boolean(e->pass));
			json_object_set_new(x, "declared_pass", json_boolean(e->declared_pass));
			json_object_set_new(x, "budget_metric", json_string(e->budget_metric));
			json_object_set_new(x, "tol_ratio", isfinite(e->tol_ratio) ? json_real(e->tol_ratio) :
						 json_string(isnan(e->tol_ratio) ? "nan" : "inf"));
			{
				json_t *fs = json_array(), *os = json_array();
				for (int k = 0; k < e->seeds && k < 32; k++) {
					const char *fl = kj_seed_flavour_name(kj_seed_flavour_for(k));
					if (e->failed & (1u << k))
						json_array_append_new(fs, json_string(fl));
					if (e->over & (1u << k))
						json_array_append_new(os, json_string(fl));
				}
				json_object_set_new(x, "failed_seeds", fs);
				json_object_set_new(x, "over_tolerance_seeds", os);
			}
			json_array_append_new(arr, x);
		}
		json_object_set_new(o, "check", arr);
	}
	if (r->node_ms) {
		json_t *arr = json_array();
		for (int n = 0; n < r->nnodes; n++) {
			json_t *e = json_object();
			json_object_set_new(e, "op", json_string(t->nodes[n].op->name));
			json_object_set_new(e, "line", json_integer(t->nodes[n].loc.line));
			json_object_set_new(e, "out", json_string(r->node_out[n]));
			json_object_set_new(e, "ms", json_real(r->node_ms[n]));
			json_array_append_new(arr, e);
		}
		json_object_set_new(o, "nodes", arr);
	}
	return o;
}

static void print_row(const kj_task *t, const shape_result *r)
{
	char bs[256];
	double s = r->ms * 1e-3;
	kj_binding_str(t, &t->binds[r->bind], bs, sizeof(bs));
	printf("%-32s %6.2f %10.4f %9.4f %5d %9.1f %9.2f%s\n", bs, t->binds[r->bind].weight, r->ms,
	       r->iqr_ms, r->n, s > 0 ? r->bytes / s / 1e9 : 0.0, s > 0 ? r->flops / s / 1e12 : 0.0,
	       r->stable ? "" : "  (unstable)");
	for (int i = 0; i < r->nerr; i++) {
		const kj_base_err *e = &r->errs[i];
		printf("    %-12s vs fp64 over %d seeds: max abs %.3g, max rel %.3g, at most %lld of %lld outside tolerance",
		       e->output, e->seeds, e->max_abs, e->max_rel, (long long)e->nbad, (long long)e->n);
		if (t->tol.has_metric)
			printf(", cosine %.9f, l1 %.3g, rmse %.3g", e->cos, e->l1, e->rmse);
		if (!e->pass) {
			printf(": FAILS even with the error budget (a NaN/Inf disagreement, or an exact output) on seed");
			for (int k = 0; k < e->seeds && k < 32; k++)
				if (e->failed & (1u << k))
					printf(" %d (%s)", k, kj_seed_flavour_name(kj_seed_flavour_for(k)));
		} else if (!e->declared_pass) {
			printf(": ok within the error budget only: the declared tolerance is exceeded (%s %.3gx) on seed",
			       e->budget_metric, e->tol_ratio);
			for (int k = 0; k < e->seeds && k < 32; k++)
				if (e->over & (1u << k))
					printf(" %d (%s)", k, kj_seed_flavour_name(kj_seed_flavour_for(k)));
			printf("; candidates get max(1, %g x the baseline's) there", KJ_BUDGET_MULT);
		} else {
			printf(": ok");
		}
		printf("\n");
	}
	for (int n = 0; r->node_ms && n < r->nnodes; n++) {
		double sum = 0;
		for (int k = 0; k < r->nnodes; k++)
			sum += r->node_ms[k];
		printf("    line %-4d %-24s %-30s %10.4f %5.1f%%\n", t->nodes[n].loc.line, t->nodes[n].op->name,
		       r->node_out[n], r->node_ms[n], sum > 0 ? 100.0 * r->node_ms[n] / sum : 0.0);
	}
}

/* --knobs: the table of knobs with their values in this environment.
 * Returns KJ_EXIT_OK, or KJ_EXIT_FAIL when a knob's value is not allowed
 * (each such knob named on stderr). */
static int list_knobs(int json)
{
	char key[KJ_KNOBS_KEY_MAX], v[64];
	json_t *o = json ? json_object() : NULL, *arr = json ? json_array() : NULL;
	int bad = 0;
	struct kj_err err;
	if (!json)
		printf("%-17s %-4s %-8s %-21s %-8s %s\n", "knob", "kind", "changes", "allowed", "default",
		       "value");
	for (int i = 0; i < kj_knob_count(); i++) {
		const kj_knob *k = kj_knob_at(i);
		const char *env = getenv(k->name);
		char allowed[64], def[32];
		int is_def = 1, rc;
		kj_err_init(&err);
		rc = kj_knob_value(k, v, sizeof(v), &is_def, &err);
		if (rc) {
			fprintf(stderr, "kjudge baseline: %s\n", err.msg);
			bad = 1;
		}
		if (k->kind == KJ_KNOB_INT) {
			snprintf(allowed, sizeof(allowed), "%lld..%lld", (long long)k->lo, (long long)k->hi);
			snprintf(def, sizeof(def), "%lld", (long long)k->def);
		} else {
			snprintf(allowed, sizeof(allowed), "%s", k->values);
			snprintf(def, sizeof(def), "%s", k->sdef);
		}
		if (!json) {
			printf("%-17s %-4s %-8s %-21s %-8s %s%s\n", k->name, k->kind == KJ_KNOB_INT ? "int" : "str",
			       kj_knob_effect_name(k->effect), allowed, def, rc ? env : v,
			       rc ? "  (NOT ALLOWED)" : is_def ? "" : "  (set)");
			printf("    %s\n", k->about);
			continue;
		}
		json_t *e = json_object();
		json_object_set_new(e, "name", json_string(k->name));
		json_object_set_new(e, "kind", json_string(k->kind == KJ_KNOB_INT ? "int" : "string"));
		json_object_set_new(e, "changes", json_string(kj_knob_effect_name(k->effect)));
		if (k->kind == KJ_KNOB_INT) {
			json_object_set_new(e, "default", json_integer((json_int_t)k->def));
			json_object_set_new(e, "min", json_integer((json_int_t)k->lo));
			json_object_set_new(e, "max", json_integer((json_int_t)k->hi));
		} else {
			json_t *vals = json_array();
			for (const char *p = k->values; *p;) {
				size_t n = strcspn(p, ",");
				json_array_append_new(vals, json_stringn(p, n));
				p += n + (p[n] == ',');
			}
			json_object_set_new(e, "default", json_string(k->sdef));
			json_object_set_new(e, "values", vals);
		}
		/* the environment's text when not allowed (it may be anything) */
		if (rc)
			json_object_set_new(e, "value", kj_cli_json_string(env));
		else if (k->kind == KJ_KNOB_INT)
			json_object_set_new(e, "value", json_integer((json_int_t)strtoll(v, NULL, 10)));
		else
			json_object_set_new(e, "value", json_string(v));
		json_object_set_new(e, "set", json_boolean(!rc && !is_def));
		json_object_set_new(e, "error", rc ? kj_cli_json_string(err.msg) : json_null());
		json_object_set_new(e, "about", json_string(k->about));
		json_array_append_new(arr, e);
	}
	kj_err_init(&err);
	if (kj_knobs_key(key, sizeof(key), &err))
		key[0] = 0;
	if (json) {
		char *s;
		json_object_set_new(o, "knobs", arr);
		json_object_set_new(o, "key", bad ? json_null() : json_string(key));
		s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else if (!bad) {
		printf("key: %s\n", *key ? key : "(empty: every knob that changes the baseline at its default)");
	}
	return bad ? KJ_EXIT_FAIL : KJ_EXIT_OK;
}

static const char help[] =
	"usage: kjudge baseline TASK... [--json] [--nodes] [--check] [--device N] [--budget S]\n"
	"       kjudge baseline --knobs [--json]\n\n"
	"Times the CUDA eager baseline (one kernel or library call per op, the task's\n"
	"dtypes) on each GPU bench shape of TASK, as the judge does: inputs of seed 0,\n"
	"one warm-up call, then CUDA events around every call with the L2 flushed\n"
	"before it, repeated until the median's 95% confidence half-width is within\n"
	"0.5% (at least 10 samples) or the budget is spent.  Prints per shape the\n"
	"median and IQR in ms, the sample count, the achieved GB/s (compulsory bytes /\n"
	"time) and TFLOP/s.  Several TASKs are timed one after another in one process\n"
	"(one CUDA context: bench/baseline_vs_torch.py times the suite so); a TASK\n"
	"that cannot be loaded or timed is reported and the others still run.\n\n"
	"  --json       print one JSON object: task, device, shapes[] with dims, weight,\n"
	"               ms, iqr_ms, n, stable, bytes, flops, gbs, tflops; with several\n"
	"               TASKs one object per TASK, in order, one after another, and\n"
	"               for a TASK that failed {task, error} instead\n"
	"  --nodes      also time each node (op) of the baseline: the median over 11\n"
	"               calls with CUDA events between nodes, L2 flushed before each\n"
	"               call; printed under the shape (JSON: nodes[] with op, line,\n"
	"               out, ms) to show which op makes a baseline slow\n"
	"  --check      also judge the baseline's outputs on each shape against the fp64\n"
	"               GPU reference, as a candidate's are judged (the task's\n"
	"               tolerance or metrics, with the error budget: the larger of\n"
	"               the declared limit and KJ_BUDGET_MULT times the baseline's\n"
	"               own error), on the judge's first three seeds (declared\n"
	"               inputs, outliers, uniform): largest errors, the most elements\n"
	"               outside tolerance, whether a candidate doing this arithmetic\n"
	"               would pass (only NaN/Inf disagreements and errors in exact\n"
	"               outputs fail), and where the declared tolerance is exceeded\n"
	"               so that the budget governs (JSON: budget_mult; check[] with\n"
	"               output, seeds, elements, outside_tolerance, max_abs_err,\n"
	"               max_rel_err, cosine/l1/rmse for metric tasks, pass,\n"
	"               declared_pass, budget_metric, tol_ratio (the baseline's\n"
	"               distance over the declared limit, worst seed), failed_seeds,\n"
	"               over_tolerance_seeds: the flavours of those seeds)\n"
	"  --knobs      list the baseline's tuning knobs (KJ_* environment variables,\n"
	"               docs/baseline.md) instead: name, kind, what a value other\n"
	"               than the default changes (results, timing, or a log line\n"
	"               only), allowed values, default, the value here, and the\n"
	"               key the knobs set add to the baseline-timing cache key\n"
	"               (JSON: knobs[] with name, kind, changes, default, min/max\n"
	"               or values, value, set, error, about; key); no GPU needed;\n"
	"               exit 1 when a knob's value is not allowed\n"
	"  --device N   CUDA device (default 0)\n"
	"  --budget S   timing budget per shape in seconds (default 2)\n\n"
	"exit status: 0 ok, 1 --check found an output a candidate doing the eager\n"
	"arithmetic would fail, 2 usage error (or the first TASK cannot be loaded), 3 no\n"
	"GPU or a baseline failed (or, with several TASKs, a later one cannot be loaded)";

/* Times (and with check, judges) the baseline of task t on each of its GPU
 * bench shapes and prints the table or the JSON object.  *failed is set when
 * --check found an output a candidate doing this arithmetic would fail.
 * Returns 0, or the error's code with the message printed to stderr (and,
 * with json and several TASKs, an object {task, error} on stdout). */
static int baseline_task(kj_gpu *g, kj_task *t, int json, int several, int nodes, int check,
			 double budget, int *failed)
{
	int nres = 0, rc = 0, loosened = 0, nchecked = 0;
	shape_result *res;
	struct kj_err err;

	kj_err_init(&err);
	res = calloc((size_t)(t->nbind > 0 ? t->nbind : 1), sizeof(*res));
	if (!res) {
		fprintf(stderr, "kjudge baseline: out of memory\n");
		return KJ_E_NOMEM;
	}
	if (!json) {
		printf("task    %s\ndevice  %s\n", t->id, kj_gpu_get_info(g)->name);
		printf("%-32s %6s %10s %9s %5s %9s %9s\n", "shape", "weight", "ms", "iqr_ms", "n", "GB/s",
		       "TFLOP/s");
	}
	for (int b = 0; b < t->nbind && !rc; b++) {
		if (t->binds[b].bench != 1)
			continue;
		rc = time_shape(g, t, b, budget, nodes, &res[nres], &err);
		if (!rc && check) {
			rc = kj_gpu_baseline_error(g, t, b, BASE_SEED, CHECK_SEEDS, res[nres].errs, 8,
						   &res[nres].nerr, &err);
			for (int i = 0; !rc && i < res[nres].nerr; i++) {
				*failed |= !res[nres].errs[i].pass;
				loosened += res[nres].errs[i].pass && !res[nres].errs[i].declared_pass;
				nchecked++;
			}
		}
		if (!rc && !json)
			print_row(t, &res[nres]);
		if (!rc)
			nres++;
	}
	if (rc) {
		char bs[256];
		kj_binding_str(t, &t->binds[res[nres].bind], bs, sizeof(bs));
		fprintf(stderr, "kjudge baseline: %s on %s: %s\n", t->id, bs, err.msg);
		if (json && several) {
			char msg[sizeof(bs) + KJ_ERR_MSG + 8];
			json_t *o = json_object();
			char *js;
			snprintf(msg, sizeof(msg), "on %s: %s", bs, err.msg);
			json_object_set_new(o, "task", json_string(t->id));
			json_object_set_new(o, "error", kj_cli_json_string(msg));
			js = json_dumps(o, JSON_PRESERVE_ORDER);
			puts(js ? js : "{}");
			free(js);
			json_decref(o);
		}
	} else if (json) {
		json_t *o = json_object(), *arr = json_array();
		char *s;
		json_object_set_new(o, "task", json_string(t->id));
		json_object_set_new(o, "device", json_string(kj_gpu_get_info(g)->name));
		json_object_set_new(o, "budget_s", json_real(budget));
		if (check) {
			json_object_set_new(o, "budget_mult", json_real(KJ_BUDGET_MULT));
			json_object_set_new(o, "budget_governs", json_integer(loosened));
		}
		for (int i = 0; i < nres; i++)
			json_array_append_new(arr, result_json(t, &res[i]));
		json_object_set_new(o, "shapes", arr);
		s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else if (nres == 0) {
		printf("(no GPU bench shapes)\n");
	} else if (check) {
		printf("error budget (x%g): the declared tolerance is exceeded, and the budget governs, on %d of %d "
		       "shape outputs\n", KJ_BUDGET_MULT, loosened, nchecked);
	}
	fflush(stdout);
	for (int i = 0; i <= nres && i < t->nbind; i++)
		shape_result_release(&res[i]);
	free(res);
	return rc;
}

int cmd_baseline(int argc, char **argv)
{
	static const struct option lo[] = { { "json", 0, 0, 'j' },   { "device", 1, 0, 'd' },
					    { "budget", 1, 0, 'b' }, { "help", 0, 0, 'h' },
					    { "nodes", 0, 0, 'n' },   { "check", 0, 0, 'c' },
					    { "knobs", 0, 0, 'k' },   { 0, 0, 0, 0 } };
	int c, json = 0, dev = 0, rc = 0, nodes = 0, check = 0, failed = 0, knobs = 0, several;
	double budget = 2.0;
	char *end;
	long lv;
	kj_task *t;
	kj_gpu *g;
	struct kj_err err;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'n':
			nodes = 1;
			break;
		case 'c':
			check = 1;
			break;
		case 'k':
			knobs = 1;
			break;
		case 'd':
			lv = strtol(optarg, &end, 10);
			if (*end || end == optarg || lv < 0 || lv > 1024)
				return kj_cli_usage_error("baseline", "--device wants a device number, got '%s'", optarg);
			dev = (int)lv;
			break;
		case 'b':
			budget = strtod(optarg, &end);
			if (*end || end == optarg || !(budget > 0) || budget > 3600)
				return kj_cli_usage_error("baseline", "--budget wants seconds in (0, 3600], got '%s'",
							  optarg);
			break;
		case 'h':
			puts(help);
			return KJ_EXIT_OK;
		default:
			return kj_cli_usage_error("baseline", "unknown option");
		}
	}
	if (knobs) {
		if (optind != argc)
			return kj_cli_usage_error("baseline", "--knobs takes no TASK");
		return list_knobs(json);
	}
	if (optind >= argc)
		return kj_cli_usage_error("baseline", "expected a TASK");
	kj_err_init(&err);
	if (kj_cli_load_task(argv[optind], &t, &err)) {
		fprintf(stderr, "kjudge baseline: %s\n", err.msg);
		return kj_cli_task_exit(err.code);
	}
	if (!kj_gpu_available()) {
		fprintf(stderr, "kjudge baseline: no CUDA device (or kjudge was built without CUDA)\n");
		kj_task_free(t);
		return KJ_EXIT_JUDGE;
	}
	if (kj_gpu_open(dev, &g, &err)) {
		fprintf(stderr, "kjudge baseline: %s\n", err.msg);
		kj_task_free(t);
		return KJ_EXIT_JUDGE;
	}
	several = argc - optind > 1;
	for (int a = optind; a < argc; a++) {
		if (a > optind) {
			kj_err_init(&err);
			if (kj_cli_load_task(argv[a], &t, &err)) {
				fprintf(stderr, "kjudge baseline: %s\n", err.msg);
				if (json) {
					json_t *o = json_object();
					char *js;
					json_object_set_new(o, "task", kj_cli_json_string(argv[a]));
					json_object_set_new(o, "error", kj_cli_json_string(err.msg));
					js = json_dumps(o, JSON_PRESERVE_ORDER);
					puts(js ? js : "{}");
					free(js);
					json_decref(o);
				}
				rc = 1;
				continue;
			}
		}
		if (!json && a > optind)
			putchar('\n');
		if (baseline_task(g, t, json, several, nodes, check, budget, &failed))
			rc = 1;
		kj_task_free(t);
		t = NULL;
	}
	kj_gpu_close(g);
	return rc ? KJ_EXIT_JUDGE : failed ? KJ_EXIT_FAIL : KJ_EXIT_OK;
}
