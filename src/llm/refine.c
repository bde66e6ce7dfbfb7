/*
 * The refinement driver: for every task and sample, round 0 asks the
 * one-shot (or few-shot) prompt, every later round the refinement prompt
 * with the previous attempt and the judge's staged feedback on it.  Each
 * answer's code block is judged and stored as a candidate (model, task,
 * sample, round, method, parent) with its verdict, so the run's report has
 * fast_p@k over samples and fast_p@N over rounds.
 *
 * A chain keeps its best attempt.  After `stall` rounds without progress it
 * restarts from the best one with a fresh context (the history of attempts
 * is dropped from the prompt) and the attempt's method is "refine-restart".
 *
 * Resuming: the attempts a run already holds for the model are read back in
 * round order and replayed through the same state machine (a stored
 * "refine-restart" is a restart whatever --stall says now), so the next
 * question is the one an uninterrupted run would have asked.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/hash.h"
#include "kjudge/llm.h"
#include "kjudge/record.h"
#include "llm/llm_internal.h"

/* verdicts of answers without a code block are not reusable by sha: the
 * stored "source" is the whole answer */
#define NOCODE_KEY "no-code-block"

void kj_refine_opts_init(struct kj_refine_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->samples = 1;
	o->rounds = 1;
	kj_prompt_opts_init(&o->prompt);
}

void kj_refine_stats_release(struct kj_refine_stats *s)
{
	free(s->best);
	s->best = NULL;
	s->nbest = 0;
}

struct attempt {
	int64_t id;
	int round;
	char *source;
	size_t len;
	char *json;
	kj_status status;
	int stage_rank;
	double speedup;
};

struct chain {
	const kj_task *t;
	int sample;
	int next_round;
	int stopped;
	struct attempt last, best;
	int have_best;
	int stall;
	int restarts;
	struct kjl_buf history;
};

static void attempt_release(struct attempt *a)
{
	free(a->source);
	free(a->json);
	memset(a, 0, sizeof(*a));
}

static int attempt_copy(struct attempt *dst, const struct attempt *src)
{
	struct attempt a = *src;
	a.source = malloc(src->len + 1);
	a.json = src->json ? strdup(src->json) : NULL;
	if (!a.source || (src->json && !a.json)) {
		free(a.source);
		free(a.json);
		return -1;
	}
	memcpy(a.source, src->source, src->len);
	a.source[src->len] = 0;
	attempt_release(dst);
	*dst = a;
	return 0;
}

static void progress(const struct kj_refine_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void progress(const struct kj_refine_opts *o, const char *fmt, ...)
{
	char line[1536];
	va_list ap;
	if (!o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->progress(o->progress_ctx, line);
}

/* Status, stage and speedup of a verdict JSON into a. */
static void read_verdict(struct attempt *a)
{
	json_t *v = a->json ? json_loads(a->json, 0, NULL) : NULL, *sp;
	const char *st = json_string_value(json_object_get(v, "status"));
	const char *stage = json_string_value(json_object_get(v, "stage"));
	a->status = KJ_ST_COMPILE_ERROR;
	if (st)
		kj_status_from_name(st, &a->status);
	a->stage_rank = 0;
	if (stage) {
		if (!strcmp(stage, "call"))
			a->stage_rank = 1;
		else if (!strcmp(stage, "correctness"))
			a->stage_rank = 2;
		else if (!strcmp(stage, "performance") || !strcmp(stage, "done"))
			a->stage_rank = 3;
	}
	sp = json_object_get(v, "speedup");
	a->speedup = json_is_number(sp) ? json_number_value(sp) : 0;
	json_decref(v);
}

/* Progress: a pass beats a failure, a later failing stage an earlier one,
 * and between passes a speedup more than 1% higher (timing noise is not
 * progress). */
static int better(const struct attempt *a, const struct attempt *b)
{
	int ap = a->status == KJ_ST_PASS, bp = b->status == KJ_ST_PASS;
	if (ap != bp)
		return ap;
	if (ap)
		return a->speedup > b->speedup * 1.01;
	return a->stage_rank > b->stage_rank;
}

static void history_line(struct chain *c, const struct attempt *a, const char *reason)
{
	if (a->status == KJ_ST_PASS) {
		if (a->speedup > 0)
			kjl_printf(&c->history, "- round %d: pass, speedup %.3gx\n", a->round, a->speedup);
		else
			kjl_printf(&c->history, "- round %d: pass (not timed)\n", a->round);
	} else {
		kjl_printf(&c->history, "- round %d: %s%s%.160s\n", a->round, kj_status_name(a->status),
			   reason && *reason ? ": " : "", reason ? reason : "");
	}
}

/* Takes a judged attempt into the chain's state.  a is moved from. */
static int observe(struct chain *c, struct attempt *a, int restart)
{
	char reason[256] = "";
	json_t *v;
	if (restart) {
		kjl_release(&c->history);
		c->stall = 0;
		c->restarts++;
	}
	read_verdict(a);
	v = a->json ? json_loads(a->json, 0, NULL) : NULL;
	if (json_is_string(json_object_get(v, "reason")))
		snprintf(reason, sizeof(reason), "%s", json_string_value(json_object_get(v, "reason")));
	json_decref(v);
	history_line(c, a, reason);
	if (!c->have_best || better(a, &c->best)) {
		if (attempt_copy(&c->best, a))
			return -1;
		c->have_best = 1;
		c->stall = 0;
	} else {
		c->stall++;
	}
	attempt_release(&c->last);
	c->last = *a;
	memset(a, 0, sizeof(*a));
	c->next_round = c->last.round + 1;
	return 0;
}

/* ---- judging ---------------------------------------------------------------- */

static int judge(const struct kj_refine_opts *o, struct kj_refine_stats *st, const kj_task *t,
		 struct attempt *a, const char *sha, struct kj_err *err)
{
	struct kj_recorder rec;
	struct kj_record_cand c;
	struct kj_record_out out;
	int rc;
	memset(&rec, 0, sizeof(rec));
	rec.db = o->db;
	rec.run_id = o->run_id;
	rec.device_id = o->device_id;
	rec.cache_key = o->cache_key;
	rec.eval = o->eval;
	memset(&c, 0, sizeof(c));
	c.id = a->id;
	c.t = t;
	c.source = a->source;
	c.len = a->len;
	c.sha256 = sha;
	c.want_json = 1;
	if ((rc = kj_record_judge(&rec, &c, &out, err))) {
		if (out.failed == KJ_RECORD_STEP_EVAL)
			kj_err_prefix(err, "judging %s round %d", t->id, a->round);
		return rc;
	}
	if (out.how == KJ_RECORD_COPIED)
		st->reused++;
	else
		st->judged++;
	free(a->json);
	a->json = out.json;
	return 0;
}

/* The verdict of an answer with no code block: a compile error at the
 * static stage, stored like any other. */
static int store_nocode(const struct kj_refine_opts *o, const kj_task *t, struct attempt *a,
			const char *sha, struct kj_err *err)
{
	struct kj_store_verdict_opts vo;
	kj_verdict v;
	int rc;
	kj_verdict_init(&v);
	snprintf(v.task, sizeof(v.task), "%s", t->id);
	v.backend = o->eval->backend;
	snprintf(v.sha256, sizeof(v.sha256), "%s", sha);
	v.status = KJ_ST_COMPILE_ERROR;
	v.stage = KJ_STAGE_STATIC;
	snprintf(v.reason, sizeof(v.reason), "no code block in the answer");
	v.seeds = o->eval->seeds;
	v.base_seed = o->eval->base_seed;
	v.seed_hidden = o->eval->seed_hidden;
	memset(&vo, 0, sizeof(vo));
	vo.run_id = o->run_id;
	vo.device_id = o->device_id;
	vo.cache_key = NOCODE_KEY;
	if ((rc = kj_store_put_verdict(o->db, a->id, &v, t, NULL, &vo, err)))
		return rc;
	free(a->json);
	a->json = NULL;
	return kj_store_get_verdict(o->db, a->id, &a->json, NULL, err);
}

/* ---- resuming ----------------------------------------------------------------- */

struct row {
	struct attempt a;
	char sha[65];
	int restart;
};

static void rows_free(struct row *v, int n)
{
	for (int i = 0; i < n; i++)
		attempt_release(&v[i].a);
	free(v);
}

struct rows {
	struct row *v;
	int n;
};

/* Rounds 0, 1, 2... up to the first gap (the callback's positive stop). */
static int on_attempt(void *ctx, const struct kj_store_attempt *at)
{
	struct rows *rs = ctx;
	struct row *nv, *r;
	if (at->round != rs->n)
		return 1;
	if (!(nv = realloc(rs->v, (size_t)(rs->n + 1) * sizeof(*nv))))
		return KJ_E_NOMEM;
	rs->v = nv;
	r = &rs->v[rs->n++];
	memset(r, 0, sizeof(*r));
	r->a.id = at->id;
	r->a.round = at->round;
	r->a.len = at->source_len;
	r->restart = !strcmp(at->method, "refine-restart");
	snprintf(r->sha, sizeof(r->sha), "%s", at->sha256);
	if (!(r->a.source = malloc(r->a.len + 1)) || (at->json && !(r->a.json = strdup(at->json))))
		return KJ_E_NOMEM;
	if (r->a.len)
		memcpy(r->a.source, at->source, r->a.len);
	r->a.source[r->a.len] = 0;
	return 0;
}

/* The stored attempts of chain c, rounds 0, 1, 2... up to the first gap. */
static int read_rows(const struct kj_refine_opts *o, const struct chain *c, struct row **out, int *n,
		     struct kj_err *err)
{
	struct rows rs = { NULL, 0 };
	int rc = kj_store_attempts(o->db, o->run_id, o->model, c->t->id, c->sample, on_attempt, &rs, err);
	*out = NULL;
	*n = 0;
	if (rc == KJ_E_NOMEM)
		kj_err_set(err, KJ_E_NOMEM, "out of memory");
	if (rc < 0) {
		rows_free(rs.v, rs.n);
		return rc;
	}
	*out = rs.v;
	*n = rs.n;
	return 0;
}

static int resume_chain(const struct kj_refine_opts *o, struct kj_refine_stats *st, struct chain *c,
			struct kj_err *err)
{
	struct row *v;
	int n, rc;
	if ((rc = read_rows(o, c, &v, &n, err)))
		return rc;
	for (int i = 0; i < n && !rc; i++) {
		if (!v[i].a.json) {
			/* stored but not judged (killed in between): judge it now */
			progress(o, "%s sample %d round %d: stored without a verdict, judging it", c->t->id,
				 c->sample, i);
			rc = judge(o, st, c->t, &v[i].a, v[i].sha, err);
		}
		if (!rc && observe(c, &v[i].a, v[i].restart))
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
		st->resumed++;
	}
	rows_free(v, n);
	return rc;
}

/* ---- the loop ------------------------------------------------------------------ */

static const char *system_prompt(kj_backend be)
{
	return be == KJ_BACKEND_CUDA
		       ? "You are an expert CUDA performance engineer. You write correct, fast CUDA C++ kernels "
			 "and answer with one complete source file in a fenced code block."
		       : "You are an expert C performance engineer. You write correct, fast C11 code and answer "
			 "with one complete source file in a fenced code block.";
}

/* One round of chain c: ask, extract, store, judge, observe.  Returns 0
 * (also when the chain stopped on an ask error), or a fatal error. */
static int step(const struct kj_refine_opts *o, struct kj_refine_stats *st, struct chain *c,
		struct kj_err *err)
{
	struct kj_prompt_prev prev, *pp = NULL;
	struct kj_refine_ask q;
	struct kj_store_candidate sc;
	struct kj_err aerr;
	struct attempt a;
	char *prompt = NULL, *answer = NULL, *code = NULL, sha[65];
	size_t clen = 0;
	int round = c->next_round, restart = 0, rc, created = 0;
	int64_t parent = 0;
	const char *method = o->prompt.shots > 0 ? "fewshot" : "oneshot";
	memset(&a, 0, sizeof(a));
	if (round > 0) {
		const struct attempt *from = &c->last;
		restart = o->stall > 0 && c->stall >= o->stall && c->have_best;
		if (restart)
			from = &c->best;
		memset(&prev, 0, sizeof(prev));
		prev.source = from->source;
		prev.len = from->len;
		prev.verdict_json = from->json;
		prev.round = from->round;
		prev.next_round = round;
		prev.restart = restart;
		prev.stalled = c->stall;
		prev.history = restart ? NULL : c->history.s;
		parent = from->id;
		method = restart ? "refine-restart" : "refine";
		pp = &prev;
	}
	if ((rc = kj_prompt_render(c->t, &o->prompt, pp, &prompt, err)))
		return rc;
	memset(&q, 0, sizeof(q));
	q.system = system_prompt(o->prompt.backend);
	q.prompt = prompt;
	q.task = c->t->id;
	q.method = method;
	q.sample = c->sample;
	q.round = round;
	kj_err_init(&aerr);
	rc = o->ask(o->ask_ctx, &q, &answer, &aerr);
	free(prompt);
	if (rc) {
		if (rc == KJ_E_USAGE) {
			*err = aerr;
			return rc;
		}
		progress(o, "%s sample %d round %d: no answer, this chain stops here: %s", c->t->id, c->sample,
			 round, aerr.msg);
		c->stopped = 1;
		st->ask_errors++;
		return 0;
	}
	st->asked++;
	if (kj_llm_extract_code(answer, c->t->name, &code, &clen, NULL)) {
		/* the attempt is the whole answer, judged "no code block" */
		code = answer;
		clen = strlen(answer);
		answer = NULL;
		a.status = KJ_ST_COMPILE_ERROR;
		st->no_code++;
	} else {
		a.status = KJ_ST_PASS; /* marks "has code" until judged */
	}
	free(answer);
	kj_sha256_hex(code, clen, sha);
	memset(&sc, 0, sizeof(sc));
	sc.run_id = o->run_id;
	sc.task = c->t->id;
	sc.source = code;
	sc.source_len = clen;
	sc.sha256 = sha;
	sc.model = o->model;
	sc.method = method;
	sc.sample = c->sample;
	sc.round = round;
	sc.parent_id = parent;
	if ((rc = kj_store_add_candidate(o->db, &sc, &a.id, &created, err))) {
		free(code);
		return rc;
	}
	a.round = round;
	a.source = code;
	a.len = clen;
	if (a.status == KJ_ST_COMPILE_ERROR)
		rc = store_nocode(o, c->t, &a, sha, err);
	else
		rc = judge(o, st, c->t, &a, sha, err);
	if (rc) {
		attempt_release(&a);
		return rc;
	}
	if (restart)
		st->restarts++;
	if (observe(c, &a, restart)) {
		attempt_release(&a);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	{
		const struct attempt *l = &c->last;
		char what[96];
		json_t *v = json_loads(l->json ? l->json : "{}", 0, NULL);
		const char *reason = json_string_value(json_object_get(v, "reason"));
		if (l->status == KJ_ST_PASS && l->speedup > 0)
			snprintf(what, sizeof(what), "pass, speedup %.3gx", l->speedup);
		else
			snprintf(what, sizeof(what), "%s", kj_status_name(l->status));
		progress(o, "%s sample %d round %d (%s): %s%s%.200s", c->t->id, c->sample, round, method, what,
			 reason && *reason ? ": " : "", reason ? reason : "");
		json_decref(v);
	}
	return 0;
}

int kj_refine_run(const kj_task *const *tasks, int ntasks, const struct kj_refine_opts *o,
		  struct kj_refine_stats *st, struct kj_err *err)
{
	struct chain *ch;
	int n = ntasks * o->samples, rc = 0;
	memset(st, 0, sizeof(*st));
	if (ntasks < 1 || o->samples < 1 || o->rounds < 1 || !o->ask || !o->db || !o->eval || !o->model)
		return kj_err_set(err, KJ_E_USAGE, "refine needs tasks, samples >= 1, rounds >= 1, a model, "
				  "a store and a judge");
	if (!(ch = calloc((size_t)n, sizeof(*ch))))
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		ch[i].t = tasks[i / o->samples];
		ch[i].sample = i % o->samples;
		kjl_init(&ch[i].history);
	}
	for (int i = 0; i < ntasks && !rc; i++)
		rc = kj_record_put_task(o->db, tasks[i], err);
	for (int i = 0; i < n && !rc; i++)
		rc = resume_chain(o, st, &ch[i], err);
	if (!rc && st->resumed)
		progress(o, "resuming: %d attempts already stored", st->resumed);
	/* round by round, so an interrupted run has whole early rounds */
	for (int r = 0; r < o->rounds && !rc; r++) {
		for (int i = 0; i < n && !rc; i++) {
			if (ch[i].stopped || ch[i].next_round != r)
				continue;
			if (o->stop && *o->stop) {
				st->interrupted = 1;
				break;
			}
			rc = step(o, st, &ch[i], err);
		}
		if (st->interrupted)
			break;
	}
	st->best = calloc((size_t)n, sizeof(*st->best));
	if (st->best) {
		st->nbest = n;
		for (int i = 0; i < n; i++) {
			struct kj_refine_best *b = &st->best[i];
			b->task = ch[i].t->id;
			b->sample = ch[i].sample;
			b->rounds_done = ch[i].next_round;
			b->restarts = ch[i].restarts;
			b->stopped = ch[i].stopped;
			if (ch[i].have_best) {
				b->candidate_id = ch[i].best.id;
				b->round = ch[i].best.round;
				b->status = ch[i].best.status;
				b->speedup = ch[i].best.speedup;
			}
		}
	} else if (!rc) {
		rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	for (int i = 0; i < n; i++) {
		attempt_release(&ch[i].last);
		attempt_release(&ch[i].best);
		kjl_release(&ch[i].history);
	}
	free(ch);
	return rc;
}
