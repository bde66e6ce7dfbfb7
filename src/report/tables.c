/*
 * What every format shows the same way: the run's manifest (settings, devices,
 * dates), the per-task rows, the slowest candidates, and one candidate's
 * speedup, spread and reason as table cells; and the CSV of a run, one row
 * per candidate.
 *
 * The spread is not a confidence interval: a verdict carries the median and
 * IQR of each bench shape's times, for the candidate and for the baseline,
 * and nothing more.  The spread cell shows the largest IQR / median over the
 * candidate's shapes, of its own times and of the baseline's, and says so.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

const char *kjr_timing(const kj_score_summary *s)
{
	if (s->all.not_timed)
		return "not measured";
	if (s->all.untimed > 0 || s->all.timed < s->all.correct)
		return "partly measured";
	return "measured";
}

void kjr_trunc(char *dst, size_t size, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t o = 0, chars = 0;
	while (*p) {
		size_t l = 1;
		while ((p[l] & 0xc0) == 0x80)
			l++;
		if (chars == max || o + l + 4 > size)
			break;
		for (size_t k = 0; k < l; k++)
			dst[o++] = p[k] == '\n' || p[k] == '\r' || p[k] == '\t' ? ' ' : (char)p[k];
		p += l;
		chars++;
	}
	if (*p) {
		memcpy(dst + o, "...", 3);
		o += 3;
	}
	dst[o] = 0;
}

const char *kjr_speedup_cell(char *buf, size_t size, const struct kj_score_cand *c)
{
	if (isfinite(c->speedup) && isfinite(c->speedup_lo) && isfinite(c->speedup_hi))
		snprintf(buf, size, "%.3f [%.3f, %.3f]", c->speedup, c->speedup_lo, c->speedup_hi);
	else if (isfinite(c->speedup))
		snprintf(buf, size, "%.3f", c->speedup);
	else if (c->correct)
		snprintf(buf, size, "not timed");
	else
		snprintf(buf, size, "-");
	return buf;
}

const char *kjr_spread_cell(char *buf, size_t size, const struct kj_score_cand *c)
{
	char a[32], b[32];
	if (!isfinite(c->speedup) || !c->nshapes) {
		snprintf(buf, size, "-");
		return buf;
	}
	snprintf(buf, size, "%s / %s", kjr_pct(a, sizeof(a), c->rel_iqr),
		 kjr_pct(b, sizeof(b), c->base_rel_iqr));
	return buf;
}

static void add_flags(char *dst, size_t size, const char *flags)
{
	for (const char *p = flags; *p;) {
		size_t l = strcspn(p, ","), have = strlen(dst);
		int seen = 0;
		for (const char *q = dst; *q;) {
			size_t m = strcspn(q, ",");
			if (m == l && !memcmp(q, p, l))
				seen = 1;
			q += m;
			if (*q)
				q++;
		}
		if (!seen && l && have + l + 2 < size)
			snprintf(dst + have, size - have, "%s%.*s", have ? "," : "", (int)l, p);
		p += l;
		if (*p)
			p++;
	}
}

static int cmp_task(const void *a, const void *b)
{
	const struct kj_score_cand *x = *(const struct kj_score_cand *const *)a;
	const struct kj_score_cand *y = *(const struct kj_score_cand *const *)b;
	int d = strcmp(x->task, y->task);
	return d ? d : (x->id > y->id) - (x->id < y->id);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int kjr_task_rows(const kj_score_run *r, struct kjr_task_row **out, size_t *nout)
{
	const struct kj_score_cand **v = malloc((r->n ? r->n : 1) * sizeof(*v));
	struct kjr_task_row *rows = calloc(r->n ? r->n : 1, sizeof(*rows));
	double *sols = malloc((r->n ? r->n : 1) * sizeof(double));
	size_t n = 0;
	*out = NULL;
	*nout = 0;
	if (!v || !rows || !sols) {
		free(v), free(rows), free(sols);
		return KJ_E_NOMEM;
	}
	for (size_t i = 0; i < r->n; i++)
		v[i] = &r->c[i];
	qsort(v, r->n, sizeof(*v), cmp_task);
	for (size_t i = 0; i < r->n;) {
		struct kjr_task_row *t = &rows[n++];
		struct kj_score_count *st = NULL;
		int nst = 0, nsol = 0;
		double lsum = 0;
		size_t e = i;
		t->task = v[i]->task;
		t->level = v[i]->level;
		t->category = v[i]->category;
		t->kb = &v[i]->kb;
		t->sp_min = t->sp_max = t->speedup = t->spread = t->sol = NAN;
		for (; e < r->n && !strcmp(v[e]->task, t->task); e++) {
			const struct kj_score_cand *c = v[e];
			t->candidates++;
			t->judged += c->judged;
			t->correct += c->correct;
			add_flags(t->flags, sizeof(t->flags), c->flags);
			if (c->judged && !c->correct) {
				int k = 0;
				if (!t->first_fail)
					t->first_fail = c;
				while (k < nst && strcmp(st[k].name, c->status))
					k++;
				if (k == nst) {
					struct kj_score_count *ns = realloc(st, (size_t)(nst + 1) * sizeof(*ns));
					if (!ns) {
						free(st), free(v), free(rows), free(sols);
						return KJ_E_NOMEM;
					}
					st = ns;
					st[nst].name = c->status;
					st[nst++].count = 0;
				}
				st[k].count++;
			}
			if (c->correct && isfinite(c->speedup) && c->speedup > 0) {
				t->timed++;
				lsum += log(c->speedup);
				if (!(c->speedup >= t->sp_min))
					t->sp_min = c->speedup;
				if (!(c->speedup <= t->sp_max))
					t->sp_max = c->speedup;
				if (!(c->rel_iqr <= t->spread))
					t->spread = c->rel_iqr;
			}
			if (c->correct && isfinite(c->sol))
				sols[nsol++] = c->sol;
		}
		if (t->timed)
			t->speedup = exp(lsum / t->timed);
		if (nsol) {
			qsort(sols, (size_t)nsol, sizeof(double), cmp_double);
			t->sol = kj_score_median(sols, (size_t)nsol);
		}
		for (int k = 0; k < nst; k++) {
			size_t have = strlen(t->failures);
			snprintf(t->failures + have, sizeof(t->failures) - have, "%s%s %d", k ? ", " : "",
				 st[k].name, st[k].count);
		}
		free(st);
		i = e;
	}
	free(v), free(sols);
	*out = rows;
	*nout = n;
	return 0;
}

static int cmp_speedup(const void *a, const void *b)
{
	const struct kj_score_cand *x = *(const struct kj_score_cand *const *)a;
	const struct kj_score_cand *y = *(const struct kj_score_cand *const *)b;
	int d = (x->speedup > y->speedup) - (x->speedup < y->speedup);
	return d ? d : (x->id > y->id) - (x->id < y->id);
}

size_t kjr_slowest(const kj_score_run *r, const struct kj_score_cand **out, size_t max)
{
	const struct kj_score_cand **v = malloc((r->n ? r->n : 1) * sizeof(*v));
	size_t n = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->c[i].correct && isfinite(r->c[i].speedup))
			v[n++] = &r->c[i];
	qsort(v, n, sizeof(*v), cmp_speedup);
	if (n > max)
		n = max;
	memcpy(out, v, n * sizeof(*v));
	free(v);
	return n;
}

static void item(struct kjr_item *it, int *n, int max, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void item(struct kjr_item *it, int *n, int max, const char *key, const char *fmt, ...)
{
	va_list ap;
	if (*n >= max)
		return;
	snprintf(it[*n].key, sizeof(it[*n].key), "%s", key);
	va_start(ap, fmt);
	vsnprintf(it[*n].val, sizeof(it[*n].val), fmt, ap);
	va_end(ap);
	(*n)++;
}

/* A setting of the run's settings object as text ("" when absent). */
static const char *setting(json_t *o, const char *key, char *buf, size_t size)
{
	json_t *v = json_object_get(o, key);
	buf[0] = 0;
	if (json_is_string(v))
		snprintf(buf, size, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, size, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, size, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, size, "%s", json_is_true(v) ? "true" : "false");
	return buf;
}

int kjr_manifest(const kj_score_run *r, const kj_score_summary *s, struct kjr_item *it, int max)
{
	json_t *set = json_loads(r->settings, 0, NULL);
	char a[128], b[128];
	int n = 0;
	item(it, &n, max, "run", "%s", r->name);
	item(it, &n, max, "backend", "%s", r->backend);
	item(it, &n, max, "kjudge version", "%s", *r->version ? r->version : "(not recorded)");
	item(it, &n, max, "created", "%s", r->created);
	if (*r->first_judged)
		item(it, &n, max, "judged", "%s to %s", r->first_judged, r->last_judged);
	item(it, &n, max, "spec", "%s", *r->spec ? r->spec : "(not recorded)");
	item(it, &n, max, "candidates", "%d (%d judged, %d pending)", s->all.candidates, s->all.judged,
	     s->pending);
	if (json_is_object(set)) {
		const char *k;
		json_t *v;
		json_object_foreach(set, k, v) {
			if (!strcmp(k, "no_perf"))
				item(it, &n, max, "timing (settings)", "%s",
				     json_is_true(v) ? "off (--no-perf)" : "on");
			else if (!strcmp(k, "timeout") || !strcmp(k, "perf_budget"))
				item(it, &n, max, !strcmp(k, "timeout") ? "call timeout" : "perf budget",
				     "%s s", setting(set, k, a, sizeof(a)));
			else if (strcmp(k, "gpus") || *setting(set, k, a, sizeof(a)))
				item(it, &n, max, k, "%s", setting(set, k, a, sizeof(a)));
		}
	} else {
		item(it, &n, max, "settings", "%s", *r->settings ? r->settings : "(not recorded)");
	}
	json_decref(set);
	if (s->all.not_timed)
		item(it, &n, max, "timing", "not measured: correctness only; fast_p, speedups and SOL "
		     "are not reported");
	else
		item(it, &n, max, "timing", "%s: %d of %d correct candidates timed", kjr_timing(s),
		     s->all.timed, s->all.correct);
	if (r->verdict_settings > 1)
		item(it, &n, max, "verdict settings", "%d different settings among the verdicts (the run "
		     "was resumed or shared with other options)", r->verdict_settings);
	for (int d = 0; d < r->ndevices; d++) {
		const struct kj_score_device *dv = &r->devices[d];
		item(it, &n, max, "device", "%s (%s%s%s): %d verdicts", *dv->name ? dv->name : dv->uuid,
		     dv->uuid, *dv->arch ? ", " : "", dv->arch, dv->verdicts);
	}
	if (r->js.versions)
		item(it, &n, max, "judged by", "kjudge %s%s", r->js.version,
		     r->js.versions > 1 ? " and other versions (the verdicts differ)" : "");
	if (r->js.baseline_ids)
		item(it, &n, max, "baseline", "%s%s", r->js.baseline_id,
		     r->js.baseline_ids > 1 ? " and others (the verdicts' baselines differ)" : "");
	if (r->js.math_tf32)
		item(it, &n, max, "baseline math", "TF32 for %d verdicts (tasks with `tf32 allowed`: their "
		     "speedups are against a TF32 baseline), strict f32 for %d", r->js.math_tf32,
		     r->js.math_strict);
	else if (r->js.math_strict)
		item(it, &n, max, "baseline math", "strict f32 (no TF32) for every verdict");
	if (r->js.readings) {
		item(it, &n, max, "GPU state", "%d verdicts read at start and end: driver %s%s, power limit %d-%d W, "
		     "SM application clock %d-%d MHz, %d-%d C", r->js.readings, r->js.driver,
		     r->js.drivers > 1 ? " (and another)" : "", r->js.power_limit_min, r->js.power_limit_max,
		     r->js.app_sm_min, r->js.app_sm_max, r->js.temp_min, r->js.temp_max);
		if (r->js.drift)
			item(it, &n, max, "GPU drift", "%d verdicts flagged gpu_drift (first: %s): their times "
			     "may not compare", r->js.drift, r->js.drift_why);
		else
			item(it, &n, max, "GPU drift", "none");
	}
	for (int d = 0; d < r->nroofs; d++) {
		const struct kj_score_roof *f = &r->roofs[d];
		size_t o = 0;
		b[0] = 0;
		for (int k = 0; k < f->nrates && o < sizeof(b); k++)
			o += (size_t)snprintf(b + o, sizeof(b) - o, ", %s %.1f TFLOP/s", f->rate_name[k],
					      f->rate_tflops[k]);
		item(it, &n, max, "calibration", "%s: copy %s GB/s%s (measured %s)", f->device,
		     kjr_fmt(a, sizeof(a), f->copy_gbs, 1), b, f->created);
	}
	if (!r->nroofs)
		item(it, &n, max, "calibration", "none (%s)", strcmp(r->backend, "cpu") ?
		     "no calibration stored: no roofline" : "CPU track: no roofline");
	item(it, &n, max, "store", "%s (schema version %d, opened read-only)", r->db_path,
	     r->schema_version);
	return n;
}

/* A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line end. */
void kjr_csv_field(struct kjr_buf *b, const char *s, int last)
{
	if (strpbrk(s, ",\"\r\n")) {
		kjr_puts(b, "\"");
		for (; *s; s++)
			kjr_puts(b, *s == '"' ? "\"\"" : (char[2]){ *s, 0 });
		kjr_puts(b, "\"");
	} else {
		kjr_puts(b, s);
	}
	kjr_puts(b, last ? "\r\n" : ",");
}

static const char *csv_num(char *buf, size_t size, double x)
{
	if (!isfinite(x))
		buf[0] = 0;
	else
		snprintf(buf, size, "%.6g", x);
	return buf;
}

int kjr_render_csv(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b)
{
	static const char *const cols[] = { "run", "candidate_id", "task", "level", "category", "dtype",
					     "model", "method", "sample", "round", "status", "stage",
					     "reason", "flags", "timed", "speedup", "rel_iqr",
					     "baseline_rel_iqr", "sol_frac", "shapes", "judged_at",
					     "sha256", "path" };
	const int nc = (int)(sizeof(cols) / sizeof(cols[0]));
	(void)s;
	for (int i = 0; i < nc; i++)
		kjr_csv_field(b, cols[i], i == nc - 1);
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		char t[16][48];
		snprintf(t[0], 48, "%lld", (long long)c->id);
		snprintf(t[1], 48, "%d", c->level);
		snprintf(t[2], 48, "%d", c->sample);
		snprintf(t[3], 48, "%d", c->round);
		snprintf(t[4], 48, "%d", c->nshapes);
		kjr_csv_field(b, r->name, 0);
		kjr_csv_field(b, t[0], 0);
		kjr_csv_field(b, c->task, 0);
		kjr_csv_field(b, t[1], 0);
		kjr_csv_field(b, c->category, 0);
		kjr_csv_field(b, c->dtype, 0);
		kjr_csv_field(b, c->model, 0);
		kjr_csv_field(b, c->method, 0);
		kjr_csv_field(b, t[2], 0);
		kjr_csv_field(b, t[3], 0);
		kjr_csv_field(b, c->judged ? c->status : "pending", 0);
		kjr_csv_field(b, c->stage, 0);
		kjr_csv_field(b, c->reason, 0);
		kjr_csv_field(b, c->flags, 0);
		kjr_csv_field(b, !c->judged ? "" : isfinite(c->speedup) ? "1" : "0", 0);
		kjr_csv_field(b, csv_num(t[5], 48, c->speedup), 0);
		kjr_csv_field(b, csv_num(t[6], 48, isfinite(c->speedup) ? c->rel_iqr : NAN), 0);
		kjr_csv_field(b, csv_num(t[7], 48, c->base_rel_iqr), 0);
		kjr_csv_field(b, csv_num(t[8], 48, c->sol), 0);
		kjr_csv_field(b, t[4], 0);
		kjr_csv_field(b, c->judged_at, 0);
		kjr_csv_field(b, c->sha256, 0);
		kjr_csv_field(b, c->path, 1);
	}
	return b->oom ? KJ_E_NOMEM : 0;
}
