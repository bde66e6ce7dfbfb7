/*
 * Judge and record one candidate (kj_record_judge), the task cache and the
 * tasks rows.  include/kjudge/record.h has the contracts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kjudge/hash.h"
#include "kjudge/record.h"

double kj_record_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- tasks ------------------------------------------------------------------ */

void kj_record_task_sha(const kj_task *t, char sha256[65])
{
	FILE *f = fopen(t->path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, r;
	sha256[0] = 0;
	if (!f)
		return;
	for (;;) {
		if (n + 8192 > cap) {
			char *nb;
			cap = cap ? 2 * cap : 65536;
			if (!(nb = realloc(buf, cap)))
				goto out;
			buf = nb;
		}
		if (!(r = fread(buf + n, 1, cap - n, f)))
			break;
		n += r;
	}
	if (!ferror(f))
		kj_sha256_hex(buf ? buf : "", n, sha256);
out:
	free(buf);
	fclose(f);
}

int kj_record_put_task(kj_db *db, const kj_task *t, struct kj_err *err)
{
	char sha[65];
	kj_record_task_sha(t, sha);
	return kj_store_put_task(db, t, sha, err);
}

void kj_record_tasks_init(struct kj_record_tasks *tc, kj_record_load_fn load, void *load_ctx)
{
	memset(tc, 0, sizeof(*tc));
	pthread_mutex_init(&tc->mu, NULL);
	tc->load = load;
	tc->load_ctx = load_ctx;
}

void kj_record_tasks_release(struct kj_record_tasks *tc)
{
	for (int i = 0; i < tc->n; i++) {
		free(tc->v[i].key);
		kj_task_free(tc->v[i].t);
	}
	free(tc->v);
	pthread_mutex_destroy(&tc->mu);
	memset(tc, 0, sizeof(*tc));
}

int kj_record_task_get(struct kj_record_tasks *tc, const char *key, const kj_task **out,
		       char sha256[65], struct kj_err *err)
{
	struct kj_record_task_ent *e = NULL, *nv;
	struct kj_err le;
	kj_task *t = NULL;
	int rc = 0;
	pthread_mutex_lock(&tc->mu);
	for (int i = 0; i < tc->n && !e; i++)
		if (!strcmp(tc->v[i].key, key) || (tc->v[i].t && !strcmp(tc->v[i].t->id, key)))
			e = &tc->v[i];
	if (!e) {
		kj_err_init(&le);
		rc = tc->load ? tc->load(tc->load_ctx, key, &t, &le) : kj_task_load(key, &t, &le);
		if (rc) {
			t = NULL;
			if (!le.code)
				kj_err_set(&le, rc, "task '%s' does not load", key);
			if (!tc->keep_failures) {
				if (err)
					*err = le;
				goto out;
			}
		}
		if (!(nv = realloc(tc->v, (size_t)(tc->n + 1) * sizeof(*nv)))) {
			kj_task_free(t);
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
			goto out;
		}
		tc->v = nv;
		e = &tc->v[tc->n];
		memset(e, 0, sizeof(*e));
		e->t = t;
		e->error = le;
		if (t)
			kj_record_task_sha(t, e->sha256);
		if (t && tc->db && (rc = kj_store_put_task(tc->db, t, e->sha256, err))) {
			kj_task_free(t);
			goto out;
		}
		if (!(e->key = strdup(key))) {
			kj_task_free(t);
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
			goto out;
		}
		tc->n++;
	}
	if (!e->t) {
		if (err)
			*err = e->error;
		rc = e->error.code ? e->error.code : KJ_E_USAGE;
		goto out;
	}
	*out = e->t;
	if (sha256)
		memcpy(sha256, e->sha256, 65);
	rc = 0;
out:
	pthread_mutex_unlock(&tc->mu);
	return rc;
}

/* ---- judge and record ----------------------------------------------------------- */

static int put_default(void *ctx, int64_t cid, const kj_verdict *v, const kj_task *t, const char *json,
		       const struct kj_store_verdict_opts *vo, struct kj_err *err)
{
	return kj_store_put_verdict(ctx, cid, v, t, json, vo, err);
}

static int copy_default(void *ctx, int64_t from, int64_t cid, struct kj_err *err)
{
	return kj_store_copy_verdict(ctx, from, cid, err);
}

int kj_record_judge(const struct kj_recorder *r, const struct kj_record_cand *c,
		    struct kj_record_out *out, struct kj_err *err)
{
	int (*put)(void *, int64_t, const kj_verdict *, const kj_task *, const char *,
		   const struct kj_store_verdict_opts *, struct kj_err *) = r->put ? r->put : put_default;
	int (*copy)(void *, int64_t, int64_t, struct kj_err *) = r->copy ? r->copy : copy_default;
	void *ctx = r->put || r->copy ? r->ctx : r->db;
	struct kj_store_verdict_opts vo;
	kj_verdict v;
	int64_t jid = 0;
	char *json;
	double e0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!c->no_lookup) {
		out->failed = KJ_RECORD_STEP_LOOKUP;
		if ((rc = kj_store_find_verdict_by_sha(r->db, c->sha256, c->t->id,
						       kj_backend_name(r->eval->backend), r->device_id,
						       r->cache_key, &out->from, err)))
			return rc;
		if (out->from == c->id)
			out->from = 0;
	}
	if (out->from) {
		out->failed = KJ_RECORD_STEP_COPY;
		if ((rc = copy(ctx, out->from, c->id, err)))
			return rc;
		if (c->want_json && (rc = kj_store_get_verdict(r->db, c->id, &out->json, &out->status, err)))
			return rc;
		out->how = KJ_RECORD_COPIED;
		out->failed = KJ_RECORD_STEP_NONE;
		return 0;
	}

	out->failed = KJ_RECORD_STEP_BEGIN;
	if ((rc = kj_store_judgement_begin(r->db, c->id, r->device_id, &jid, err)))
		return rc;
	out->failed = KJ_RECORD_STEP_EVAL;
	e0 = kj_record_now_s();
	rc = kj_eval(c->t, c->source, c->len, r->eval, &v, err);
	out->eval_s = kj_record_now_s() - e0;
	if (rc) {
		kj_verdict_release(&v);
		return rc;
	}
	memcpy(out->prof_s, v.prof_s, sizeof(out->prof_s));
	out->ref_cache_hits = v.ref_cache_hits;
	out->ref_cache_stored = v.ref_cache_stored;
	if (c->compiled_ahead && v.compile_cached) {
		v.compile_cached = 0;
		v.compile_s = c->compile_s;
	}
	out->status = v.status;
	out->failed = KJ_RECORD_STEP_PUT;
	json = kj_verdict_json_text(&v, c->t);
	memset(&vo, 0, sizeof(vo));
	vo.run_id = r->run_id;
	vo.device_id = r->device_id;
	vo.cache_key = r->cache_key;
	vo.judgement_id = jid;
	rc = json ? put(ctx, c->id, &v, c->t, json, &vo, err)
		  : kj_err_set(err, KJ_E_NOMEM, "cannot render the verdict");
	kj_verdict_release(&v);
	if (rc) {
		free(json);
		return rc;
	}
	if (c->want_json)
		out->json = json;
	else
		free(json);
	out->how = KJ_RECORD_JUDGED;
	out->failed = KJ_RECORD_STEP_NONE;
	return 0;
}
