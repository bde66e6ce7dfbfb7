/*
 * The engine of `kjudge run` (kj_record_run): every candidate of a run
 * without a verdict is judged.  A pool of compile threads compiles ahead
 * (kj_compile fills the content-addressed cache), and one evaluation thread
 * per device (each GPU; the host on the CPU track) takes compiled candidates
 * in order and judges them with kj_record_judge, whose compile is then a
 * cache hit.  One thread per device means two timings never share a device.
 * A source already judged (same sha256, task, backend, device and verdict
 * settings) gets a copy of that verdict instead, and identical sources in
 * the run are judged once.  Every verdict is committed on its own, so a kill
 * loses only the judgements in flight.
 */
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kjudge/record.h"

/* consecutive judge failures on one device that end the run: the judge
 * itself is broken (worker missing, device lost), not a candidate */
#define MAX_JUDGE_FAILS 3

enum { J_NEW = 0, J_COMPILING, J_READY, J_EVAL, J_DONE };

struct job {
	int64_t cid;
	const kj_task *t;
	char sha[65];
	char *source;
	size_t len;
	char label[320];
	int leader;       /* -1: judged itself; else the job whose verdict it copies */
	int next_follower; /* chain of jobs copying this one, -1 at the end */
	int state;
	int pre_ok, pre_cached;
	double pre_s;
	int spec_pos;      /* position in the SPEC (ties keep it) */
	double cost;       /* estimated judging seconds (job_cost), for the order */
};

struct device {
	struct kj_record_dev_stats *st; /* written by its evaluation thread only, read after */
	kj_gpu *gpu; /* this device's judge context, opened by its evaluation thread */
	struct kj_pypool *pypool; /* its pre-warmed Python workers, made and freed by that thread */
};

struct runner {
	const struct kj_record_run_opts *o;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *jobs;
	int njobs;
	int next_compile;
	int evals_live;
	int fatal;
	struct kj_record_run_stats *st; /* done, judged, reused, failed: under mu */
	char cache_key[256];
	struct device devs[KJ_RECORD_MAX_DEVS];
	double t0;
};

static void say(const struct runner *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct runner *r, const char *fmt, ...)
{
	char line[1536];
	va_list ap;
	if (!r->o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->o->log(r->o->ctx, line);
}

/* Estimated seconds to judge a candidate of job i's task: per shape the
 * backend runs (check shapes, then its bench shapes), a time t from the
 * shape's FLOPs and compulsory bytes at rough rates (the GPU's fp64
 * reference, or a CPU core), run once
 * per seed and, on bench shapes, timed for at least 10 samples or the
 * perf budget.  Only the order matters, so the rates are round figures.
 * Jobs of one task share the estimate of the first. */
static double job_cost(const struct runner *r, const struct job *jobs, int i)
{
	const struct kj_eval_opts *e = &r->o->eval;
	const kj_task *t = jobs[i].t;
	int bench = e->backend == KJ_BACKEND_CPU ? 2 : 1;
	double cost = 0.0;
	for (int k = 0; k < i; k++)
		if (jobs[k].t == t)
			return jobs[k].cost;
	for (int b = 0; b < t->nbind; b++) {
		kj_plan p;
		struct kj_err e2;
		double ts;
		if (t->binds[b].bench != 0 && t->binds[b].bench != bench)
			continue;
		kj_err_init(&e2);
		if (kj_plan_build(t, b, &p, &e2))
			continue;
		ts = bench == 2 ? p.flops / 2e10 + p.min_bytes / 1e10 : p.flops / 1e13 + p.min_bytes / 1e12;
		kj_plan_release(&p);
		cost += 2e-3 + (e->seeds + 1) * ts;
		if (t->binds[b].bench && !e->no_perf)
			cost += 10 * ts > e->perf_budget_s ? 10 * ts : e->perf_budget_s;
	}
	return cost;
}

static int job_by_cost(const void *a, const void *b)
{
	const struct job *x = a, *y = b;
	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	return x->spec_pos < y->spec_pos ? -1 : x->spec_pos > y->spec_pos;
}

static int should_stop(struct runner *r)
{
	return (r->o->stop && *r->o->stop) || r->fatal;
}

static void *compile_main(void *arg)
{
	struct runner *r = arg;
	const struct kj_eval_opts *e = &r->o->eval;
	for (;;) {
		struct kj_compile_opts co;
		struct kj_compile_result cr;
		struct job *j;
		int i;
		pthread_mutex_lock(&r->mu);
		while (r->next_compile < r->njobs &&
		       (r->jobs[r->next_compile].leader >= 0 || r->jobs[r->next_compile].state != J_NEW))
			r->next_compile++;
		if (should_stop(r) || r->next_compile >= r->njobs) {
			pthread_mutex_unlock(&r->mu);
			break;
		}
		i = r->next_compile++;
		j = &r->jobs[i];
		j->state = J_COMPILING;
		pthread_mutex_unlock(&r->mu);

		memset(&co, 0, sizeof(co));
		memset(&cr, 0, sizeof(cr));
		co.backend = e->backend;
		co.cache_dir = e->cache_dir;
		co.include_dir = e->include_dir;
		if (e->backend == KJ_BACKEND_CUDA && r->st->devs[0].arch[0])
			co.arch = r->st->devs[0].arch;
		/* a failure here is not the verdict: kj_eval compiles again and
		 * decides, this only warms the cache */
		if (kj_backend_is_python(e->backend)) {
			/* a KernelBench candidate's load_inline build, without the
			 * GPU (its warm-up calls stay on the device's thread) */
			struct kj_err pe;
			double t0 = kj_record_now_s();
			int built = 0;
			kj_err_init(&pe);
			if (kj_py_prebuild(j->t, j->source, j->len, e, r->st->devs[0].arch, &built, &pe) == 0 && built) {
				j->pre_ok = 1;
				j->pre_s = kj_record_now_s() - t0;
			}
		} else if (kj_compile(j->source, j->len, &co, &cr, NULL) == 0) {
			j->pre_ok = 1;
			j->pre_cached = cr.cached;
			j->pre_s = cr.seconds;
		}
		kj_compile_result_release(&cr);

		pthread_mutex_lock(&r->mu);
		j->state = J_READY;
		pthread_cond_broadcast(&r->cv);
		pthread_mutex_unlock(&r->mu);
	}
	return NULL;
}

/* The first compiled job not taken yet; -1 when none is ready, -2 when every
 * job is taken. */
static int take_ready(struct runner *r)
{
	int open = 0;
	for (int i = 0; i < r->njobs; i++) {
		struct job *j = &r->jobs[i];
		if (j->leader >= 0 || j->state >= J_EVAL)
			continue;
		open = 1;
		if (j->state == J_READY)
			return i;
	}
	return open ? -1 : -2;
}

static void judge_one(struct runner *r, struct device *d, struct job *j, int *fails)
{
	struct kj_eval_opts o = r->o->eval;
	struct kj_recorder rec;
	struct kj_record_cand c;
	struct kj_record_out out;
	struct kj_err err;
	int copies = 0;
	kj_err_init(&err);
	o.device = d->st->ordinal;
	o.gpu = d->gpu;
	o.pypool = d->pypool;
	memset(&rec, 0, sizeof(rec));
	rec.db = r->o->db;
	rec.run_id = r->o->run_id;
	rec.device_id = d->st->id;
	rec.cache_key = r->cache_key;
	rec.eval = &o;
	memset(&c, 0, sizeof(c));
	c.id = j->cid;
	c.t = j->t;
	c.source = j->source;
	c.len = j->len;
	c.sha256 = j->sha;
	c.no_lookup = 1; /* looked up before the threads started, on every device */
	/* the compile happened in the pool: report its cost, not the cache hit */
	c.compiled_ahead = j->pre_ok && !j->pre_cached;
	c.compile_s = j->pre_s;
	if (kj_record_judge(&rec, &c, &out, &err)) {
		d->st->record -= out.eval_s;
		goto fail;
	}
	d->st->record -= out.eval_s;
	for (int p = 0; p < KJ_PROF_COUNT; p++)
		d->st->prof[p] += out.prof_s[p];
	d->st->ref_cache_hits += out.ref_cache_hits;
	d->st->ref_cache_stored += out.ref_cache_stored;
	*fails = 0;
	for (int f = j->next_follower; f >= 0; f = r->jobs[f].next_follower) {
		struct kj_err e2;
		kj_err_init(&e2);
		if (kj_store_copy_verdict(r->o->db, j->cid, r->jobs[f].cid, &e2) == 0)
			copies++;
		else
			say(r, "\n%s: cannot reuse the verdict: %s", r->jobs[f].label, e2.msg);
	}
	pthread_mutex_lock(&r->mu);
	r->st->judged++;
	r->st->reused += copies;
	r->st->done += 1 + copies;
	pthread_mutex_unlock(&r->mu);
	return;
fail:
	say(r, "\njudge failed on %s: %s", j->label, err.msg);
	pthread_mutex_lock(&r->mu);
	r->st->failed++;
	if (++*fails >= MAX_JUDGE_FAILS) {
		if (!r->fatal)
			say(r, "%d judge failures in a row on device %d: stopping", *fails, d->st->ordinal);
		r->fatal = 1;
	}
	pthread_mutex_unlock(&r->mu);
}

struct eval_arg {
	struct runner *r;
	struct device *d;
};

static void *eval_main(void *arg)
{
	struct eval_arg *a = arg;
	struct runner *r = a->r;
	struct kj_record_dev_stats *ds = a->d->st;
	int fails = 0;
	/* one GPU context per device for the whole run, not one per candidate */
	if (kj_backend_is_gpu(r->o->eval.backend) && kj_gpu_available() &&
	    kj_gpu_open(ds->ordinal, &a->d->gpu, NULL))
		a->d->gpu = NULL;
	/* the next candidate's Python worker starts while one is judged */
	if (kj_backend_is_python(r->o->eval.backend))
		a->d->pypool = kj_pypool_new(kj_pypool_spares_default());
	pthread_mutex_lock(&r->mu);
	for (;;) {
		int i;
		if (should_stop(r))
			break;
		i = take_ready(r);
		if (i == -2)
			break;
		if (i == -1) {
			struct timespec ts;
			double w0 = kj_record_now_s();
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&r->cv, &r->mu, &ts);
			ds->wait += kj_record_now_s() - w0;
			continue;
		}
		r->jobs[i].state = J_EVAL;
		pthread_mutex_unlock(&r->mu);
		{
			double j0 = kj_record_now_s();
			if (!ds->jobs++)
				ds->first_start = j0 - r->t0;
			judge_one(r, a->d, &r->jobs[i], &fails);
			ds->last_end = kj_record_now_s() - r->t0;
			ds->busy += kj_record_now_s() - j0;
			ds->record += kj_record_now_s() - j0;
		}
		pthread_mutex_lock(&r->mu);
		r->jobs[i].state = J_DONE;
		pthread_cond_broadcast(&r->cv);
	}
	r->evals_live--;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	kj_pypool_free(a->d->pypool);
	a->d->pypool = NULL;
	if (a->d->gpu)
		kj_gpu_close(a->d->gpu);
	a->d->gpu = NULL;
	return NULL;
}

/* ---- the run's jobs ----------------------------------------------------------- */

struct pend_ctx {
	struct runner *r;
	int cap;
	struct kj_err *err;
};

static int collect_pending(void *ctx, const struct kj_store_cand *c)
{
	struct pend_ctx *p = ctx;
	struct runner *r = p->r;
	struct job *j;
	if (r->njobs == p->cap) {
		struct job *nv;
		p->cap = p->cap ? 2 * p->cap : 256;
		nv = realloc(r->jobs, (size_t)p->cap * sizeof(*nv));
		if (!nv)
			return kj_err_set(p->err, KJ_E_NOMEM, "out of memory");
		r->jobs = nv;
	}
	j = &r->jobs[r->njobs];
	memset(j, 0, sizeof(*j));
	j->source = malloc(c->source_len + 1);
	if (!j->source)
		return kj_err_set(p->err, KJ_E_NOMEM, "out of memory");
	memcpy(j->source, c->source, c->source_len);
	j->source[c->source_len] = 0;
	j->len = c->source_len;
	j->cid = c->id;
	j->leader = -1;
	j->next_follower = -1;
	snprintf(j->sha, sizeof(j->sha), "%s", c->sha256);
	/* the task name doubles as the lookup key until tasks are resolved */
	snprintf(j->label, sizeof(j->label), "%s", c->task);
	if (*c->path)
		snprintf(j->label + strlen(j->label), sizeof(j->label) - strlen(j->label), "\t%s", c->path);
	else
		snprintf(j->label + strlen(j->label), sizeof(j->label) - strlen(j->label),
			 "\t%s/%s/%d_%d", *c->model ? c->model : "-", c->task, c->sample, c->round);
	r->njobs++;
	return 0;
}

/* The devices rows of the run's devices. */
static int devices(struct runner *r, struct kj_err *err)
{
	const struct kj_record_run_opts *o = r->o;
	struct kj_record_run_stats *st = r->st;
	int rc;
	if (o->eval.backend == KJ_BACKEND_CPU) {
		if ((rc = kj_record_cpu_device(o->db, &st->devs[0].id, st->devs[0].name,
					       sizeof(st->devs[0].name), err)))
			return rc;
		st->ndevs = 1;
		return 0;
	}
	for (int i = 0; i < o->ngpus && i < KJ_RECORD_MAX_DEVS; i++) {
		struct kj_record_dev_stats *d = &st->devs[i];
		d->ordinal = o->gpus[i];
		if ((rc = kj_record_gpu_ordinal(o->db, o->gpus[i], o->eval.cache_dir, &d->id, d->arch,
						sizeof(d->arch), d->name, sizeof(d->name), err)))
			return rc;
		st->ndevs++;
	}
	return 0;
}

/* The run's pending candidates as jobs, in the order they are judged in:
 * those the verdict cache knows get their copy now, and duplicates follow
 * the first of their source. */
static int make_jobs(struct runner *r, struct kj_err *err)
{
	const struct kj_record_run_opts *o = r->o;
	struct kj_record_run_stats *st = r->st;
	struct pend_ctx pc = { r, 0, err };
	int rc, reused_pre = 0;
	if ((rc = kj_store_pending(o->db, o->run_id, collect_pending, &pc, err)))
		return rc;
	for (int i = 0; i < r->njobs; i++) {
		struct job *j = &r->jobs[i];
		char *tab = strchr(j->label, '\t');
		*tab = 0;
		if ((rc = kj_record_task_get(o->tasks, j->label, &j->t, NULL, err)))
			return rc;
		memmove(j->label, tab + 1, strlen(tab + 1) + 1);
		j->spec_pos = i;
		j->cost = o->order_cost ? job_cost(r, r->jobs, i) : 0;
	}
	/* longest first: the devices' last jobs are then short ones, so that one
	 * GPU does not judge a long candidate alone at the end (two GPUs idled
	 * 10 s of 61 s that way in spec order) */
	if (o->order_cost && r->njobs > 1)
		qsort(r->jobs, (size_t)r->njobs, sizeof(*r->jobs), job_by_cost);
	for (int i = 0; i < r->njobs; i++) {
		struct job *j = &r->jobs[i];
		int64_t from = 0;
		for (int d = 0; d < st->ndevs && !from; d++)
			if ((rc = kj_store_find_verdict_by_sha(o->db, j->sha, j->t->id,
							       kj_backend_name(o->eval.backend),
							       st->devs[d].id, r->cache_key, &from, err)))
				return rc;
		if (from) {
			if ((rc = kj_store_copy_verdict(o->db, from, j->cid, err)))
				return rc;
			j->state = J_DONE;
			j->leader = i; /* neither compiled nor judged */
			reused_pre++;
			continue;
		}
		for (int k = 0; k < i; k++) {
			struct job *l = &r->jobs[k];
			if (l->leader < 0 && l->t == j->t && !strcmp(l->sha, j->sha)) {
				int *tail = &l->next_follower;
				while (*tail >= 0)
					tail = &r->jobs[*tail].next_follower;
				*tail = i;
				j->leader = k;
				break;
			}
		}
	}
	st->reused = st->done = reused_pre;
	st->total = r->njobs;
	return 0;
}

/* The threads: compile pool and evaluation threads, the progress from here
 * until they end. */
static int judge_all(struct runner *r, struct kj_err *err)
{
	const struct kj_record_run_opts *o = r->o;
	struct kj_record_run_stats *st = r->st;
	struct eval_arg eargs[KJ_RECORD_MAX_DEVS];
	pthread_t *cth, eth[KJ_RECORD_MAX_DEVS];
	sigset_t block, prev;
	int jobs = o->jobs > 0 ? o->jobs : 1, last_shown = -1;
	/* plain lines: about ten per run, at least one per 100 candidates */
	int every = st->total / 10 < 1 ? 1 : st->total / 10 > 100 ? 100 : st->total / 10;
	double tprint = 0;

	if (st->done < st->total) {
		/* signals go to the caller's thread only: a judge thread's system
		 * calls must never see EINTR from a ^C */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &block, &prev);
		cth = calloc((size_t)jobs, sizeof(*cth));
		if (!cth) {
			pthread_sigmask(SIG_SETMASK, &prev, NULL);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		}
		for (int i = 0; i < jobs; i++)
			pthread_create(&cth[i], NULL, compile_main, r);
		r->evals_live = st->ndevs;
		for (int i = 0; i < st->ndevs; i++) {
			r->devs[i].st = &st->devs[i];
			eargs[i].r = r;
			eargs[i].d = &r->devs[i];
			pthread_create(&eth[i], NULL, eval_main, &eargs[i]);
		}
		pthread_sigmask(SIG_SETMASK, &prev, NULL);
		pthread_mutex_lock(&r->mu);
		while (r->evals_live > 0) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 250000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&r->cv, &r->mu, &ts);
			if (should_stop(r))
				pthread_cond_broadcast(&r->cv);
			if (o->progress && st->done != last_shown && st->done &&
			    (o->tty ? kj_record_now_s() - tprint > 0.2
				    : st->done / every != last_shown / every)) {
				o->progress(o->ctx, st, 0);
				last_shown = st->done;
				tprint = kj_record_now_s();
			}
		}
		pthread_mutex_unlock(&r->mu);
		for (int i = 0; i < st->ndevs; i++)
			pthread_join(eth[i], NULL);
		/* compile threads stop taking work once evaluation has stopped */
		pthread_mutex_lock(&r->mu);
		r->next_compile = r->njobs;
		pthread_mutex_unlock(&r->mu);
		for (int i = 0; i < jobs; i++)
			pthread_join(cth[i], NULL);
		free(cth);
	}
	if (o->progress && (o->tty || st->done != last_shown))
		o->progress(o->ctx, st, 1);
	return 0;
}

int kj_record_run(const struct kj_record_run_opts *o, struct kj_record_run_stats *st,
		  struct kj_err *err)
{
	struct runner r;
	int rc;
	memset(st, 0, sizeof(*st));
	memset(&r, 0, sizeof(r));
	r.o = o;
	r.st = st;
	r.t0 = o->t0 > 0 ? o->t0 : kj_record_now_s();
	{
		struct kj_verdict_settings vs;
		kj_eval_opts_settings(&o->eval, &vs);
		kj_store_cache_key(&vs, r.cache_key, sizeof(r.cache_key));
	}
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	if (!(rc = devices(&r, err)) && !(rc = make_jobs(&r, err)))
		rc = judge_all(&r, err);
	for (int i = 0; i < r.njobs; i++)
		free(r.jobs[i].source);
	free(r.jobs);
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);
	return rc;
}
