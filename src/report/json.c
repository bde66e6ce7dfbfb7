/*
 * The kjudge.report/1 JSON object (docs/scores.md), the JSON and text of
 * `kjudge compare`, and the JSONL of `kjudge export-pairs`.  Unknown figures
 * are null, never a made-up zero.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

#define DUMP_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12))

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

/* Sources and reasons may hold any bytes; JSON strings must be UTF-8. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s);
	char *c;
	size_t n;
	if (j)
		return j;
	n = strlen(s);
	c = malloc(n + 1);
	if (!c)
		return json_null();
	for (size_t i = 0; i < n; i++)
		c[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	c[n] = 0;
	j = json_string(c);
	free(c);
	return j;
}

static json_t *fast_p_obj(const double *fp)
{
	json_t *o = json_object();
	for (int p = 0; p < KJ_SCORE_NP; p++)
		json_object_set_new(o, kj_score_p_key[p], num(fp[p]));
	return o;
}

/* A fast_p curve as [{index_name: i + base, "fast_p": {...}}, ...]. */
static json_t *curve(double (*v)[KJ_SCORE_NP], int n, const char *index_name, int base)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++) {
		json_t *e = json_object();
		json_object_set_new(e, index_name, json_integer(i + base));
		json_object_set_new(e, "fast_p", fast_p_obj(v[i]));
		json_array_append_new(a, e);
	}
	return a;
}

/* The fields a group shares with the top level, added to o. */
static void group_fields(json_t *o, const struct kj_score_group *g)
{
	json_object_set_new(o, "tasks", json_integer(g->tasks));
	json_object_set_new(o, "candidates", json_integer(g->candidates));
	json_object_set_new(o, "judged", json_integer(g->judged));
	json_object_set_new(o, "compiled", json_integer(g->compiled));
	json_object_set_new(o, "call_ok", json_integer(g->call_ok));
	json_object_set_new(o, "correct", json_integer(g->correct));
	json_object_set_new(o, "compile_rate", num(g->compile_rate));
	json_object_set_new(o, "call_rate", num(g->call_rate));
	json_object_set_new(o, "correct_rate", num(g->correct_rate));
	json_object_set_new(o, "correct_per_compile", num(g->correct_per_compile));
	json_object_set_new(o, "fast_p", fast_p_obj(g->fast_p));
	json_object_set_new(o, "timed", json_integer(g->timed));
	json_object_set_new(o, "speedup_geomean", num(g->speedup_geomean));
	json_object_set_new(o, "speedup_n", json_integer(g->speedups));
	json_object_set_new(o, "sol_frac_median", num(g->sol_frac_median));
	json_object_set_new(o, "iou_median", num(g->iou_median));
	json_object_set_new(o, "mfu_median", num(g->mfu_median));
	json_object_set_new(o, "s_agg", num(g->s_agg));
	json_object_set_new(o, "fallback_rate", num(g->fallback_rate));
}

static json_t *curve(double (*v)[KJ_SCORE_NP], int n, const char *index_name, int base);

static json_t *groups(const struct kj_score_group *g, int n)
{
	json_t *o = json_object();
	for (int i = 0; i < n; i++) {
		json_t *e = json_object();
		group_fields(e, &g[i]);
		if (g[i].fast_p_at_k)
			json_object_set_new(e, "fast_p_at_k", curve(g[i].fast_p_at_k, g[i].max_k, "k", 1));
		if (g[i].fast_p_at_n)
			json_object_set_new(e, "fast_p_at_n", curve(g[i].fast_p_at_n, g[i].n_rounds, "round", 0));
		json_object_set_new(o, g[i].key, e);
	}
	return o;
}

static json_t *counts(const struct kj_score_count *c, int n)
{
	json_t *o = json_object();
	for (int i = 0; i < n; i++)
		json_object_set_new(o, c[i].name, json_integer(c[i].count));
	return o;
}

static json_t *code_side(const struct kj_score_code_side *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "n", json_integer(c->n));
	json_object_set_new(o, "lines", num(c->lines));
	json_object_set_new(o, "cyclomatic", num(c->cyclomatic));
	json_object_set_new(o, "comment_ratio", num(c->comment_ratio));
	return o;
}

static json_t *roofs(const kj_score_run *r)
{
	json_t *a = json_array();
	for (int i = 0; i < r->nroofs; i++) {
		json_t *o = json_object(), *rates = json_object();
		json_object_set_new(o, "device", text(r->roofs[i].device));
		json_object_set_new(o, "copy_gbs", num(r->roofs[i].copy_gbs));
		for (int k = 0; k < r->roofs[i].nrates; k++)
			json_object_set_new(rates, r->roofs[i].rate_name[k], num(r->roofs[i].rate_tflops[k]));
		json_object_set_new(o, "rates_tflops", rates);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *manifest(const kj_score_run *r, const kj_score_summary *s)
{
	json_t *o = json_object(), *set = json_loads(r->settings, 0, NULL), *devs = json_array();
	json_object_set_new(o, "run", text(r->name));
	json_object_set_new(o, "backend", text(r->backend));
	json_object_set_new(o, "kjudge_version", text(r->version));
	json_object_set_new(o, "created", text(r->created));
	json_object_set_new(o, "first_judged", *r->first_judged ? text(r->first_judged) : json_null());
	json_object_set_new(o, "last_judged", *r->last_judged ? text(r->last_judged) : json_null());
	json_object_set_new(o, "spec", text(r->spec));
	json_object_set_new(o, "settings", json_is_object(set) ? set : (json_decref(set), text(r->settings)));
	json_object_set_new(o, "verdict_settings", json_integer(r->verdict_settings));
	json_object_set_new(o, "timing", json_string(kjr_timing(s)));
	json_object_set_new(o, "timed", json_integer(s->all.timed));
	json_object_set_new(o, "candidates", json_integer(s->all.candidates));
	for (int d = 0; d < r->ndevices; d++) {
		json_t *e = json_object();
		json_object_set_new(e, "name", text(r->devices[d].name));
		json_object_set_new(e, "uuid", text(r->devices[d].uuid));
		json_object_set_new(e, "arch", text(r->devices[d].arch));
		json_object_set_new(e, "verdicts", json_integer(r->devices[d].verdicts));
		json_array_append_new(devs, e);
	}
	json_object_set_new(o, "devices", devs);
	{
		const struct kj_score_judge_state *js = &r->js;
		json_t *g = json_object();
		json_object_set_new(o, "verdict_kjudge_version", js->versions ? text(js->version) : json_null());
		json_object_set_new(o, "verdict_kjudge_versions", json_integer(js->versions));
		json_object_set_new(o, "baseline_id", js->baseline_ids ? text(js->baseline_id) : json_null());
		json_object_set_new(o, "baseline_ids", json_integer(js->baseline_ids));
		json_object_set_new(o, "baseline_math", json_pack("{s:i, s:i}", "strict-f32", js->math_strict,
								 "tf32", js->math_tf32));
		json_object_set_new(g, "readings", json_integer(js->readings));
		json_object_set_new(g, "drift", json_integer(js->drift));
		json_object_set_new(g, "drift_first", js->drift ? text(js->drift_why) : json_null());
		json_object_set_new(g, "driver", js->drivers ? text(js->driver) : json_null());
		json_object_set_new(g, "drivers", json_integer(js->drivers));
#define RANGE(k, lo, hi) json_object_set_new(g, k, lo < 0 ? json_null() : json_pack("[ii]", lo, hi))
		RANGE("temp_c", js->temp_min, js->temp_max);
		RANGE("power_limit_w", js->power_limit_min, js->power_limit_max);
		RANGE("app_sm_mhz", js->app_sm_min, js->app_sm_max);
#undef RANGE
		json_object_set_new(o, "gpu_state", g);
	}
	json_object_set_new(o, "store", text(r->db_path));
	json_object_set_new(o, "schema_version", json_integer(r->schema_version));
	return o;
}

/* A comma-separated flag list as a JSON array. */
static json_t *flag_array(const char *flags)
{
	json_t *a = json_array();
	for (const char *p = flags; *p;) {
		size_t l = strcspn(p, ",");
		if (l)
			json_array_append_new(a, json_stringn(p, l));
		p += l;
		if (*p)
			p++;
	}
	return a;
}

static json_t *per_candidate(const kj_score_run *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		json_t *o = json_object(), *sh = json_array();
		json_object_set_new(o, "id", json_integer(c->id));
		json_object_set_new(o, "task", text(c->task));
		json_object_set_new(o, "model", text(c->model));
		json_object_set_new(o, "sample", json_integer(c->sample));
		json_object_set_new(o, "round", json_integer(c->round));
		json_object_set_new(o, "status", text(c->judged ? c->status : "pending"));
		json_object_set_new(o, "stage", text(c->stage));
		json_object_set_new(o, "reason", text(c->reason));
		json_object_set_new(o, "flags", flag_array(c->flags));
		json_object_set_new(o, "timed", json_boolean(isfinite(c->speedup)));
		json_object_set_new(o, "speedup", num(c->speedup));
		json_object_set_new(o, "speedup_lo", num(c->speedup_lo));
		json_object_set_new(o, "speedup_hi", num(c->speedup_hi));
		json_object_set_new(o, "noise_floor", num(c->noise_floor));
		json_object_set_new(o, "rel_iqr", num(isfinite(c->speedup) ? c->rel_iqr : NAN));
		json_object_set_new(o, "baseline_rel_iqr", num(c->base_rel_iqr));
		json_object_set_new(o, "sol_frac", num(c->sol));
		for (int k = 0; k < c->nshapes; k++) {
			json_t *e = json_object();
			json_object_set_new(e, "weight", num(c->shapes[k].weight));
			json_object_set_new(e, "ms", num(c->shapes[k].ms));
			json_object_set_new(e, "iqr_ms", num(c->shapes[k].iqr_ms));
			json_object_set_new(e, "speedup", num(c->shapes[k].speedup));
			json_object_set_new(e, "sol_frac", num(c->shapes[k].sol_frac));
			json_array_append_new(sh, e);
		}
		json_object_set_new(o, "shapes", sh);
		json_object_set_new(o, "sha256", text(c->sha256));
		json_object_set_new(o, "path", text(c->path));
		json_array_append_new(a, o);
	}
	return a;
}

/* {"level", "problem_id", "problem_name"} of the KernelBench problem, or null. */
static json_t *kb_json(const struct kj_kb_origin *k)
{
	json_t *o;
	if (!k || !k->level || !(o = json_object()))
		return json_null();
	json_object_set_new(o, "level", json_integer(k->level));
	json_object_set_new(o, "problem_id", json_integer(k->problem));
	json_object_set_new(o, "problem_name", json_string(k->name));
	return o;
}

static json_t *per_task(const kj_score_run *r)
{
	struct kjr_task_row *t;
	size_t n;
	json_t *a = json_array();
	if (kjr_task_rows(r, &t, &n)) {
		json_decref(a);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "task", text(t[i].task));
		json_object_set_new(o, "level", json_integer(t[i].level));
		json_object_set_new(o, "category", text(t[i].category));
		json_object_set_new(o, "candidates", json_integer(t[i].candidates));
		json_object_set_new(o, "judged", json_integer(t[i].judged));
		json_object_set_new(o, "correct", json_integer(t[i].correct));
		json_object_set_new(o, "timed", json_integer(t[i].timed));
		json_object_set_new(o, "failures", text(t[i].failures));
		json_object_set_new(o, "first_failure", t[i].first_fail ? text(t[i].first_fail->reason)
									 : json_null());
		json_object_set_new(o, "speedup_geomean", num(t[i].speedup));
		json_object_set_new(o, "speedup_min", num(t[i].sp_min));
		json_object_set_new(o, "speedup_max", num(t[i].sp_max));
		json_object_set_new(o, "rel_iqr_max", num(t[i].spread));
		json_object_set_new(o, "sol_frac_median", num(t[i].sol));
		json_object_set_new(o, "flags", flag_array(t[i].flags));
		json_object_set_new(o, "kernelbench", kb_json(t[i].kb));
		json_array_append_new(a, o);
	}
	free(t);
	return a;
}

json_t *kjr_report_json(const kj_score_run *r, const kj_score_summary *s)
{
	json_t *o = json_object(), *ec = json_object(), *fvo = json_object(), *code = json_object();
	json_t *at = json_object(), *pk = json_array(), *pn = json_array();
	const struct kj_score_fvo *f = &s->fvo;
	if (!o || !ec || !fvo || !code || !at || !pk || !pn) {
		json_decref(o), json_decref(ec), json_decref(fvo), json_decref(code);
		json_decref(at), json_decref(pk), json_decref(pn);
		return NULL;
	}
	json_object_set_new(o, "schema", json_string("kjudge.report/1"));
	json_object_set_new(o, "run", text(r->name));
	json_object_set_new(o, "backend", text(r->backend));
	json_object_set_new(o, "created", text(r->created));
	json_object_set_new(o, "manifest", manifest(r, s));
	json_object_set_new(o, "timing", json_string(kjr_timing(s)));
	/* --strict-intervals: fast_p counted speedup_lo > p (docs/scores.md) */
	json_object_set_new(o, "strict_intervals", json_boolean(r->strict_intervals));
	json_object_set_new(o, "no_interval", r->strict_intervals ? json_integer(r->no_interval) : json_null());
	group_fields(o, &s->all);
	json_object_set_new(o, "pending", json_integer(s->pending));
	json_object_set_new(o, "by_level", groups(s->by_level, s->n_level));
	json_object_set_new(o, "by_category", groups(s->by_category, s->n_category));
	json_object_set_new(o, "by_dtype", groups(s->by_dtype, s->n_dtype));
	json_object_set_new(o, "by_model", groups(s->by_model, s->n_model));
	for (int k = 0; k < s->max_k; k++) {
		json_t *e = json_object();
		json_object_set_new(e, "k", json_integer(k + 1));
		json_object_set_new(e, "fast_p", fast_p_obj(s->fast_p_at_k[k]));
		json_array_append_new(pk, e);
	}
	json_object_set_new(o, "fast_p_at_k", pk);
	for (int n = 0; n < s->n_rounds; n++) {
		json_t *e = json_object();
		json_object_set_new(e, "round", json_integer(n));
		json_object_set_new(e, "fast_p", fast_p_obj(s->fast_p_at_n[n]));
		json_array_append_new(pn, e);
	}
	json_object_set_new(o, "fast_p_at_n", pn);
	json_object_set_new(ec, "status", counts(s->status, s->n_status));
	json_object_set_new(ec, "stage", counts(s->stage, s->n_stage));
	json_object_set_new(ec, "pending", json_integer(s->pending));
	json_object_set_new(o, "error_classes", ec);
	json_object_set_new(fvo, "pairs", json_integer(f->pairs));
	json_object_set_new(fvo, "fixes", json_integer(f->fixes));
	json_object_set_new(fvo, "optimisations", json_integer(f->optimisations));
	json_object_set_new(fvo, "regressions", json_integer(f->regressions));
	json_object_set_new(fvo, "unchanged_pass", json_integer(f->unchanged_pass));
	json_object_set_new(fvo, "unchanged_fail", json_integer(f->unchanged_fail));
	json_object_set_new(o, "fix_vs_optimize", fvo);
	json_object_set_new(code, "correct", code_side(&s->code_correct));
	json_object_set_new(code, "incorrect", code_side(&s->code_incorrect));
	json_object_set_new(o, "code_metrics", code);
	json_object_set_new(at, "n", json_integer(s->attribution_n));
	json_object_set_new(at, "category", num(s->attribution_category));
	json_object_set_new(at, "model", num(s->attribution_model));
	json_object_set_new(o, "attribution", at);
	json_object_set_new(o, "roofs", roofs(r));
	json_object_set_new(o, "per_task", per_task(r));
	json_object_set_new(o, "per_candidate", per_candidate(r));
	if (s->weighted) { /* kjudge report --weights: importance-weighted figures */
		const struct kj_score_weighted *w = s->weighted;
		json_t *wo = json_object();
		json_object_set_new(wo, "source", text(w->source));
		json_object_set_new(wo, "items", json_integer(w->items));
		json_object_set_new(wo, "tasks_weighted", json_integer(w->tasks_weighted));
		json_object_set_new(wo, "tasks_unweighted", json_integer(w->tasks_unweighted));
		json_object_set_new(wo, "coverage", num(w->coverage));
		json_object_set_new(wo, "s_agg", num(w->s_agg));
		json_object_set_new(wo, "fast_p", fast_p_obj(w->fast_p));
		json_object_set_new(wo, "correct_rate", num(w->correct_rate));
		json_object_set_new(wo, "speedup_geomean", num(w->speedup_geomean));
		json_object_set_new(o, "weighted", wo);
	}
	return o;
}

static int dump(json_t *o, size_t flags, char **out, struct kj_err *err)
{
	char *t = o ? json_dumps(o, flags) : NULL;
	json_decref(o);
	*out = NULL;
	if (!t)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory writing JSON");
	/* json_dumps' text is freed with free() (jansson's default allocator) */
	*out = t;
	return 0;
}

int kj_report_format_parse(const char *name, enum kj_report_format *f)
{
	if (!strcmp(name, "md") || !strcmp(name, "markdown"))
		*f = KJ_REPORT_MD;
	else if (!strcmp(name, "json"))
		*f = KJ_REPORT_JSON;
	else if (!strcmp(name, "html"))
		*f = KJ_REPORT_HTML;
	else if (!strcmp(name, "csv"))
		*f = KJ_REPORT_CSV;
	else
		return KJ_E_USAGE;
	return 0;
}

int kj_report_render(const kj_score_run *r, const kj_score_summary *s, enum kj_report_format f,
		     char **out, struct kj_err *err)
{
	struct kjr_buf b = { 0 };
	if (f == KJ_REPORT_JSON) {
		char *t;
		int rc = dump(kjr_report_json(r, s), DUMP_FLAGS, &t, err);
		size_t n;
		if (rc)
			return rc;
		/* end with a newline, as every text the tool prints */
		n = strlen(t);
		*out = realloc(t, n + 2);
		if (!*out) {
			free(t);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory writing JSON");
		}
		memcpy(*out + n, "\n", 2);
		return 0;
	}
	if (f == KJ_REPORT_MD)
		kjr_render_md(r, s, &b);
	else if (f == KJ_REPORT_CSV)
		kjr_render_csv(r, s, &b);
	else
		kjr_render_html(r, s, &b);
	return kjr_finish(&b, out, err);
}

/* [lo, hi] of a speedup interval, or null / "-" when unknown */
static json_t *interval_json(double lo, double hi)
{
	json_t *a;
	if (!isfinite(lo) || !isfinite(hi))
		return json_null();
	a = json_array();
	json_array_append_new(a, json_real(lo));
	json_array_append_new(a, json_real(hi));
	return a;
}

static void interval_cell(char *buf, size_t len, double lo, double hi)
{
	if (!isfinite(lo) || !isfinite(hi))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "[%.3f, %.3f]", lo, hi);
}

int kj_report_compare(const kj_score_run *a, const kj_score_run *b,
		      const struct kj_score_compare *c, int json, char **out, struct kj_err *err)
{
	char x[32], y[32], z[32];
	struct kjr_buf t = { 0 };
	if (json) {
		json_t *o = json_object(), *tasks = json_array();
		for (size_t i = 0; i < c->n; i++) {
			json_t *e = json_object();
			json_object_set_new(e, "task", text(c->t[i].task));
			json_object_set_new(e, "matched", json_integer(c->t[i].matched));
			json_object_set_new(e, "both_correct", json_integer(c->t[i].both_correct));
			json_object_set_new(e, "both_timed", json_integer(c->t[i].both_timed));
			json_object_set_new(e, "status_changed", json_integer(c->t[i].status_changed));
			json_object_set_new(e, "speedup_a", num(c->t[i].speedup_a));
			json_object_set_new(e, "speedup_b", num(c->t[i].speedup_b));
			json_object_set_new(e, "ratio", num(c->t[i].ratio));
			json_object_set_new(e, "with_intervals", json_integer(c->t[i].with_intervals));
			json_object_set_new(e, "significant", json_integer(c->t[i].significant));
			json_object_set_new(e, "interval_a", interval_json(c->t[i].lo_a, c->t[i].hi_a));
			json_object_set_new(e, "interval_b", interval_json(c->t[i].lo_b, c->t[i].hi_b));
			json_array_append_new(tasks, e);
		}
		json_object_set_new(o, "schema", json_string("kjudge.compare/1"));
		json_object_set_new(o, "run_a", text(a->name));
		json_object_set_new(o, "run_b", text(b->name));
		json_object_set_new(o, "matched", json_integer(c->matched));
		json_object_set_new(o, "matched_by_sha256", json_integer(c->matched_by_sha));
		json_object_set_new(o, "unmatched_a", json_integer(c->unmatched_a));
		json_object_set_new(o, "unmatched_b", json_integer(c->unmatched_b));
		json_object_set_new(o, "status_changed", json_integer(c->status_changed));
		json_object_set_new(o, "both_correct", json_integer(c->both_correct));
		json_object_set_new(o, "both_timed", json_integer(c->both_timed));
		json_object_set_new(o, "median_ratio", num(c->median_ratio));
		json_object_set_new(o, "worst_ratio", num(c->worst_ratio));
		json_object_set_new(o, "worst_task", c->worst_task ? text(c->worst_task) : json_null());
		json_object_set_new(o, "with_intervals", json_integer(c->with_intervals));
		json_object_set_new(o, "significant", json_integer(c->significant));
		json_object_set_new(o, "tasks", tasks);
		if (dump(o, DUMP_FLAGS, out, err))
			return KJ_E_NOMEM;
		kjr_puts(&t, *out);
		kjr_puts(&t, "\n");
		free(*out);
		return kjr_finish(&t, out, err);
	}
	kjr_printf(&t, "compare %s (a) with %s (b): %d candidates matched (%d by sha256), "
		   "%d only in a, %d only in b, %d changed status; %d correct in both, %d of them "
		   "timed in both%s\n\n",
		   a->name, b->name, c->matched, c->matched_by_sha, c->unmatched_a, c->unmatched_b,
		   c->status_changed, c->both_correct, c->both_timed,
		   c->both_correct && !c->both_timed ? " (timing not measured: no speedups to compare)" : "");
	kjr_puts(&t, "| task | matched | both correct | both timed | speedup a | speedup b | max/min | "
		     "interval a | interval b | significant |\n");
	kjr_puts(&t, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < c->n; i++) {
		char ia[64], ib[64], sg[48];
		interval_cell(ia, sizeof(ia), c->t[i].lo_a, c->t[i].hi_a);
		interval_cell(ib, sizeof(ib), c->t[i].lo_b, c->t[i].hi_b);
		/* significant only where the intervals separate (docs/scores.md) */
		if (!c->t[i].with_intervals)
			snprintf(sg, sizeof(sg), "-");
		else if (c->t[i].with_intervals == 1)
			snprintf(sg, sizeof(sg), "%s", c->t[i].significant ? "yes" : "no");
		else
			snprintf(sg, sizeof(sg), "%d of %d pairs", c->t[i].significant, c->t[i].with_intervals);
		kjr_printf(&t, "| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s |\n", c->t[i].task, c->t[i].matched,
			   c->t[i].both_correct, c->t[i].both_timed,
			   kjr_fmt(x, sizeof(x), c->t[i].speedup_a, 3),
			   kjr_fmt(y, sizeof(y), c->t[i].speedup_b, 3),
			   kjr_fmt(z, sizeof(z), c->t[i].ratio, 3), ia, ib, sg);
	}
	kjr_printf(&t, "\nmedian max/min ratio %s, worst %s%s%s%s\n",
		   kjr_fmt(x, sizeof(x), c->median_ratio, 3), kjr_fmt(y, sizeof(y), c->worst_ratio, 3),
		   c->worst_task ? " (" : "", c->worst_task ? c->worst_task : "", c->worst_task ? ")" : "");
	if (c->with_intervals)
		kjr_printf(&t, "significant changes (speedup intervals that separate): %d of %d pairs timed "
			   "in both with intervals\n", c->significant, c->with_intervals);
	else if (c->both_timed)
		kjr_puts(&t, "significant changes: unknown (the verdicts carry no speedup intervals)\n");
	return kjr_finish(&t, out, err);
}

static json_t *side(const struct kj_score_cand *c)
{
	json_t *o = json_object();
	json_object_set_new(o, "round", json_integer(c->round));
	json_object_set_new(o, "sha", text(c->sha256));
	json_object_set_new(o, "status", text(c->status));
	json_object_set_new(o, "stage", text(c->stage));
	json_object_set_new(o, "reason", text(c->reason));
	json_object_set_new(o, "speedup", num(c->speedup));
	json_object_set_new(o, "source", text(c->source));
	return o;
}

int kj_report_pairs_jsonl(const struct kj_score_pair *p, size_t n, char **out, struct kj_err *err)
{
	struct kjr_buf t = { 0 };
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		char *line;
		json_object_set_new(o, "kind", json_string(p[i].kind == KJ_PAIR_FIX ? "fix" : "speedup"));
		json_object_set_new(o, "task", text(p[i].before->task));
		json_object_set_new(o, "model", text(p[i].before->model));
		json_object_set_new(o, "sample", json_integer(p[i].before->sample));
		json_object_set_new(o, "before", side(p[i].before));
		json_object_set_new(o, "after", side(p[i].after));
		if (dump(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12), &line, err)) {
			kjr_release(&t);
			return KJ_E_NOMEM;
		}
		kjr_puts(&t, line);
		kjr_puts(&t, "\n");
		free(line);
	}
	return kjr_finish(&t, out, err);
}
