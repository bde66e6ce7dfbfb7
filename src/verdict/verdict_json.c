/*
 * The kjudge.verdict/1 JSON form of a verdict (docs/verdict.md).  Numbers that
 * are unknown (no calibration, stage not reached) are null, never a made-up
 * zero.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/verdict.h"
#include "kjudge/knobs.h"

static json_t *num_or_null(double x)
{
	return (x < 0 || isnan(x) || isinf(x)) ? json_null() : json_real(x);
}

static json_t *real_any(double x)
{
	if (isnan(x))
		return json_string("nan");
	if (isinf(x))
		return json_string(x > 0 ? "inf" : "-inf");
	return json_real(x);
}

/* Logs and reasons can hold any bytes a compiler or candidate printed;
 * JSON strings must be UTF-8, so everything outside printable ASCII and
 * \n \t becomes '?'. */
static json_t *safe_string(const char *s)
{
	size_t n = strlen(s);
	char *c = malloc(n + 1);
	json_t *j;
	if (!c)
		return json_string("");
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		c[i] = (ch == '\n' || ch == '\t' || (ch >= 0x20 && ch < 0x7f)) ? (char)ch : '?';
	}
	c[n] = 0;
	j = json_string(c);
	free(c);
	return j;
}

static json_t *shape_obj(const kj_task *t, int bind)
{
	json_t *o = json_object();
	for (int i = 0; i < t->nsyms; i++)
		json_object_set_new(o, t->syms[i], json_integer(t->binds[bind].val[i]));
	return o;
}

static const char *bind_kind(const kj_binding *b)
{
	return b->bench == 0 ? "check" : b->bench == 1 ? "bench" : "bench_cpu";
}


/* The GPU's state at the start and the end of the judgement: null on the
 * CPU track; {"error"} when NVML could not say. */
static json_t *gpu_state_json(const kj_verdict *v)
{
	char txt[1024];
	json_t *o, *x;
	if (!v->gpu_states && !v->gpu_state_err[0])
		return json_null();
	o = json_object();
	if (!v->gpu_states) {
		json_object_set_new(o, "error", safe_string(v->gpu_state_err));
		return o;
	}
	kj_gpu_state_json(&v->gpu_start, txt, sizeof(txt));
	x = json_loads(txt, 0, NULL);
	json_object_set_new(o, "start", x ? x : json_null());
	if (v->gpu_states > 1) {
		kj_gpu_state_json(&v->gpu_end, txt, sizeof(txt));
		x = json_loads(txt, 0, NULL);
	} else {
		x = NULL;
	}
	json_object_set_new(o, "end", x ? x : json_null());
	json_object_set_new(o, "drift", v->gpu_drift[0] ? safe_string(v->gpu_drift) : json_null());
	return o;
}

json_t *kj_verdict_json(const kj_verdict *v, const kj_task *t)
{
	json_t *o = json_object(), *flags = json_array(), *checks = json_array(),
	       *perf = json_array(), *stages = json_object(), *compile = json_object();
	unsigned f = v->flags;
	char fs[256];
	json_object_set_new(o, "schema", json_string("kjudge.verdict/1"));
	json_object_set_new(o, "task", safe_string(v->task));
	json_object_set_new(o, "backend", json_string(kj_backend_name(v->backend)));
	json_object_set_new(o, "candidate_sha256", json_string(v->sha256));
	json_object_set_new(o, "status", json_string(kj_status_name(v->status)));
	json_object_set_new(o, "stage", json_string(kj_stage_name(v->stage)));
	json_object_set_new(o, "reason", safe_string(v->reason));
	kj_flags_str(f, fs, sizeof(fs));
	for (char *p = fs, *e; *p; p = e + (*e != 0)) {
		e = p + strcspn(p, ",");
		json_array_append_new(flags, json_stringn(p, (size_t)(e - p)));
	}
	json_object_set_new(o, "flags", flags);
	json_object_set_new(o, "fallback_libs",
			    v->fallback_libs[0] ? json_string(v->fallback_libs) : json_null());
	json_object_set_new(compile, "cached", json_boolean(v->compile_cached));
	json_object_set_new(compile, "seconds", json_real(v->compile_s));
	json_object_set_new(compile, "log", safe_string(v->compile_log ? v->compile_log : ""));
	json_object_set_new(o, "compile", compile);
	json_object_set_new(o, "seeds", json_integer(v->seeds));
	{
		char hex[32];
		snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)v->base_seed);
		if (v->seed_hidden)
			snprintf(hex, sizeof(hex), "hidden");
		json_object_set_new(o, "base_seed", json_string(hex));
	}
	for (int i = 0; i < v->nchecks; i++) {
		const kj_check *c = &v->checks[i];
		json_t *x = json_object();
		json_object_set_new(x, "kind", json_string(bind_kind(&t->binds[c->bind])));
		json_object_set_new(x, "shape", shape_obj(t, c->bind));
		json_object_set_new(x, "seed_index", json_integer(c->seed_index));
		json_object_set_new(x, "flavour", json_string(kj_seed_flavour_name(c->flavour)));
		json_object_set_new(x, "output", safe_string(c->output));
		json_object_set_new(x, "pass", json_boolean(c->pass));
		json_object_set_new(x, "elements", json_integer(c->n));
		json_object_set_new(x, "wrong", json_integer(c->nbad));
		if (c->first_bad >= 0) {
			json_object_set_new(x, "first_wrong_index", json_integer(c->first_bad));
			json_object_set_new(x, "expected", real_any(c->expected));
			json_object_set_new(x, "got", real_any(c->got));
		}
		json_object_set_new(x, "max_abs_err", json_real(c->max_abs));
		json_object_set_new(x, "max_rel_err", json_real(c->max_rel));
		json_object_set_new(x, "baseline_max_abs_err", json_real(c->base_max_abs));
		json_object_set_new(x, "baseline_max_rel_err", json_real(c->base_max_rel));
		json_object_set_new(x, "cos", real_any(c->cos));
		json_object_set_new(x, "l1", real_any(c->l1));
		json_object_set_new(x, "rmse", real_any(c->rmse));
		json_object_set_new(x, "budget_metric", json_string(c->budget_metric[0] ? c->budget_metric : "elementwise"));
		json_object_set_new(x, "tol_ratio", real_any(c->tol_ratio));
		json_object_set_new(x, "baseline_tol_ratio",
				    isnan(c->base_tol_ratio) ? json_null() : real_any(c->base_tol_ratio));
		json_object_set_new(x, "budget", real_any(c->budget));
		json_object_set_new(x, "budget_used", json_boolean(c->budget_used));
		json_array_append_new(checks, x);
	}
	json_object_set_new(o, "correctness", checks);
	for (int i = 0; i < v->nperf; i++) {
		const kj_perf *p = &v->perf[i];
		json_t *x = json_object();
		json_object_set_new(x, "kind", json_string(bind_kind(&t->binds[p->bind])));
		json_object_set_new(x, "shape", shape_obj(t, p->bind));
		json_object_set_new(x, "weight", json_real(p->weight));
		json_object_set_new(x, "ms", p->n ? json_real(p->ms) : json_null());
		json_object_set_new(x, "iqr_ms", p->n ? json_real(p->iqr_ms) : json_null());
		json_object_set_new(x, "n", json_integer(p->n));
		json_object_set_new(x, "baseline_ms", p->baseline_n ? json_real(p->baseline_ms) : json_null());
		json_object_set_new(x, "baseline_iqr_ms", p->baseline_n ? json_real(p->baseline_iqr_ms) : json_null());
		json_object_set_new(x, "baseline_n", json_integer(p->baseline_n));
		json_object_set_new(x, "speedup", p->speedup > 0 ? json_real(p->speedup) : json_null());
		/* the interval and noise floor (docs/verdict.md, "Intervals") */
		json_object_set_new(x, "speedup_lo", p->speedup_lo > 0 ? json_real(p->speedup_lo) : json_null());
		json_object_set_new(x, "speedup_hi", p->speedup_hi > 0 ? json_real(p->speedup_hi) : json_null());
		json_object_set_new(x, "noise_floor", num_or_null(p->noise_floor));
		json_object_set_new(x, "flops", json_real(p->flops));
		json_object_set_new(x, "bytes", json_real(p->bytes));
		json_object_set_new(x, "sol_ms", num_or_null(p->sol_ms));
		json_object_set_new(x, "sol_frac", num_or_null(p->sol_frac));
		json_object_set_new(x, "iou", num_or_null(p->iou));
		json_object_set_new(x, "mfu", num_or_null(p->mfu));
		json_object_set_new(x, "checked_outputs", json_integer(p->checked));
		json_object_set_new(x, "verified_outputs", json_integer(p->verified));
		json_object_set_new(x, "wall_ms", p->n ? json_real(p->wall_ms) : json_null());
		json_object_set_new(x, "train_reps", json_integer(p->train_reps));
		json_object_set_new(x, "train_ms", p->train_reps ? json_real(p->train_ms) : json_null());
		json_object_set_new(x, "call_ms", p->n ? json_real(p->call_ms) : json_null());
		json_object_set_new(x, "baseline_train_reps", json_integer(p->baseline_train_reps));
		json_object_set_new(x, "baseline_call_ms", p->baseline_n > 0 ? json_real(p->baseline_call_ms) : json_null());
		json_array_append_new(perf, x);
	}
	json_object_set_new(o, "perf", perf);
	json_object_set_new(o, "sandbox", safe_string(v->sandbox));
	json_object_set_new(o, "rtt_floor_us", v->rtt_floor_us > 0 ? json_real(v->rtt_floor_us) : json_null());
	json_object_set_new(o, "limits", v->limits[0] ? safe_string(v->limits) : json_null());
	json_object_set_new(o, "speedup", v->speedup > 0 ? json_real(v->speedup) : json_null());
	json_object_set_new(o, "speedup_lo", v->speedup_lo > 0 ? json_real(v->speedup_lo) : json_null());
	json_object_set_new(o, "speedup_hi", v->speedup_hi > 0 ? json_real(v->speedup_hi) : json_null());
	json_object_set_new(o, "noise_floor", num_or_null(v->noise_floor));
	json_object_set_new(o, "timing_cpu", v->pinned_cpu > 0 ? json_integer(v->pinned_cpu - 1) : json_null());
	/* which baseline the speedups are against: a task that allows TF32
	 * (`tf32 allowed`) is timed against a TF32 GPU baseline, every other
	 * task and the CPU track against strict f32 (docs/verdict.md) */
	json_object_set_new(o, "baseline_math",
			    json_string(t && t->tf32 && kj_backend_is_gpu(v->backend) ? "tf32" : "strict-f32"));
	{
		/* the knobs the baseline ran with, when any is set (the same
		 * environment as the judge's, which refused invalid ones) */
		char knobs[KJ_KNOBS_KEY_MAX];
		if (kj_backend_is_gpu(v->backend) && !kj_knobs_key(knobs, sizeof(knobs), NULL) && *knobs)
			json_object_set_new(o, "baseline_knobs", json_string(knobs));
	}
	for (int s = 0; s < KJ_STAGE_DONE; s++)
		json_object_set_new(stages, kj_stage_name((kj_stage)s), json_real(v->stage_s[s]));
	json_object_set_new(o, "stage_seconds", stages);
	{
		json_t *prof = json_object();
		for (int p = 0; p < KJ_PROF_COUNT; p++)
			json_object_set_new(prof, kj_prof_name((kj_prof)p), json_real(v->prof_s[p]));
		json_object_set_new(o, "profile_seconds", prof);
	}
	json_object_set_new(o, "ref_cache", json_pack("{s:i,s:i}", "hits", v->ref_cache_hits, "stored",
						      v->ref_cache_stored));
	json_object_set_new(o, "total_seconds", json_real(v->total_s));
	json_object_set_new(o, "device", json_string(v->device));
	json_object_set_new(o, "kjudge_version", json_string(v->version));
	json_object_set_new(o, "baseline_id", v->baseline_id[0] ? json_string(v->baseline_id) : json_null());
	json_object_set_new(o, "gpu_state", gpu_state_json(v));
	json_object_set_new(o, "worker_log", safe_string(v->worker_log ? v->worker_log : ""));
	json_object_set_new(o, "worker_log_bytes", json_integer((json_int_t)v->worker_log_total));
	return o;
}

char *kj_verdict_json_text(const kj_verdict *v, const kj_task *t)
{
	json_t *o = kj_verdict_json(v, t);
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	json_decref(o);
	return s;
}
