/*
 * The evaluation's profile: where its wall time went, part by part
 * (kj_prof), as self times.  The track's functions are timed by a copy of
 * the track whose functions time the real ones (so the stages need no
 * change); the judge's own parts (device set-up, compile, worker start,
 * teardown) are bracketed with kjj_prof_begin/end.  Uses the judge's
 * internals only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_internal.h"

void kjj_prof_begin(struct judge *j, kj_prof p)
{
	double now = kjj_now_s();
	int max = (int)(sizeof(j->prof_stack) / sizeof(j->prof_stack[0]));
	if (j->prof_depth > 0 && j->prof_depth <= max) {
		j->v->prof_s[j->prof_stack[j->prof_depth - 1]] += now - j->prof_mark;
		j->prof_self[j->prof_depth - 1] += now - j->prof_mark;
	}
	if (j->prof_depth < max) {
		j->prof_stack[j->prof_depth] = p;
		j->prof_self[j->prof_depth] = 0;
	}
	j->prof_depth++;
	j->prof_mark = now;
}

/* KJ_PROF_LOG=FILE, for bench/ to see which parts are many and which are
 * long: one line per part that ended (task, part, perf shape or -1, self
 * seconds of this span, nesting depth). */
static void prof_log(struct judge *j, kj_prof p, double self_s)
{
	const char *path = j->prof_log;
	FILE *f;
	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%s\t%s\t%d\t%.6f\t%d\n", j->t ? j->t->id : "-", kj_prof_name(p), j->cur_perf, self_s,
		j->prof_depth);
	fclose(f);
}

void kjj_prof_end(struct judge *j)
{
	double now = kjj_now_s();
	int max = (int)(sizeof(j->prof_stack) / sizeof(j->prof_stack[0]));
	if (j->prof_depth <= 0)
		return;
	if (j->prof_depth <= max) {
		kj_prof p = j->prof_stack[j->prof_depth - 1];
		j->v->prof_s[p] += now - j->prof_mark;
		j->prof_self[j->prof_depth - 1] += now - j->prof_mark;
		prof_log(j, p, j->prof_self[j->prof_depth - 1]);
	}
	j->prof_depth--;
	j->prof_mark = now;
}

void kjj_prof_finish(struct judge *j)
{
	double sum = 0;
	while (j->prof_depth > 0)
		kjj_prof_end(j);
	for (int p = 0; p < KJ_PROF_OTHER; p++)
		if (p != KJ_PROF_PY_START)
			sum += j->v->prof_s[p];
	j->v->prof_s[KJ_PROF_OTHER] = j->v->total_s > sum ? j->v->total_s - sum : 0;
}

/* ---- the timing track: each function the inner track's, timed ---- */

static int p_shape_init(struct judge *j, int bind, struct kjj_shape **out)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_SHAPE);
	rc = j->inner->shape_init(j, bind, out);
	kjj_prof_end(j);
	return rc;
}

static void p_shape_free(struct judge *j, struct kjj_shape *s)
{
	kjj_prof_begin(j, KJ_PROF_SHAPE);
	j->inner->shape_free(j, s);
	kjj_prof_end(j);
}

static int p_gen(struct judge *j, struct kjj_shape *s, uint64_t seed, kj_seed_flavour fl)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_GEN);
	rc = j->inner->gen(j, s, seed, fl);
	kjj_prof_end(j);
	return rc;
}

static int p_gen_timed(struct judge *j, struct kjj_shape *s, uint64_t seed)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_GEN);
	rc = j->inner->gen_timed(j, s, seed);
	kjj_prof_end(j);
	return rc;
}

static int p_run_ref(struct judge *j, struct kjj_shape *s)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_REF);
	rc = j->inner->run_ref(j, s);
	kjj_prof_end(j);
	return rc;
}

static int p_run_base(struct judge *j, struct kjj_shape *s)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_BASE_RUN);
	rc = j->inner->run_base(j, s);
	kjj_prof_end(j);
	return rc;
}

static int p_call(struct judge *j, struct kjj_shape *s, int garbage, int timed, struct kjj_call *c)
{
	int rc;
	kjj_prof_begin(j, timed ? KJ_PROF_TIMED_CALL : KJ_PROF_CALL);
	rc = j->inner->call(j, s, garbage, timed, c);
	kjj_prof_end(j);
	return rc;
}

static int p_inputs_changed(struct judge *j, struct kjj_shape *s, kj_stage sg, int bind, int *changed)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_INPUT_CHECK);
	rc = j->inner->inputs_changed(j, s, sg, bind, changed);
	kjj_prof_end(j);
	return rc;
}

static int p_outputs(struct judge *j, struct kjj_shape *s, int bind, int k, uint64_t seed, kj_seed_flavour fl,
		     kj_stage sg, double ms, int record, int *bad)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_COMPARE);
	rc = j->inner->outputs(j, s, bind, k, seed, fl, sg, ms, record, bad);
	kjj_prof_end(j);
	return rc;
}

static int p_outputs_vs_base(struct judge *j, struct kjj_shape *s, int bind, int it, int *bad)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_VS_BASE);
	rc = j->inner->outputs_vs_base(j, s, bind, it, bad);
	kjj_prof_end(j);
	return rc;
}

static int p_time_base(struct judge *j, struct kjj_shape *s, double *ms)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_TIME_BASE);
	rc = j->inner->time_base(j, s, ms);
	kjj_prof_end(j);
	return rc;
}

static int p_time_base_train(struct judge *j, struct kjj_shape *s, double call_ms, double *ms, int *reps,
			     double *spread)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_TIME_BASE);
	rc = j->inner->time_base_train(j, s, call_ms, ms, reps, spread);
	kjj_prof_end(j);
	return rc;
}

static double p_ref_cost_ms(struct judge *j, struct kjj_shape *s)
{
	double ms;
	kjj_prof_begin(j, KJ_PROF_REF);
	ms = j->inner->ref_cost_ms(j, s);
	kjj_prof_end(j);
	return ms;
}

static int p_probe_floor(struct judge *j, int bind, double *ms)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_FLOOR);
	rc = j->inner->probe_floor(j, bind, ms);
	kjj_prof_end(j);
	return rc;
}

static int p_train(struct judge *j, struct kjj_shape *s, int bind, double wall_ms, struct kjj_train *tr, int *bad)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_TRAIN);
	rc = j->inner->train(j, s, bind, wall_ms, tr, bad);
	kjj_prof_end(j);
	return rc;
}

void kjj_prof_track(struct judge *j)
{
	const struct kjj_track *in = j->track;
	struct kjj_track *p = &j->prof_track;
	j->inner = in;
	j->prof_log = getenv("KJ_PROF_LOG"); /* read once per evaluation, not cached process-wide */
	*p = *in;
	/* optional functions stay NULL where the inner track has none */
#define WRAP(f) \
	if (in->f) \
		p->f = p_##f
	WRAP(shape_init);
	WRAP(shape_free);
	WRAP(gen);
	WRAP(gen_timed);
	WRAP(run_ref);
	WRAP(run_base);
	WRAP(call);
	WRAP(inputs_changed);
	WRAP(outputs);
	WRAP(outputs_vs_base);
	WRAP(time_base);
	WRAP(time_base_train);
	WRAP(ref_cost_ms);
	WRAP(probe_floor);
	WRAP(train);
#undef WRAP
	j->track = p;
}
