/*
 * Reads one run from a results store (docs/store.md) through the store's
 * API (kj_store_read_run), on either backend: SQLite or PostgreSQL.  The
 * store is opened read-only (kj_store_open_readonly): a report may run while
 * `kjudge run` writes, and it never changes the database: no migration, no
 * journal mode change; a SQLite store whose folder cannot be written is read
 * as an immutable file.  What a report derives from a verdict's JSON (was
 * the candidate compiled, the baseline's spread) is read here, with
 * jansson, the same for both backends.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/cluster.h"
#include "kjudge/score.h"
#include "kjudge/store.h"
#include "score/score_int.h"

static int has_flag(const char *flags, const char *f)
{
	size_t fl = strlen(f);
	for (const char *p = flags; *p;) {
		size_t l = strcspn(p, ",");
		if (l == fl && !memcmp(p, f, l))
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

/* Whether a verdict's settings (kj_store_cache_key: "seeds=5;perf=0;...")
 * hold the item `item`. */
static int key_has(const char *key, const char *item)
{
	size_t il = strlen(item);
	for (const char *p = key ? key : ""; *p;) {
		size_t l = strcspn(p, ";");
		if (l == il && !memcmp(p, item, l))
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

static struct kj_score_cand *find_cand(kj_score_run *r, int64_t id)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->c[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->c[lo].id == id ? &r->c[lo] : NULL;
}


static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Whether a verdict rejected at the static stage came after a compile (the
 * binary's symbols are checked once it is built): its compile ran or hit
 * the cache. */
static int compiled_before_reject(json_t *v)
{
	json_t *c = json_object_get(v, "compile"), *cached = json_object_get(c, "cached");
	return num(c, "seconds") > 0 || json_is_true(cached) ||
	       (json_is_number(cached) && json_number_value(cached) == 1);
}

/* The largest relative spread (IQR / median) of the baseline over the
 * verdict's perf entries: it is in the verdict's JSON only.  NAN: none. */
static double baseline_rel_iqr(json_t *v)
{
	json_t *perf = json_object_get(v, "perf"), *e;
	double best = NAN;
	size_t i;
	json_array_foreach(perf, i, e) {
		double ms = num(e, "baseline_ms"), iqr = num(e, "baseline_iqr_ms");
		if (ms > 0 && iqr >= 0 && !(iqr / ms <= best))
			best = iqr / ms;
	}
	return best;
}

/* distinct strings: the first kept in `keep`, `count` raised when a new
 * one differs from it (two kinds is what a reader needs to know) */
static void note_str(char *keep, size_t len, int *count, const char *v)
{
	if (!v || !*v)
		return;
	if (!*count) {
		snprintf(keep, len, "%s", v);
		*count = 1;
	} else if (strcmp(keep, v) && *count == 1) {
		*count = 2;
	}
}

static void note_range(int *lo, int *hi, json_t *x)
{
	int v;
	if (!json_is_integer(x))
		return;
	v = (int)json_integer_value(x);
	if (*lo < 0 || v < *lo)
		*lo = v;
	if (*hi < 0 || v > *hi)
		*hi = v;
}

/* One verdict's kjudge_version, baseline_id and gpu_state into the run's
 * summary. */
static void note_judge_state(struct kj_score_judge_state *js, json_t *v)
{
	json_t *g = json_object_get(v, "gpu_state"), *st[2];
	note_str(js->version, sizeof(js->version), &js->versions,
		 json_string_value(json_object_get(v, "kjudge_version")));
	note_str(js->baseline_id, sizeof(js->baseline_id), &js->baseline_ids,
		 json_string_value(json_object_get(v, "baseline_id")));
	{
		const char *m = json_string_value(json_object_get(v, "baseline_math"));
		js->math_tf32 += m && !strcmp(m, "tf32");
		js->math_strict += m && !strcmp(m, "strict-f32");
	}
	if (!json_is_object(g))
		return;
	st[0] = json_object_get(g, "start");
	st[1] = json_object_get(g, "end");
	if (!json_is_object(st[0]) || !json_is_object(st[1]))
		return;
	js->readings++;
	if (json_is_string(json_object_get(g, "drift"))) {
		if (!js->drift)
			snprintf(js->drift_why, sizeof(js->drift_why), "%s",
				 json_string_value(json_object_get(g, "drift")));
		js->drift++;
	}
	for (int k = 0; k < 2; k++) {
		note_str(js->driver, sizeof(js->driver), &js->drivers,
			 json_string_value(json_object_get(st[k], "driver")));
		note_range(&js->temp_min, &js->temp_max, json_object_get(st[k], "temp_c"));
		note_range(&js->power_limit_min, &js->power_limit_max, json_object_get(st[k], "power_limit_w"));
		note_range(&js->app_sm_min, &js->app_sm_max, json_object_get(st[k], "app_sm_mhz"));
	}
}

struct load_ctx {
	kj_score_run *r;
	size_t cap;
};

static int on_run(void *ctx, const struct kj_store_run_row *rr)
{
	kj_score_run *r = ((struct load_ctx *)ctx)->r;
	r->id = rr->id;
	r->name = strdup(rr->name);
	r->backend = strdup(rr->backend);
	r->created = strdup(rr->created);
	r->spec = strdup(rr->spec);
	r->settings = strdup(rr->settings);
	r->version = strdup(rr->version);
	if (!r->name || !r->backend || !r->created || !r->spec || !r->settings || !r->version)
		return KJ_E_NOMEM;
	return 0;
}

static int on_cand(void *ctx, const struct kj_store_cand_row *row)
{
	struct load_ctx *lc = ctx;
	kj_score_run *r = lc->r;
	struct kj_score_cand *c;
	json_t *v;
	if (r->n == lc->cap) {
		size_t ncap = lc->cap ? 2 * lc->cap : 64;
		struct kj_score_cand *nc = realloc(r->c, ncap * sizeof(*nc));
		if (!nc)
			return KJ_E_NOMEM;
		r->c = nc;
		lc->cap = ncap;
	}
	c = &r->c[r->n++];
	memset(c, 0, sizeof(*c));
	c->id = row->id;
	c->parent_id = row->parent_id;
	c->task = strdup(row->task);
	c->model = strdup(row->model);
	c->method = strdup(row->method);
	c->sha256 = strdup(row->sha256);
	c->path = strdup(row->path);
	c->source = malloc(row->source_len + 1);
	if (c->source) {
		if (row->source_len)
			memcpy(c->source, row->source, row->source_len);
		c->source[row->source_len] = 0;
	}
	c->level = row->level;
	c->category = strdup(row->category);
	c->dtype = strdup(row->dtype);
	c->sample = row->sample;
	c->round = row->round;
	c->judged = row->judged;
	c->status = strdup(row->status);
	c->stage = strdup(row->stage);
	c->reason = strdup(row->reason);
	c->flags = strdup(row->flags);
	c->speedup = row->speedup;
	c->speedup_lo = c->speedup_hi = c->noise_floor = NAN;
	c->judged_at = strdup(row->judged_at);
	c->no_perf = key_has(row->cache_key, "perf=0");
	c->base_rel_iqr = NAN;
	c->sol = NAN;
	if (!c->task || !c->model || !c->method || !c->sha256 || !c->path || !c->source ||
	    !c->category || !c->dtype || !c->status || !c->stage || !c->reason || !c->flags ||
	    !c->judged_at)
		return KJ_E_NOMEM;
	v = c->judged && row->json ? json_loads(row->json, 0, NULL) : NULL;
	/* compiled: past the compile stage, or rejected by the binary's symbols
	 * (stage static, after a compile that ran or hit the cache) */
	c->compiled = c->judged && (!strcmp(c->stage, "call") || !strcmp(c->stage, "correctness") ||
				    !strcmp(c->stage, "performance") || !strcmp(c->stage, "done") ||
				    (!strcmp(c->status, "rejected") && !strcmp(c->stage, "static") &&
				     v && compiled_before_reject(v)));
	if (v) {
		c->base_rel_iqr = baseline_rel_iqr(v);
		kj_score_read_interval(c, v);
		note_judge_state(&((struct load_ctx *)ctx)->r->js, v);
	}
	json_decref(v);
	c->correct = c->judged && !strcmp(c->status, "pass");
	c->call_ok = c->judged && (c->correct || !strcmp(c->status, "mismatch") ||
				   !strcmp(c->stage, "correctness") ||
				   !strcmp(c->stage, "performance"));
	c->fallback = c->judged && has_flag(c->flags, "fallback");
	kj_score_code_metrics(c->source, row->source_len, &c->code);
	return 0;
}

static int on_shape(void *ctx, const struct kj_store_shape_row *row)
{
	kj_score_run *r = ((struct load_ctx *)ctx)->r;
	struct kj_score_cand *c = find_cand(r, row->candidate_id);
	struct kj_score_shape *s, *ns;
	if (!c)
		return 0;
	ns = realloc(c->shapes, (size_t)(c->nshapes + 1) * sizeof(*ns));
	if (!ns)
		return KJ_E_NOMEM;
	c->shapes = ns;
	s = &c->shapes[c->nshapes++];
	s->weight = row->weight;
	s->ms = row->ms;
	s->iqr_ms = row->iqr_ms;
	s->speedup = row->speedup;
	s->sol_ms = row->sol_ms;
	s->sol_frac = row->sol_frac;
	s->iou = row->iou;
	s->mfu = row->mfu;
	s->flops = row->flops;
	s->bytes = row->bytes;
	if (s->ms > 0 && s->iqr_ms >= 0 && s->iqr_ms / s->ms > c->rel_iqr)
		c->rel_iqr = s->iqr_ms / s->ms;
	return 0;
}

static int on_calib(void *ctx, const struct kj_store_calib_row *row)
{
	kj_score_run *r = ((struct load_ctx *)ctx)->r;
	struct kj_score_roof *nr = realloc(r->roofs, (size_t)(r->nroofs + 1) * sizeof(*nr)), *f;
	json_t *j;
	if (!nr)
		return KJ_E_NOMEM;
	r->roofs = nr;
	f = &r->roofs[r->nroofs++];
	memset(f, 0, sizeof(*f));
	snprintf(f->device, sizeof(f->device), "%s", *row->name ? row->name : row->uuid);
	f->copy_gbs = row->copy_gbs;
	snprintf(f->created, sizeof(f->created), "%s", row->created);
	j = json_loads(row->rates, 0, NULL);
	if (json_is_object(j)) {
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v) {
			if (f->nrates == KJ_SCORE_MAX_RATES || !json_is_number(v) ||
			    !(json_number_value(v) > 0))
				continue;
			snprintf(f->rate_name[f->nrates], sizeof(f->rate_name[0]), "%s", k);
			f->rate_tflops[f->nrates++] = json_number_value(v);
		}
	}
	json_decref(j);
	return 0;
}

static int on_device(void *ctx, const struct kj_store_device_row *row)
{
	kj_score_run *r = ((struct load_ctx *)ctx)->r;
	struct kj_score_device *nd = realloc(r->devices, (size_t)(r->ndevices + 1) * sizeof(*nd)), *d;
	if (!nd)
		return KJ_E_NOMEM;
	r->devices = nd;
	d = &r->devices[r->ndevices++];
	snprintf(d->name, sizeof(d->name), "%s", row->name);
	snprintf(d->uuid, sizeof(d->uuid), "%s", row->uuid);
	snprintf(d->arch, sizeof(d->arch), "%s", row->arch);
	d->verdicts = row->verdicts;
	return 0;
}

/* The dates of the run's verdicts and how many distinct settings they had. */
static int on_span(void *ctx, const struct kj_store_span_row *row)
{
	kj_score_run *r = ((struct load_ctx *)ctx)->r;
	r->first_judged = strdup(row->first_judged);
	r->last_judged = strdup(row->last_judged);
	r->verdict_settings = row->settings;
	return r->first_judged && r->last_judged ? 0 : KJ_E_NOMEM;
}

/* Each candidate's SOL fraction over its bench shapes (NAN without T_sol). */
static void cand_sols(kj_score_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct kj_score_cand *c = &r->c[i];
		double w[64], sol[64], ms[64];
		int n = c->nshapes < 64 ? c->nshapes : 64, known = 0;
		for (int k = 0; k < n; k++) {
			w[k] = c->shapes[k].weight;
			sol[k] = c->shapes[k].sol_ms;
			ms[k] = c->shapes[k].ms;
			known |= isfinite(c->shapes[k].sol_frac);
		}
		c->sol = known ? kj_score_task_sol(w, sol, ms, (size_t)n, 1) : NAN;
	}
}

int kj_score_load(const char *db_path, const char *run, kj_score_run **out, struct kj_err *err)
{
	static const struct kj_store_reader rd = { on_run, on_cand, on_shape, on_calib, on_device,
						   on_span };
	kj_score_run *r = calloc(1, sizeof(*r));
	struct load_ctx lc = { r, 0 };
	char shown[4096];
	kj_db *s = NULL;
	int rc, v;
	*out = NULL;
	/* the manifest names the store, never a URL's password */
	kj_store_redact(db_path, shown, sizeof(shown));
	if (r)
		r->js.temp_min = r->js.temp_max = r->js.power_limit_min = r->js.power_limit_max =
			r->js.app_sm_min = r->js.app_sm_max = -1;
	if (!r || !(r->db_path = strdup(shown))) {
		free(r);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	if ((rc = kj_store_open_readonly(db_path, &s, err)))
		goto fail;
	if ((v = kj_store_schema_version(s, err)) < 0) {
		rc = v;
		goto fail;
	}
	r->schema_version = v;
	rc = kj_store_read_run(s, run, &rd, &lc, err);
	if (rc == KJ_E_NOMEM)
		kj_err_set(err, KJ_E_NOMEM, "out of memory reading run '%s'", run);
	if (rc)
		goto fail;
	kj_store_close(s);
	cand_sols(r);
	*out = r;
	return 0;
fail:
	kj_store_close(s);
	kj_score_run_free(r);
	return rc;
}

void kj_score_run_free(kj_score_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct kj_score_cand *c = &r->c[i];
		free(c->task), free(c->model), free(c->method), free(c->sha256), free(c->path);
		free(c->source), free(c->category), free(c->dtype), free(c->status);
		free(c->stage), free(c->reason), free(c->flags), free(c->shapes);
		free(c->judged_at);
	}
	free(r->c);
	free(r->roofs);
	free(r->devices);
	free(r->name), free(r->backend), free(r->created), free(r->db_path);
	free(r->spec), free(r->settings), free(r->version);
	free(r->first_judged), free(r->last_judged);
	free(r);
}
