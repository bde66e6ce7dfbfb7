/*
 * The results store's public API (include/kjudge/store.h): the backend is
 * chosen once, by kj_store_open() from the path (store_int.h), and every
 * call is then handed to its table of functions after the checks and the
 * work that do not depend on the backend (arguments, the source's sha256,
 * the calibration's JSON, the verdict's JSON, status names).
 */
#include <assert.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/cluster.h"
#include "kjudge/hash.h"
#include "kjudge/knobs.h"
#include "kjudge/store.h"
#include "store/schema.h"
#include "store/store_int.h"

int kj_store_schema_latest(void)
{
	struct kj_schema_step st[KJ_SCHEMA_MAX_STEPS];
	int n = kj_schema_steps(kj_store_schema_sql, st, KJ_SCHEMA_MAX_STEPS);
	assert(n > 0);
	return n;
}

int kj_store_is_url(const char *path)
{
	return kj_pg_is_url(path);
}

void kj_store_redact(const char *path, char *buf, size_t len)
{
	kj_pg_redact(path, buf, len);
}

int kj_store_open(const char *path, kj_db **out, struct kj_err *err)
{
	*out = NULL;
	return kj_pg_is_url(path) ? kj_pg_open(path, 0, out, err) : kj_sqlite_open(path, 0, out, err);
}

int kj_store_open_readonly(const char *path, kj_db **out, struct kj_err *err)
{
	*out = NULL;
	return kj_pg_is_url(path) ? kj_pg_open(path, 1, out, err) : kj_sqlite_open(path, 1, out, err);
}

void kj_store_close(kj_db *s)
{
	if (s)
		s->ops->close(s);
}

struct sqlite3 *kj_store_sqlite(kj_db *s)
{
	return s->ops->sqlite(s);
}

const char *kj_store_backend(kj_db *s)
{
	return s->ops->name;
}

int kj_store_schema_version(kj_db *s, struct kj_err *err)
{
	return s->ops->schema_version(s, err);
}

int kj_store_begin(kj_db *s, struct kj_err *err)
{
	return s->ops->begin(s, err);
}

int kj_store_commit(kj_db *s, struct kj_err *err)
{
	return s->ops->commit(s, err);
}

int kj_store_rollback(kj_db *s, struct kj_err *err)
{
	return s->ops->rollback(s, err);
}

/* ---- runs, tasks, candidates ------------------------------------------- */

int kj_store_run_find(kj_db *s, const char *name, int64_t *run_id, struct kj_err *err)
{
	return s->ops->run_find(s, name, run_id, err);
}

int kj_store_run_get_or_create(kj_db *s, const char *name, const char *backend,
			       const char *spec, const char *settings, int64_t *run_id,
			       struct kj_err *err)
{
	if (!name || !*name)
		return kj_err_set(err, KJ_E_USAGE, "store: a run needs a name");
	if (!backend || (strcmp(backend, "cpu") && strcmp(backend, "cuda") && strcmp(backend, "triton") &&
			 strcmp(backend, "kernelbench")))
		return kj_err_set(err, KJ_E_USAGE, "store: unknown backend '%s'", backend ? backend : "");
	return s->ops->run_get_or_create(s, name, backend, spec, settings, run_id, err);
}

const char *kj_store_task_dtype(const kj_task *t)
{
	int have = -1;
	for (int i = 0; i < t->nvals; i++) {
		if (t->vals[i].kind != KJ_V_OUTPUT)
			continue;
		if (have >= 0 && have != (int)t->vals[i].dtype)
			return "mixed";
		have = (int)t->vals[i].dtype;
	}
	return have < 0 ? "" : kj_dtype_name((kj_dtype)have);
}

int kj_store_put_task(kj_db *s, const kj_task *t, const char *kt_sha256, struct kj_err *err)
{
	return s->ops->put_task(s, t, kt_sha256, err);
}

int kj_store_add_candidate(kj_db *s, const struct kj_store_candidate *c, int64_t *id,
			   int *created, struct kj_err *err)
{
	char sha[65];
	int rc, made = 0;
	if (created)
		*created = 0;
	if (c->source_len > (size_t)0x7fffffff)
		return kj_err_set(err, KJ_E_USAGE, "store: a candidate source of %zu bytes is too large",
				  c->source_len);
	if (c->sha256)
		snprintf(sha, sizeof(sha), "%s", c->sha256);
	else
		kj_sha256_hex(c->source ? c->source : "", c->source ? c->source_len : 0, sha);
	rc = s->ops->add_candidate(s, c, sha, id, &made, err);
	if (created)
		*created = rc ? 0 : made;
	return rc;
}

int kj_store_link_parents(kj_db *s, int64_t run_id, int *linked, struct kj_err *err)
{
	return s->ops->link_parents(s, run_id, linked, err);
}

int kj_store_pending(kj_db *s, int64_t run_id,
		     int (*fn)(void *ctx, const struct kj_store_cand *c), void *ctx,
		     struct kj_err *err)
{
	return s->ops->pending(s, run_id, fn, ctx, err);
}

/* ---- devices and calibrations ------------------------------------------ */

int kj_store_device_upsert(kj_db *s, const char *uuid, const char *name, const char *arch,
			   const char *info, int64_t *id, struct kj_err *err)
{
	if (!uuid || !*uuid)
		return kj_err_set(err, KJ_E_USAGE, "store: a device needs a uuid");
	return s->ops->device_upsert(s, uuid, name, arch, info, id, err);
}

int kj_store_calibration_add(kj_db *s, int64_t device_id, const kj_calib *c, struct kj_err *err)
{
	json_t *r = json_pack("{s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "fp64", c->fp64_tflops, "fp32",
			      c->fp32_tflops, "tf32", c->tf32_tflops, "fp16", c->fp16_tflops, "bf16",
			      c->bf16_tflops, "int8", c->int8_tops, "fp8", c->fp8_tflops, "seconds",
			      c->seconds);
	char *rates = r ? json_dumps(r, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	int rc;
	json_decref(r);
	if (!rates)
		return kj_err_set(err, KJ_E_NOMEM, "store: out of memory");
	rc = s->ops->calibration_add(s, device_id, rates, c->copy_gbs, err);
	free(rates);
	return rc;
}

static double rate(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0;
}

/* The rates JSON of a calibrations row into c. */
static void calib_rates(kj_calib *c, const char *text)
{
	json_t *o = json_loads(text, 0, NULL);
	c->fp64_tflops = rate(o, "fp64");
	c->fp32_tflops = rate(o, "fp32");
	c->tf32_tflops = rate(o, "tf32");
	c->fp16_tflops = rate(o, "fp16");
	c->bf16_tflops = rate(o, "bf16");
	c->int8_tops = rate(o, "int8");
	c->fp8_tflops = rate(o, "fp8");
	c->seconds = rate(o, "seconds");
	json_decref(o);
}

int kj_store_calibration_latest(kj_db *s, int64_t device_id, kj_calib *c, struct kj_err *err)
{
	char *rates = NULL;
	int rc;
	memset(c, 0, sizeof(*c));
	rc = s->ops->calibration_latest(s, device_id, &c->copy_gbs, &rates, c->uuid, sizeof(c->uuid),
					c->name, sizeof(c->name), err);
	if (!rc)
		calib_rates(c, rates);
	free(rates);
	return rc;
}

/* ---- verdicts ----------------------------------------------------------- */

int kj_store_judgement_begin(kj_db *s, int64_t candidate_id, int64_t device_id, int64_t *id,
			     struct kj_err *err)
{
	return s->ops->judgement_begin(s, candidate_id, device_id, id, err);
}

int kj_store_put_verdict(kj_db *s, int64_t candidate_id, const kj_verdict *v,
			 const kj_task *t, const char *json,
			 const struct kj_store_verdict_opts *o, struct kj_err *err)
{
	char *own = NULL;
	int rc;
	if (!json) {
		own = kj_verdict_json_text(v, t);
		if (!own)
			return kj_err_set(err, KJ_E_NOMEM, "store: cannot render the verdict JSON");
		json = own;
	}
	rc = s->ops->put_verdict(s, candidate_id, v, t, json, o, err);
	free(own);
	return rc;
}

int kj_store_find_verdict_by_sha(kj_db *s, const char *sha256, const char *task,
				 const char *backend, int64_t device_id, const char *cache_key,
				 int64_t *candidate_id, struct kj_err *err)
{
	*candidate_id = 0;
	return s->ops->find_verdict_by_sha(s, sha256, task, backend, device_id, cache_key,
					   candidate_id, err);
}

int kj_store_copy_verdict(kj_db *s, int64_t from, int64_t to, struct kj_err *err)
{
	return s->ops->copy_verdict(s, from, to, err);
}

int kj_store_get_verdict(kj_db *s, int64_t candidate_id, char **json, kj_status *status,
			 struct kj_err *err)
{
	char name[32] = "";
	int rc;
	if (json)
		*json = NULL;
	rc = s->ops->get_verdict(s, candidate_id, json, name, sizeof(name), err);
	if (!rc && status && kj_status_from_name(name, status)) {
		rc = kj_err_set(err, KJ_E_INTERNAL, "store: unknown status '%s'", name);
		if (json) {
			free(*json);
			*json = NULL;
		}
	}
	return rc;
}

void kj_store_cache_key(const struct kj_verdict_settings *o, char *buf, size_t len)
{
	char seed[32], sh[65];
	/* the seed only as a hash: a hidden seed must not be readable here */
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->base_seed);
	kj_sha256_hex(seed, strlen(seed), sh);
	/* jail: verdicts of a judge with the sandbox (and its trusted timing)
	 * are not mixed with older or unconfined ones; errbudget: nor those of a
	 * judge without the error budget or with another multiple */
	snprintf(buf, len, "seeds=%d;perf=%d;timeout=%g;budget=%g;policy=%s;seed=%.12s;jail=%d;errbudget=%g",
		 o->seeds, o->no_perf ? 0 : 1, o->call_timeout_s, o->perf_budget_s,
		 o->strict ? "strict" : "flag", sh, o->unconfined ? 0 : 1, KJ_BUDGET_MULT);
	/* --max-noise: another stop rule gives other samples (only when set,
	 * so the keys of earlier verdicts stand) */
	if (o->max_noise > 0)
		snprintf(buf + strlen(buf), len - strlen(buf), ";noise=%g", o->max_noise);
	/* knobs: a verdict's speedups are against the baseline the knobs
	 * select, so a default run reuses no verdict of a run with knobs set,
	 * nor the other way round (a hash: the list can be long; knobs with
	 * a value kj_gpu_open refuses key as "invalid") */
	if (kj_backend_is_gpu(o->backend)) {
		char knobs[KJ_KNOBS_KEY_MAX], kh[65];
		if (kj_knobs_key(knobs, sizeof(knobs), NULL))
			snprintf(knobs, sizeof(knobs), "invalid");
		if (*knobs) {
			kj_sha256_hex(knobs, strlen(knobs), kh);
			snprintf(buf + strlen(buf), len - strlen(buf), ";knobs=%.16s", kh);
		}
	}
}

int kj_store_run_counts(kj_db *s, int64_t run_id, struct kj_store_counts *c, struct kj_err *err)
{
	memset(c, 0, sizeof(*c));
	return s->ops->run_counts(s, run_id, c, err);
}

/* ---- reading ---------------------------------------------------------------- */

int kj_store_read_run(kj_db *s, const char *run, const struct kj_store_reader *rd, void *ctx,
		      struct kj_err *err)
{
	return s->ops->read_run(s, run, rd, ctx, err);
}

int kj_store_attempts(kj_db *s, int64_t run_id, const char *model, const char *task, int sample,
		      int (*fn)(void *ctx, const struct kj_store_attempt *a), void *ctx,
		      struct kj_err *err)
{
	return s->ops->attempts(s, run_id, model, task, sample, fn, ctx, err);
}
