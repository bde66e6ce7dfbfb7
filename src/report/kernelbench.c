/*
 * KernelBench's view of a run (`kjudge report --kernelbench`): one row per
 * candidate with KernelBench's own fields (level, problem id and name,
 * compiled, correctness, runtime and ref runtime in ms, speedup) beside
 * kjudge's (task, model, sample, round, status, stage, flags), so that a
 * run's results can be read, or compared, as KernelBench's per-problem
 * results.  The problem comes from the task's `about` line, which names the
 * KernelBench problem a task mirrors ("(KernelBench L1 #19_ReLU)").
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

int kj_kernelbench_origin(const char *about, struct kj_kb_origin *o)
{
	static const char tag[] = "KernelBench L";
	const char *p = about;
	memset(o, 0, sizeof(*o));
	while (p && (p = strstr(p, tag))) {
		const char *q = p + sizeof(tag) - 1;
		char *end;
		long level, num;
		size_t n;
		p = q;
		if (!isdigit((unsigned char)*q))
			continue;
		level = strtol(q, &end, 10);
		if (end[0] != ' ' || end[1] != '#' || !isdigit((unsigned char)end[2]))
			continue;
		q = end + 2;
		num = strtol(q, &end, 10);
		if (level < 1 || level > 99 || num < 1 || num > 100000)
			continue;
		/* the problem's file stem: "19_ReLU" (KernelBench's 19_ReLU.py) */
		n = strcspn(q, " \t),;");
		if (n >= sizeof(o->name))
			n = sizeof(o->name) - 1;
		memcpy(o->name, q, n);
		o->name[n] = '\0';
		o->level = (int)level;
		o->problem = (int)num;
		return 1;
	}
	return 0;
}

const char *kjr_kb_cell(char *buf, size_t size, const struct kj_kb_origin *o)
{
	if (o && o->level)
		snprintf(buf, size, "L%d #%s", o->level, o->name);
	else
		snprintf(buf, size, "-");
	return buf;
}

/* KernelBench times one shape; a kjudge task has several, weighted.  The
 * candidate's and the baseline's times are their weighted geometric means
 * over the timed bench shapes, so that ref / runtime is the weighted
 * geometric mean of the shapes' speedups, as kjudge's task speedup is. */
static void times(const struct kj_score_cand *c, double *rt, double *ref)
{
	double w, wsum = 0, lc = 0, lb = 0;
	int equal = 1;
	*rt = *ref = NAN;
	if (!c->correct)
		return;
	for (int i = 0; i < c->nshapes; i++)
		if (isfinite(c->shapes[i].weight) && c->shapes[i].weight > 0)
			equal = 0;
	for (int i = 0; i < c->nshapes; i++) {
		const struct kj_score_shape *s = &c->shapes[i];
		if (!(s->ms > 0) || !(s->speedup > 0) || !isfinite(s->ms) || !isfinite(s->speedup))
			continue;
		w = equal ? 1 : isfinite(s->weight) && s->weight > 0 ? s->weight : 0;
		if (w == 0)
			continue;
		wsum += w;
		lc += w * log(s->ms);
		lb += w * log(s->ms * s->speedup);
	}
	if (wsum > 0) {
		*rt = exp(lc / wsum);
		*ref = exp(lb / wsum);
	}
}

static const char *num(char *buf, size_t size, double x, const char *none)
{
	if (!isfinite(x))
		snprintf(buf, size, "%s", none);
	else
		snprintf(buf, size, "%.6g", x);
	return buf;
}

static const char *yes(int judged, int v)
{
	return !judged ? "" : v ? "true" : "false";
}

static json_t *jnum(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static int render_json(const kj_score_run *r, struct kjr_buf *b)
{
	json_t *o = json_object(), *rows = json_array();
	char *text;
	if (!o || !rows) {
		json_decref(o);
		json_decref(rows);
		b->oom = 1;
		return 0;
	}
	json_object_set_new(o, "schema", json_string("kjudge.kernelbench/1"));
	json_object_set_new(o, "run", json_string(r->name));
	json_object_set_new(o, "backend", json_string(r->backend));
	json_object_set_new(o, "rows", rows);
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		const struct kj_kb_origin *k = &c->kb;
		double rt, ref;
		json_t *x = json_object();
		times(c, &rt, &ref);
		if (!x || json_array_append_new(rows, x)) {
			b->oom = 1;
			break;
		}
		json_object_set_new(x, "level", k->level ? json_integer(k->level) : json_null());
		json_object_set_new(x, "problem_id", k->level ? json_integer(k->problem) : json_null());
		json_object_set_new(x, "problem_name", k->level ? json_string(k->name) : json_null());
		json_object_set_new(x, "sample_id", json_integer(c->sample));
		json_object_set_new(x, "compiled", c->judged ? json_boolean(c->compiled) : json_null());
		json_object_set_new(x, "correctness", c->judged ? json_boolean(c->correct) : json_null());
		json_object_set_new(x, "runtime", jnum(rt));
		json_object_set_new(x, "ref_runtime", jnum(ref));
		json_object_set_new(x, "speedup", c->correct ? jnum(c->speedup) : json_null());
		json_object_set_new(x, "task", json_string(c->task));
		json_object_set_new(x, "model", json_string(c->model));
		json_object_set_new(x, "round", json_integer(c->round));
		json_object_set_new(x, "status", json_string(c->judged ? c->status : "pending"));
		json_object_set_new(x, "stage", json_string(c->stage));
		json_object_set_new(x, "flags", json_string(c->flags));
	}
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	json_decref(o);
	if (!text) {
		b->oom = 1;
		return 0;
	}
	kjr_puts(b, text);
	kjr_puts(b, "\n");
	free(text);
	return 0;
}

int kj_report_kernelbench(const kj_score_run *r, enum kj_report_format f, char **out, struct kj_err *err)
{
	static const char *const cols[] = { "level", "problem_id", "problem_name", "sample_id", "compiled",
					    "correctness", "runtime_ms", "ref_runtime_ms", "speedup", "task",
					    "model", "round", "status", "stage", "flags" };
	const int nc = (int)(sizeof(cols) / sizeof(cols[0]));
	struct kjr_buf b = { 0 };
	*out = NULL;
	if (f == KJ_REPORT_HTML)
		return kj_err_set(err, KJ_E_USAGE, "--kernelbench prints md, json or csv, not html");
	if (f == KJ_REPORT_JSON) {
		render_json(r, &b);
		return kjr_finish(&b, out, err);
	}
	if (f == KJ_REPORT_MD) {
		kjr_printf(&b, "# Run %s: KernelBench's per-problem results\n\n", r->name);
		kjr_puts(&b, "KernelBench problem from each task's `about`; runtime and ref runtime (ms) are the\n"
			     "weighted geometric means over the task's timed bench shapes; speedup is kjudge's.\n\n");
		kjr_puts(&b, "| level | problem | sample | compiled | correctness | runtime (ms) | ref runtime (ms) "
			     "| speedup | task | model | round | status | flags |\n");
		kjr_puts(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	} else {
		for (int i = 0; i < nc; i++)
			kjr_csv_field(&b, cols[i], i == nc - 1);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		const struct kj_kb_origin *k = &c->kb;
		char lv[16] = "", id[16] = "", smp[16], rnd[16], t[3][48];
		double rt, ref;
		times(c, &rt, &ref);
		if (k->level) {
			snprintf(lv, sizeof(lv), "%d", k->level);
			snprintf(id, sizeof(id), "%d", k->problem);
		}
		snprintf(smp, sizeof(smp), "%d", c->sample);
		snprintf(rnd, sizeof(rnd), "%d", c->round);
		if (f == KJ_REPORT_MD) {
			kjr_printf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				   k->level ? lv : "-", k->level ? k->name : "-", smp,
				   c->judged ? yes(1, c->compiled) : "-", c->judged ? yes(1, c->correct) : "-",
				   num(t[0], 48, rt, "-"), num(t[1], 48, ref, "-"),
				   num(t[2], 48, c->correct ? c->speedup : NAN, "-"), c->task, c->model, rnd,
				   c->judged ? c->status : "pending", *c->flags ? c->flags : "-");
			continue;
		}
		kjr_csv_field(&b, lv, 0);
		kjr_csv_field(&b, id, 0);
		kjr_csv_field(&b, k->level ? k->name : "", 0);
		kjr_csv_field(&b, smp, 0);
		kjr_csv_field(&b, yes(c->judged, c->compiled), 0);
		kjr_csv_field(&b, yes(c->judged, c->correct), 0);
		kjr_csv_field(&b, num(t[0], 48, rt, ""), 0);
		kjr_csv_field(&b, num(t[1], 48, ref, ""), 0);
		kjr_csv_field(&b, num(t[2], 48, c->correct ? c->speedup : NAN, ""), 0);
		kjr_csv_field(&b, c->task, 0);
		kjr_csv_field(&b, c->model, 0);
		kjr_csv_field(&b, rnd, 0);
		kjr_csv_field(&b, c->judged ? c->status : "pending", 0);
		kjr_csv_field(&b, c->stage, 0);
		kjr_csv_field(&b, c->flags, 1);
	}
	return kjr_finish(&b, out, err);
}
