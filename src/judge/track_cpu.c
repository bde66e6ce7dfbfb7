/*
 * The CPU track (the kjj_track of judge_internal.h): inputs generated on the
 * host, the fp64 oracle and the eager baseline run in this process, the
 * arena a sealed memfd shared with the worker.
 *
 * Times: the worker is frozen (SIGSTOP) except between a request and its
 * reply, so a call's time is the judge's own clock from letting the worker
 * run to the reply, less the round trip of an empty call measured before
 * the candidate was loaded.  Nothing the worker says about time is used.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_internal.h"
#include "kjudge/exec.h"


struct kjj_shape {
	int bind;
	kj_plan plan;
	int nabi;
	int abi[KJ_WIRE_MAX_ABI];
	uint64_t off[KJ_WIRE_MAX_ABI];
	size_t bytes[KJ_WIRE_MAX_ABI];
	size_t arena;
	int64_t dims[KJ_WIRE_MAX_DIMS];
	void *host[KJ_WIRE_MAX_ABI]; /* judge's pristine inputs (dtype bytes) */
	kj_exec64 ref;
	kj_exec32 base;
	int have_ref, have_base;
};

static void cpu_shape_free(struct judge *j, struct kjj_shape *s)
{
	(void)j;
	if (!s)
		return;
	for (int i = 0; i < s->nabi; i++)
		free(s->host[i]);
	if (s->have_ref)
		kj_exec64_release(&s->ref);
	if (s->have_base)
		kj_exec32_release(&s->base);
	kj_plan_release(&s->plan);
	free(s);
}

static int cpu_shape_init(struct judge *j, int bind, struct kjj_shape **out)
{
	const kj_task *t = j->t;
	struct kjj_shape *s = calloc(1, sizeof(*s));
	int rc;
	*out = NULL;
	if (!s)
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory for a shape's state");
	s->bind = bind;
	if ((rc = kj_plan_build(t, bind, &s->plan, j->err))) {
		free(s);
		return rc;
	}
	if ((rc = kjj_layout(j, bind, &s->plan, s->abi, s->off, s->bytes, &s->arena, s->dims)) < 0) {
		kj_plan_release(&s->plan);
		free(s);
		return rc;
	}
	s->nabi = rc;
	for (int i = 0; i < s->nabi; i++) {
		s->host[i] = malloc(s->bytes[i] ? s->bytes[i] : 1);
		if (!s->host[i]) {
			cpu_shape_free(j, s);
			return kj_err_set(j->err, KJ_E_NOMEM, "out of memory for %zu bytes of input '%s'",
					  s->bytes[i], t->vals[s->abi[i]].name);
		}
	}
	if ((rc = kj_exec64_init(&s->ref, &s->plan, j->err))) {
		cpu_shape_free(j, s);
		return rc;
	}
	s->have_ref = 1;
	if ((rc = kj_exec32_init(&s->base, &s->plan, j->err))) {
		cpu_shape_free(j, s);
		return rc;
	}
	s->have_base = 1;
	*out = s;
	return 0;
}

/* Input i's pristine bytes (s->host[i]) widened into the executors' input
 * buffers. */
static void widen(struct kjj_shape *s, int i)
{
	int vi = s->abi[i];
	const kj_tinfo *ti = &s->plan.vals[vi];
	size_t n = (size_t)kj_shape_numel(&ti->shape);
	for (size_t k = 0; k < n; k++) {
		double x = kj_load(ti->dtype, s->host[i], k);
		s->ref.buf[vi][k] = x;
		s->base.buf[vi][k] = (float)x;
	}
}

/* Inputs for seed/flavour into s->host (dtype bytes) and the executors'
 * input buffers. */
static int cpu_gen(struct judge *j, struct kjj_shape *s, uint64_t seed, kj_seed_flavour fl)
{
	kj_outliers outl = { 0.001, 50.0 };
	int tensor_id = 0;
	for (int i = 0; i < s->nabi; i++) {
		int vi = s->abi[i];
		const kj_tinfo *ti = &s->plan.vals[vi];
		kj_dist d = s->plan.dists[vi];
		size_t n = (size_t)kj_shape_numel(&ti->shape);
		if (kjj_is_output(j->t, vi))
			continue;
		if (fl == KJ_SEED_UNIFORM && d.kind == KJ_DIST_NORMAL) {
			d.kind = KJ_DIST_UNIFORM;
			d.a = -1;
			d.b = 1;
		}
		kj_gen_fill(s->host[i], ti->dtype, n, &d, fl == KJ_SEED_OUTLIERS ? &outl : NULL, seed,
			    (uint32_t)tensor_id++);
		widen(s, i);
	}
	return 0;
}

static int cpu_run_ref(struct judge *j, struct kjj_shape *s)
{
	return kj_exec64_run(&s->ref, j->err);
}

static int cpu_run_base(struct judge *j, struct kjj_shape *s)
{
	return kj_exec32_run(&s->base, j->err);
}

/* The reference cache's part of the state (refcache.c): the pristine
 * inputs, the oracle's outputs and the baseline's; the executors' inputs
 * are widened again from the pristine ones (cpu_ref_restored). */
static int cpu_ref_bufs(struct judge *j, struct kjj_shape *s, struct kjj_rcbuf *b, int cap)
{
	int n = 0;
	for (int i = 0; i < s->nabi; i++) {
		int vi = s->abi[i];
		size_t ne = (size_t)kj_shape_numel(&s->plan.vals[vi].shape);
		if (n + 2 > cap)
			return kj_err_set(j->err, KJ_E_UNSUPPORTED, "more buffers than the reference cache takes");
		if (!kjj_is_output(j->t, vi)) {
			b[n++] = (struct kjj_rcbuf){ s->host[i], s->bytes[i], 0 };
			continue;
		}
		b[n++] = (struct kjj_rcbuf){ s->ref.buf[vi], ne * sizeof(double), 0 };
		b[n++] = (struct kjj_rcbuf){ s->base.buf[vi], ne * sizeof(float), 0 };
	}
	return n;
}

static int cpu_ref_restored(struct judge *j, struct kjj_shape *s)
{
	for (int i = 0; i < s->nabi; i++)
		if (!kjj_is_output(j->t, s->abi[i]))
			widen(s, i);
	return 0;
}

/* Compares n values got(i) against ref (doubles).  For integer and bool
 * outputs the comparison is exact against the reference rounded to the
 * dtype; bool bytes must be 0 or 1. */
static void compare(const kj_task *t, kj_dtype dt, const void *gotbuf, const float *gotf,
		    const double *ref, int64_t n, struct errstat *st)
{
	double atol, rtol;
	int isf = kj_dtype_is_float(dt);
	memset(st, 0, sizeof(*st));
	st->n = n;
	st->first_bad = -1;
	st->exact = !isf;
	kj_tolerance(t, dt, &atol, &rtol);
	for (int64_t i = 0; i < n; i++) {
		double r = ref[i], g;
		int bad;
		if (gotf)
			g = gotf[i];
		else if (dt == KJ_BOOL && ((const unsigned char *)gotbuf)[i] > 1)
			g = NAN;
		else
			g = kj_load(dt, gotbuf, (size_t)i);
		if (!isf) {
			double rr = kj_round_to(dt, r);
			bad = !(g == rr);
			r = rr;
		} else if (isnan(r) || isnan(g)) {
			bad = !(isnan(r) && isnan(g));
			st->nfbad += bad;
		} else if (isinf(r) || isinf(g)) {
			bad = r != g;
			st->nfbad += bad;
		} else {
			double d = fabs(g - r), tl = atol + rtol * fabs(r);
			double q = d == 0 ? 0 : tl > 0 ? d / tl : INFINITY;
			bad = !(d <= tl);
			if (q > st->ratio)
				st->ratio = q;
			if (d > st->max_abs)
				st->max_abs = d;
			if (r != 0 && d / fabs(r) > st->max_rel)
				st->max_rel = d / fabs(r);
			st->dot += g * r;
			st->gg += g * g;
			st->rr += r * r;
			st->l1num += d;
			st->l1den += fabs(r);
			st->sq += d * d;
		}
		if (!isf && !isnan(g)) {
			double d = fabs(g - r);
			if (d > st->max_abs)
				st->max_abs = d;
		}
		if (bad) {
			if (st->first_bad < 0) {
				st->first_bad = i;
				st->expected = r;
				st->got = g;
			}
			st->nbad++;
		}
	}
}

static void fill_sentinel(kj_dtype dt, void *p, size_t n)
{
	size_t i;
	switch (dt) {
	case KJ_F32: {
		uint32_t s = 0x7fc0deadu;
		for (i = 0; i < n; i++)
			memcpy((char *)p + 4 * i, &s, 4);
		break;
	}
	case KJ_F16:
	case KJ_BF16: {
		uint16_t s = dt == KJ_F16 ? 0x7e5a : 0x7fda;
		for (i = 0; i < n; i++)
			memcpy((char *)p + 2 * i, &s, 2);
		break;
	}
	case KJ_I8:
		memset(p, 0x80, n);
		break;
	case KJ_F8E4M3: /* the one NaN pattern: f8 has no room for a payload */
		memset(p, 0x7f, n);
		break;
	case KJ_I32: {
		int32_t s = INT32_MIN;
		for (i = 0; i < n; i++)
			memcpy((char *)p + 4 * i, &s, 4);
		break;
	}
	case KJ_I64: {
		int64_t s = INT64_MIN;
		for (i = 0; i < n; i++)
			memcpy((char *)p + 8 * i, &s, 8);
		break;
	}
	default:
		memset(p, 0xaa, n);
		break;
	}
}

static int ensure_arena(struct judge *j, size_t bytes)
{
	if (bytes <= j->arena_size)
		return 0;
	if (kj_worker_arena(&j->w, bytes, j->err))
		return KJ_E_WORKER;
	j->arena_size = bytes;
	return 0;
}

/* While the worker is frozen: inputs in, outputs sentinelled.  Then the
 * exchange, whose round trip starts as the worker is let run. */
static int cpu_call(struct judge *j, struct kjj_shape *s, int garbage, int timed, struct kjj_call *c)
{
	char *arena;
	int rc = ensure_arena(j, s->arena);
	(void)timed;
	memset(c, 0, sizeof(*c));
	if (rc)
		return rc;
	arena = j->w.arena;
	for (int i = 0; i < s->nabi; i++) {
		int vi = s->abi[i];
		if (kjj_is_output(j->t, vi) && garbage)
			memset(arena + s->off[i], KJ_RERUN_BYTE, s->bytes[i]);
		else if (kjj_is_output(j->t, vi))
			fill_sentinel(s->plan.vals[vi].dtype, arena + s->off[i],
				      (size_t)kj_shape_numel(&s->plan.vals[vi].shape));
		else
			memcpy(arena + s->off[i], s->host[i], s->bytes[i]);
	}
	rc = kj_worker_call(&j->w, s->off, s->nabi, s->dims, j->t->nsyms, j->o->call_timeout_s, &c->res,
			    j->err);
	if (rc || c->res.status != KJ_CALL_OK)
		return rc;
	c->wall_ms = c->res.judge_ns > j->floor_ns ? (double)(c->res.judge_ns - j->floor_ns) / 1e6 : 0;
	c->ms = c->wall_ms;
	return 0;
}

static int cpu_inputs_changed(struct judge *j, struct kjj_shape *s, kj_stage sg, int bind, int *changed)
{
	const char *arena = j->w.arena;
	*changed = 0;
	for (int i = 0; i < s->nabi; i++) {
		int vi = s->abi[i];
		size_t es, k = 0;
		char sd[320];
		if (kjj_is_output(j->t, vi) || !memcmp(arena + s->off[i], s->host[i], s->bytes[i]))
			continue;
		es = kj_dtype_size(s->plan.vals[vi].dtype);
		while (k < s->bytes[i] && arena[s->off[i] + k] == ((const char *)s->host[i])[k])
			k++;
		kjj_fail(j, KJ_ST_REJECTED, sg,
			 "input '%s' was modified by the candidate (first changed element %zu) on %s",
			 j->t->vals[vi].name, k / es, kjj_shape_desc(j, bind, sd, sizeof(sd)));
		*changed = 1;
		return 0;
	}
	return 0;
}

static int cpu_outputs(struct judge *j, struct kjj_shape *s, int bind, int k, uint64_t seed,
		       kj_seed_flavour fl, kj_stage sg, double ms, int record, int *bad)
{
	const char *arena = j->w.arena;
	*bad = 0;
	for (int i = 0; i < s->nabi; i++) {
		int vi = s->abi[i];
		const kj_tinfo *ti = &s->plan.vals[vi];
		int64_t n = kj_shape_numel(&ti->shape);
		struct errstat st, bst;
		if (!kjj_is_output(j->t, vi))
			continue;
		compare(j->t, ti->dtype, arena + s->off[i], NULL, s->ref.buf[vi], n, &st);
		if (record)
			compare(j->t, ti->dtype, NULL, s->base.buf[vi], s->ref.buf[vi], n, &bst);
		if (kjj_record_output(j, bind, k, seed, fl, sg, ms, record, vi, ti, &st, record ? &bst : NULL)) {
			*bad = 1;
			return 0;
		}
	}
	return 0;
}

/* The worker is frozen here (opts.freeze): the baseline has the CPU to
 * itself, whatever the candidate started. */
static int cpu_time_base(struct judge *j, struct kjj_shape *s, double *ms)
{
	double a = kjj_now_s();
	int rc = kj_exec32_run(&s->base, j->err);
	*ms = (kjj_now_s() - a) * 1e3;
	return rc;
}

static double cpu_ref_cost_ms(struct judge *j, struct kjj_shape *s)
{
	(void)j;
	(void)s;
	return 0; /* the oracle runs on every timed call's inputs */
}

const struct kjj_track kjj_track_cpu = {
	.name = "cpu",
	.baseline_after_candidate = 1,
	.shape_init = cpu_shape_init,
	.shape_free = cpu_shape_free,
	.gen = cpu_gen,
	.run_ref = cpu_run_ref,
	.run_base = cpu_run_base,
	.ref_bufs = cpu_ref_bufs,
	.ref_restored = cpu_ref_restored,
	.call = cpu_call,
	.inputs_changed = cpu_inputs_changed,
	.outputs = cpu_outputs,
	.outputs_vs_base = NULL,
	.time_base = cpu_time_base,
	.ref_cost_ms = cpu_ref_cost_ms,
	.probe_floor = NULL,
};
