/*
 * kjudge run: judges a batch of candidates into the results store.
 *
 * The SPEC (JSONL or a folder tree, docs/store.md) is loaded into the store
 * first, in one transaction and idempotently.  Then every candidate of the
 * run without a verdict is judged: a pool of --jobs threads compiles ahead
 * (kj_compile fills the content-addressed cache), and one evaluation thread
 * per device (each GPU of --gpus; the host on the CPU track) takes compiled
 * candidates in order and runs kj_eval, whose compile is then a cache hit.
 * One thread per device means two timings never share a device.  A source
 * already judged (same sha256, task, backend, device and verdict settings)
 * gets a copy of that verdict instead.  Every verdict is committed on its
 * own, so a kill loses only the judgements in flight and a rerun goes on
 * with the candidates still pending.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kjudge/gpu.h"
#include "kjudge/cluster.h"
#include "kjudge/hash.h"
#include "kjudge/judge.h"
#include "kjudge/knobs.h"
#include "kjudge/store.h"

#define MAX_DEVS 16
/* consecutive judge failures on one device that end the run: the judge
 * itself is broken (worker missing, device lost), not a candidate */
#define MAX_JUDGE_FAILS 3

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- tasks ---------------------------------------------------------------- */

struct task_ent {
	char *key;
	kj_task *t;
};

struct task_cache {
	struct task_ent *v;
	int n;
};

/* Loads (once) the task named key, writing its tasks row on first use. */
static int task_get(struct task_cache *tc, kj_db *db, const char *key, const kj_task **out,
		    struct kj_err *err)
{
	struct task_ent *nv;
	kj_task *t;
	char *kt, sha[65] = "";
	size_t len;
	int rc;
	for (int i = 0; i < tc->n; i++)
		if (!strcmp(tc->v[i].key, key) || !strcmp(tc->v[i].t->id, key)) {
			*out = tc->v[i].t;
			return 0;
		}
	if ((rc = kj_cli_load_task(key, &t, err)))
		return rc;
	if (kj_cli_read_file(t->path, &kt, &len, NULL) == 0) {
		kj_sha256_hex(kt, len, sha);
		free(kt);
	}
	if ((rc = kj_store_put_task(db, t, sha, err))) {
		kj_task_free(t);
		return rc;
	}
	nv = realloc(tc->v, (size_t)(tc->n + 1) * sizeof(*nv));
	if (!nv) {
		kj_task_free(t);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	tc->v = nv;
	tc->v[tc->n].key = strdup(key);
	tc->v[tc->n].t = t;
	tc->n++;
	*out = t;
	return 0;
}

static void task_cache_release(struct task_cache *tc)
{
	for (int i = 0; i < tc->n; i++) {
		free(tc->v[i].key);
		kj_task_free(tc->v[i].t);
	}
	free(tc->v);
}

/* ---- loading the SPEC ----------------------------------------------------- */

struct loader {
	kj_db *db;
	int64_t run_id;
	struct task_cache *tasks;
	int added, existing;
	int want_c, want_cu; /* folder trees: which extensions count */
	int want_py;         /* .py (the triton and kernelbench backends) */
	int skipped;
};

static int add_one(struct loader *L, const char *where, const char *task, const char *model,
		   const char *method, int sample, int round, const char *path, const char *source,
		   size_t len, struct kj_err *err)
{
	struct kj_store_candidate c;
	const kj_task *t;
	int64_t id;
	int created = 0, rc;
	if ((rc = task_get(L->tasks, L->db, task, &t, err))) {
		kj_err_prefix(err, "%s", where);
		return rc;
	}
	memset(&c, 0, sizeof(c));
	c.run_id = L->run_id;
	c.task = t->id;
	c.source = source;
	c.source_len = len;
	c.model = model;
	c.method = method;
	c.path = path;
	c.sample = sample;
	c.round = round;
	if ((rc = kj_store_add_candidate(L->db, &c, &id, &created, err))) {
		kj_err_prefix(err, "%s", where);
		return rc;
	}
	if (created)
		L->added++;
	else
		L->existing++;
	return 0;
}

static int json_int(json_t *o, const char *k, int def, int *out)
{
	json_t *v = json_object_get(o, k);
	if (!v || json_is_null(v)) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000000000)
		return -1;
	*out = (int)json_integer_value(v);
	return 0;
}

/* A spec line's keys: a misspelt one ("sampel") would otherwise be ignored
 * and the candidate filed under sample 0. */
static int spec_keys(json_t *o, const char *where, struct kj_err *err)
{
	static const char *const known[] = { "task", "model", "method", "sample", "round", "path", "source" };
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		size_t i;
		for (i = 0; i < sizeof(known) / sizeof(known[0]) && strcmp(k, known[i]); i++)
			;
		if (i == sizeof(known) / sizeof(known[0]))
			return kj_err_set(err, KJ_E_USAGE, "%s: unknown key \"%s\" (a spec line has task, model, "
					  "method, sample, round, and path or source)", where, k);
	}
	return 0;
}

static int json_str(json_t *o, const char *k, const char **out)
{
	json_t *v = json_object_get(o, k);
	*out = "";
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

static int load_jsonl(struct loader *L, const char *spec, struct kj_err *err)
{
	char *text, *line, *next, dirbuf[PATH_MAX], base[PATH_MAX];
	size_t len;
	int lineno = 0, rc = 0;
	if ((rc = kj_cli_read_file(spec, &text, &len, err)))
		return rc;
	snprintf(dirbuf, sizeof(dirbuf), "%s", spec);
	snprintf(base, sizeof(base), "%s", dirname(dirbuf));
	for (line = text; line && *line && !rc; line = next) {
		json_t *o;
		json_error_t je;
		const char *task, *model, *method, *path, *src;
		char where[PATH_MAX + 32], full[2 * PATH_MAX + 2];
		char *buf = NULL;
		size_t blen = 0;
		int sample, round;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		while (*line == ' ' || *line == '\t' || *line == '\r')
			line++;
		if (!*line || *line == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%d", spec, lineno);
		o = json_loads(line, 0, &je);
		if (!o || !json_is_object(o)) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: not a JSON object%s%s", where, o ? "" : ": ",
					o ? "" : je.text);
			json_decref(o);
			break;
		}
		if ((rc = spec_keys(o, where, err))) {
			json_decref(o);
			break;
		}
		if (json_str(o, "task", &task) || !*task || json_str(o, "model", &model) ||
		    json_str(o, "method", &method) || json_str(o, "path", &path) ||
		    json_str(o, "source", &src)) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: \"task\" must be a string, and \"model\", "
					"\"method\", \"path\", \"source\" strings when given", where);
		} else if (json_int(o, "sample", 0, &sample) || json_int(o, "round", 0, &round)) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: \"sample\" and \"round\" must be integers >= 0",
					where);
		} else if (!!*path == !!json_object_get(o, "source")) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: give exactly one of \"path\" and \"source\"",
					where);
		} else if (*path) {
			if (path[0] == '/')
				snprintf(full, sizeof(full), "%s", path);
			else
				snprintf(full, sizeof(full), "%s/%s", base, path);
			if ((rc = kj_cli_read_file(full, &buf, &blen, err)))
				kj_err_prefix(err, "%s", where);
			else
				rc = add_one(L, where, task, model, method, sample, round, full, buf, blen, err);
			free(buf);
		} else {
			rc = add_one(L, where, task, model, method, sample, round, "", src, strlen(src), err);
		}
		json_decref(o);
	}
	free(text);
	return rc;
}

/* <int>_<int>.<ext> */
static int parse_leaf(const char *name, int *sample, int *round, const char **ext)
{
	char *end;
	long a, b;
	if (name[0] < '0' || name[0] > '9')
		return -1;
	a = strtol(name, &end, 10);
	if (*end != '_' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end != '.' || a > 1000000000 || b > 1000000000)
		return -1;
	*sample = (int)a;
	*round = (int)b;
	*ext = end + 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under dir, as paths relative to root, sorted. */
static int walk(const char *root, const char *rel, int depth, char ***v, int *n)
{
	char path[2 * PATH_MAX];
	DIR *d;
	struct dirent *de;
	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	if (depth > 8 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		char sub[2 * PATH_MAX], full[4 * PATH_MAX];
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		if (stat(full, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(root, sub, depth + 1, v, n);
		} else if (S_ISREG(st.st_mode)) {
			char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));
			if (!nv)
				break;
			*v = nv;
			(*v)[(*n)++] = strdup(sub);
		}
	}
	closedir(d);
	return 0;
}

static int load_tree(struct loader *L, const char *spec, struct kj_err *err)
{
	char **files = NULL;
	int n = 0, rc = 0;
	walk(spec, "", 0, &files, &n);
	if (n)
		qsort(files, (size_t)n, sizeof(*files), cmp_str);
	for (int i = 0; i < n && !rc; i++) {
		char *rel = files[i], *slash1 = strchr(rel, '/'), *last = strrchr(rel, '/');
		char model[256], task[PATH_MAX], full[2 * PATH_MAX + 2], *buf;
		const char *ext;
		size_t blen;
		int sample, round;
		if (!slash1 || last == slash1 || parse_leaf(last + 1, &sample, &round, &ext) ||
		    !((L->want_c && !strcmp(ext, "c")) || (L->want_cu && !strcmp(ext, "cu")) ||
		      (L->want_py && !strcmp(ext, "py")))) {
			L->skipped++;
			continue;
		}
		snprintf(model, sizeof(model), "%.*s", (int)(slash1 - rel), rel);
		snprintf(task, sizeof(task), "%.*s", (int)(last - slash1 - 1), slash1 + 1);
		if (!strchr(task, '/')) {
			/* one folder: level1__softmax */
			char *p;
			while ((p = strstr(task, "__"))) {
				*p = '/';
				memmove(p + 1, p + 2, strlen(p + 2) + 1);
			}
		}
		snprintf(full, sizeof(full), "%s/%s", spec, rel);
		if ((rc = kj_cli_read_file(full, &buf, &blen, err)))
			break;
		rc = add_one(L, full, task, model, "", sample, round, full, buf, blen, err);
		free(buf);
	}
	kj_cli_free_list(files, n);
	return rc;
}

/* ---- judging -------------------------------------------------------------- */

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
	int ordinal;
	kj_gpu *gpu; /* this device's judge context, opened by its evaluation thread */
	int64_t id;
	char arch[16];
	char name[128];
	/* where its evaluation thread's time went (seconds from the run's start;
	 * written by that thread only, read after it ended): `kjudge run --json` */
	int jobs;
	double first_start, last_end, busy, wait;
	/* the judged verdicts' profiles summed (kj_prof), and the part of busy
	 * spent around kj_eval (the store's begin and put, reused copies) */
	double prof[KJ_PROF_COUNT], record;
};

struct runner {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct job *jobs;
	int njobs;
	int next_compile;
	int evals_live;
	int done, judged, reused, failed;
	int fatal;
	kj_db *db;
	int64_t run_id;
	struct kj_eval_opts base;
	char cache_dir[PATH_MAX];
	char cache_key[256];
	struct device devs[MAX_DEVS];
	int ndevs;
	int quiet;
	double t0; /* the run's start, kj_cli_now_s() */
};

/* Estimated seconds to judge a candidate of job i's task: per shape the
 * backend runs (check shapes, then its bench shapes), a time t from the
 * shape's FLOPs and compulsory bytes at rough rates (the GPU's fp64
 * reference, or a CPU core), run once
 * per seed and, on bench shapes, timed for at least 10 samples or the
 * perf budget.  Only the order matters, so the rates are round figures.
 * Jobs of one task share the estimate of the first. */
static double job_cost(const struct runner *r, const struct job *jobs, int i)
{
	const kj_task *t = jobs[i].t;
	int bench = r->base.backend == KJ_BACKEND_CPU ? 2 : 1;
	double cost = 0.0;
	for (int k = 0; k < i; k++)
		if (jobs[k].t == t)
			return jobs[k].cost;
	for (int b = 0; b < t->nbind; b++) {
		kj_plan p;
		struct kj_err e;
		double ts;
		if (t->binds[b].bench != 0 && t->binds[b].bench != bench)
			continue;
		kj_err_init(&e);
		if (kj_plan_build(t, b, &p, &e))
			continue;
		ts = bench == 2 ? p.flops / 2e10 + p.min_bytes / 1e10 : p.flops / 1e13 + p.min_bytes / 1e12;
		kj_plan_release(&p);
		cost += 2e-3 + (r->base.seeds + 1) * ts;
		if (t->binds[b].bench && !r->base.no_perf)
			cost += 10 * ts > r->base.perf_budget_s ? 10 * ts : r->base.perf_budget_s;
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
	return stop_requested || r->fatal;
}

static void *compile_main(void *arg)
{
	struct runner *r = arg;
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
		co.backend = r->base.backend;
		co.cache_dir = r->cache_dir;
		co.include_dir = r->base.include_dir;
		if (r->base.backend == KJ_BACKEND_CUDA && r->devs[0].arch[0])
			co.arch = r->devs[0].arch;
		/* a failure here is not the verdict: kj_eval compiles again and
		 * decides, this only warms the cache */
		if (kj_compile(j->source, j->len, &co, &cr, NULL) == 0) {
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
	struct kj_eval_opts o = r->base;
	struct kj_store_verdict_opts vo;
	struct kj_err err;
	kj_verdict v;
	int64_t jid = 0;
	char *json = NULL;
	int rc, copies = 0;
	kj_err_init(&err);
	o.device = d->ordinal;
	o.gpu = d->gpu;
	o.cache_dir = r->cache_dir;
	if ((rc = kj_store_judgement_begin(r->db, j->cid, d->id, &jid, &err)))
		goto fail;
	{
		double e0 = kj_cli_now_s();
		rc = kj_eval(j->t, j->source, j->len, &o, &v, &err);
		d->record -= kj_cli_now_s() - e0;
	}
	if (rc) {
		kj_verdict_release(&v);
		goto fail;
	}
	for (int p = 0; p < KJ_PROF_COUNT; p++)
		d->prof[p] += v.prof_s[p];
	/* the compile happened in the pool: report its cost, not the cache hit */
	if (v.compile_cached && j->pre_ok && !j->pre_cached) {
		v.compile_cached = 0;
		v.compile_s = j->pre_s;
	}
	json = kj_verdict_json_text(&v, j->t);
	memset(&vo, 0, sizeof(vo));
	vo.run_id = r->run_id;
	vo.device_id = d->id;
	vo.cache_key = r->cache_key;
	vo.judgement_id = jid;
	rc = json ? kj_store_put_verdict(r->db, j->cid, &v, j->t, json, &vo, &err)
		  : kj_err_set(&err, KJ_E_NOMEM, "cannot render the verdict");
	free(json);
	kj_verdict_release(&v);
	if (rc)
		goto fail;
	*fails = 0;
	for (int f = j->next_follower; f >= 0; f = r->jobs[f].next_follower) {
		struct kj_err e2;
		kj_err_init(&e2);
		if (kj_store_copy_verdict(r->db, j->cid, r->jobs[f].cid, &e2) == 0)
			copies++;
		else
			fprintf(stderr, "\nkjudge run: %s: cannot reuse the verdict: %s\n", r->jobs[f].label,
				e2.msg);
	}
	pthread_mutex_lock(&r->mu);
	r->judged++;
	r->reused += copies;
	r->done += 1 + copies;
	pthread_mutex_unlock(&r->mu);
	return;
fail:
	fprintf(stderr, "\nkjudge run: judge failed on %s: %s\n", j->label, err.msg);
	pthread_mutex_lock(&r->mu);
	r->failed++;
	if (++*fails >= MAX_JUDGE_FAILS) {
		if (!r->fatal)
			fprintf(stderr, "kjudge run: %d judge failures in a row on device %d: stopping\n",
				*fails, d->ordinal);
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
	int fails = 0;
	/* one GPU context per device for the whole run, not one per candidate */
	if (kj_backend_is_gpu(r->base.backend) && kj_gpu_available() &&
	    kj_gpu_open(a->d->ordinal, &a->d->gpu, NULL))
		a->d->gpu = NULL;
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
			double w0 = kj_cli_now_s();
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&r->cv, &r->mu, &ts);
			a->d->wait += kj_cli_now_s() - w0;
			continue;
		}
		r->jobs[i].state = J_EVAL;
		pthread_mutex_unlock(&r->mu);
		{
			double j0 = kj_cli_now_s();
			if (!a->d->jobs++)
				a->d->first_start = j0 - r->t0;
			judge_one(r, a->d, &r->jobs[i], &fails);
			a->d->last_end = kj_cli_now_s() - r->t0;
			a->d->busy += kj_cli_now_s() - j0;
			a->d->record += kj_cli_now_s() - j0;
		}
		pthread_mutex_lock(&r->mu);
		r->jobs[i].state = J_DONE;
		pthread_cond_broadcast(&r->cv);
	}
	r->evals_live--;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	if (a->d->gpu)
		kj_gpu_close(a->d->gpu);
	a->d->gpu = NULL;
	return NULL;
}

static void fmt_dur(double s, char *buf, size_t n)
{
	long t = s > 0 && s < 1e8 ? (long)(s + 0.5) : 0;
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
}

static void progress(struct runner *r, int total, double t0, int tty, int final)
{
	char eta[32];
	double el = kj_cli_now_s() - t0, rate = el > 0 ? 60.0 * r->done / el : 0;
	fmt_dur(rate > 0 ? (total - r->done) * 60.0 / rate : 0, eta, sizeof(eta));
	if (tty) {
		char bar[31];
		int w = total ? (int)(30.0 * r->done / total) : 30;
		for (int i = 0; i < 30; i++)
			bar[i] = i < w ? '#' : '.';
		bar[30] = 0;
		fprintf(stderr, "\r\033[K[%s] %d/%d  %.1f/min  ETA %s  (%d reused, %d failed)%s", bar,
			r->done, total, rate, final ? "0s" : eta, r->reused, r->failed, final ? "\n" : "");
	} else {
		fprintf(stderr, "kjudge run: %d/%d judged (%d reused, %d judge failures), %.1f/min, ETA %s\n",
			r->done, total, r->reused, r->failed, rate, final ? "0s" : eta);
	}
	fflush(stderr);
}

/* ---- devices -------------------------------------------------------------- */

static int gpu_device(kj_db *db, int ordinal, const char *cache_dir, struct device *d,
		      struct kj_err *err)
{
	kj_gpu *g;
	const kj_gpu_info *gi;
	int rc;
	if ((rc = kj_gpu_open(ordinal, &g, err)))
		return rc;
	gi = kj_gpu_get_info(g);
	d->ordinal = ordinal;
	snprintf(d->arch, sizeof(d->arch), "%s", gi->arch);
	snprintf(d->name, sizeof(d->name), "%s", gi->name);
	/* with the calibration the judge will use, recorded with the run's verdicts */
	rc = kj_cli_gpu_device(db, g, cache_dir, NULL, &d->id, NULL, NULL, err);
	kj_gpu_close(g);
	return rc;
}

/* ---- the command ---------------------------------------------------------- */

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

static void usage(void)
{
	puts("usage: kjudge run SPEC [options]\n\n"
	     "Judges a batch of candidates into a SQLite or PostgreSQL store (docs/store.md,\n"
	     "docs/cluster.md), resumably:\n"
	     "kill it at any point and run the same command again to go on.\n\n"
	     "SPEC is a JSONL file, one candidate a line:\n"
	     "  {\"task\": \"level1/softmax\", \"model\": \"m\", \"sample\": 0, \"round\": 0, \"path\": \"a.cu\"}\n"
	     "(\"source\" inline instead of \"path\"; model, method, sample, round optional; paths\n"
	     "relative to the JSONL file), or a folder MODEL/TASK/SAMPLE_ROUND.{c,cu} where TASK\n"
	     "is nested folders (level1/softmax) or one folder level1__softmax.\n\n"
	     "  --db FILE|URL    the store: a SQLite file (default RUN.sqlite in the current\n"
	     "                   folder) or postgresql://user@host:port/db (docs/cluster.md)\n"
	     "  --enqueue-only   load the SPEC and put its pending candidates into the cluster\n"
	     "                   queue (PostgreSQL) for `kjudge worker`; judge nothing here\n"
	     "  --name RUN       the run's name (default: SPEC's name without extension)\n"
	     "  --backend B      cpu, cuda, triton or kernelbench (default: cuda when the SPEC has\n"
	     "                   .cu files, else cpu; triton and kernelbench judge .py files)\n"
	     "  --gpus LIST      CUDA devices, one evaluation thread each (default 0)\n"
	     "  --jobs N         compile threads (default: the number of CPUs)\n"
	     "  --order O        cost (default): candidates of the tasks that take longest to\n"
	     "                   judge first (estimated from their shapes' FLOPs and bytes),\n"
	     "                   so that the GPUs finish together; spec: the SPEC's order\n"
	     "  --seeds N        " KJ_CLI_HELP_SEEDS "\n"
	     "  --no-perf        " KJ_CLI_HELP_NO_PERF "\n"
	     "  --timeout S      " KJ_CLI_HELP_TIMEOUT "\n"
	     "  --perf-budget S  " KJ_CLI_HELP_PERF_BUDGET "\n"
	     "  --max-noise F    time until the median's ~95% half-width is within F of it\n"
	     "                   (default 0.005); the CPU track samples past the budget for it\n"
	     "  --policy P       flag (default) or strict: library fallbacks flagged or rejected\n"
	     "  --cache DIR      " KJ_CLI_HELP_CACHE "\n"
	     "  --seed-secret-file F\n"
	     "                   hidden-seed mode, the secret read from F (or $KJUDGE_SEED_SECRET)\n"
	     "  --unsafe-no-sandbox\n"
	     "                   run candidates without the sandbox: only code you trust\n"
	     "  --json           print a JSON summary on stdout\n"
	     "  --quiet          no progress on stderr\n\n"
	     "exit status: 0 every candidate has a verdict, 1 interrupted (candidates left),\n"
	     "2 usage or SPEC error, 3 the judge failed on some candidates (left pending)");
}

static int spec_backend(const char *spec, int is_dir_spec)
{
	/* .cu anywhere in the SPEC means the CUDA track */
	char *text;
	size_t len;
	int cu = 0;
	if (is_dir_spec) {
		char **files = NULL;
		int n = 0;
		walk(spec, "", 0, &files, &n);
		for (int i = 0; i < n && !cu; i++) {
			size_t l = strlen(files[i]);
			cu = l > 3 && !strcmp(files[i] + l - 3, ".cu");
		}
		kj_cli_free_list(files, n);
		return cu;
	}
	if (kj_cli_read_file(spec, &text, &len, NULL))
		return 0;
	cu = strstr(text, ".cu\"") != NULL;
	free(text);
	return cu;
}

/* --enqueue-only: the run's pending candidates into the cluster queue, for
 * `kjudge worker` processes to judge (docs/cluster.md). */
static int enqueue(struct runner *r, const char *name, const char *shown, int added, int json,
		   struct kj_err *err)
{
	struct kj_store_counts cnt;
	struct kj_cluster_counts q;
	int jobs = 0, requeued = 0;
	if (kj_cluster_enqueue(r->db, r->run_id, &jobs, &requeued, err) ||
	    kj_store_run_counts(r->db, r->run_id, &cnt, err) ||
	    kj_cluster_counts(r->db, r->run_id, NULL, &q, err)) {
		fprintf(stderr, "kjudge run: %s\n", err->msg);
		return KJ_EXIT_JUDGE;
	}
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:i,s:i,s:i,s:{s:I,s:I,s:I,s:I}}", "run", name,
				      "db", shown, "backend", kj_backend_name(r->base.backend), "candidates",
				      (json_int_t)cnt.candidates, "judged", (json_int_t)cnt.judged, "pending",
				      (json_int_t)(cnt.candidates - cnt.judged), "added", added, "jobs_added",
				      jobs, "jobs_requeued", requeued, "queue", "queued", (json_int_t)q.queued,
				      "running", (json_int_t)q.running, "done", (json_int_t)q.done, "failed",
				      (json_int_t)q.failed);
		char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("run %s (%s): %lld candidates, %lld pending; %d jobs added, %d requeued; queue: "
		       "%lld queued, %lld running, %lld done, %lld failed\n", name, shown,
		       (long long)cnt.candidates, (long long)(cnt.candidates - cnt.judged), jobs, requeued,
		       (long long)q.queued, (long long)q.running, (long long)q.done, (long long)q.failed);
	}
	return KJ_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", 1, 0, 'd' },      { "name", 1, 0, 'n' },        { "backend", 1, 0, 'b' },
		{ "gpus", 1, 0, 'g' },    { "jobs", 1, 0, 'J' },        KJ_CLI_JUDGE_LONGOPTS,
		{ "json", 0, 0, 'j' },    { "quiet", 0, 0, 'q' },       { "help", 0, 0, 'h' },
		{ "enqueue-only", 0, 0, 'E' }, { "order", 1, 0, 'O' }, { 0, 0, 0, 0 }
	};
	struct runner r;
	struct task_cache tasks = { 0 };
	struct loader L;
	struct kj_err err;
	struct kj_store_counts cnt;
	struct sigaction sa, old_int, old_term;
	struct stat st;
	char worker[PATH_MAX + 32], inc[PATH_MAX + 32], name[256] = "", dbpath[PATH_MAX + 16] = "";
	char settings[512 + KJ_KNOBS_KEY_MAX], *end, shown[PATH_MAX + 16];
	const char *db_arg = NULL, *name_arg = NULL, *spec;
	int c, json = 0, have_backend = 0, gpus[MAX_DEVS] = { 0 }, ngpus = 1, jobs, total, rc = 0;
	int is_dir_spec, tty, exit_code = KJ_EXIT_OK, last_shown = -1, every;
	int reused_pre = 0, linked = 0, enqueue_only = 0, order_cost = 1;
	pthread_t *cth = NULL, eth[MAX_DEVS];
	struct eval_arg eargs[MAX_DEVS];
	double t0 = kj_cli_now_s(), tprint = 0;

	memset(&r, 0, sizeof(r));
	r.t0 = t0;
	kj_eval_opts_init(&r.base);
	jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs < 1)
		jobs = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_arg = optarg;
			break;
		case 'n':
			name_arg = optarg;
			break;
		case 'b':
			if (kj_backend_from_name(optarg, &r.base.backend))
				return kj_cli_usage_error("run", "unknown backend '%s' (cpu, cuda, triton or kernelbench)", optarg);
			have_backend = 1;
			break;
		case 'g':
			if ((rc = kj_cli_gpus_option("run", optarg, gpus, &ngpus, MAX_DEVS)))
				return rc;
			break;
		case 'J':
			jobs = (int)strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 1024)
				return kj_cli_usage_error("run", "--jobs wants 1..1024, got '%s'", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			r.quiet = 1;
			break;
		case 'E':
			enqueue_only = 1;
			break;
		case 'O':
			if (strcmp(optarg, "cost") && strcmp(optarg, "spec"))
				return kj_cli_usage_error("run", "--order wants cost or spec, got '%s'", optarg);
			order_cost = !strcmp(optarg, "cost");
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			if ((rc = kj_cli_eval_option("run", c, optarg, &r.base)) != 1)
				return rc ? rc : kj_cli_usage_error("run", "unknown option");
			break;
		}
	}
	if (optind != argc - 1)
		return kj_cli_usage_error("run", "expected one SPEC (a JSONL file or a folder)");
	spec = argv[optind];
	if (stat(spec, &st))
		return kj_cli_usage_error("run", "cannot read SPEC '%s': %s", spec, strerror(errno));
	is_dir_spec = S_ISDIR(st.st_mode);
	if (!have_backend && spec_backend(spec, is_dir_spec))
		r.base.backend = KJ_BACKEND_CUDA;
	if (name_arg) {
		snprintf(name, sizeof(name), "%s", name_arg);
	} else {
		char tmp[PATH_MAX], *b, *dot;
		snprintf(tmp, sizeof(tmp), "%s", spec);
		while (strlen(tmp) > 1 && tmp[strlen(tmp) - 1] == '/')
			tmp[strlen(tmp) - 1] = 0;
		b = basename(tmp);
		snprintf(name, sizeof(name), "%s", b);
		dot = strrchr(name, '.');
		if (dot && dot != name && !is_dir_spec)
			*dot = 0;
	}
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, "/"))
		return kj_cli_usage_error("run", "cannot name the run from '%s': give --name", spec);
	kj_cli_db_path(db_arg, name, dbpath, sizeof(dbpath));
	if (enqueue_only && !kj_store_is_url(dbpath))
		return kj_cli_usage_error("run", "--enqueue-only needs --db postgresql://...: the cluster "
					  "queue lives in PostgreSQL (docs/cluster.md)");
	kj_store_redact(dbpath, shown, sizeof(shown));

	kj_err_init(&err);
	if (kj_cache_dir(r.base.cache_dir, r.cache_dir, sizeof(r.cache_dir), &err)) {
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		return KJ_EXIT_USAGE;
	}
	if (kj_backend_is_gpu(r.base.backend) && !kj_gpu_available()) {
		fprintf(stderr, "kjudge run: the %s backend needs a CUDA device and a kjudge built with "
				"nvcc; use --backend cpu here\n", kj_backend_name(r.base.backend));
		return KJ_EXIT_USAGE;
	}
	kj_cli_judge_paths(worker, sizeof(worker), inc, sizeof(inc));
	r.base.worker_path = worker;
	r.base.include_dir = inc;
	r.base.cache_dir = r.cache_dir;
	kj_cli_seed_secret_env(&r.base);
	{
		struct kj_verdict_settings vs;
		kj_eval_opts_settings(&r.base, &vs);
		kj_store_cache_key(&vs, r.cache_key, sizeof(r.cache_key));
	}
	{
		char gl[MAX_DEVS * 4 + 1] = "", knobs[KJ_KNOBS_KEY_MAX] = "";
		for (int i = 0; i < ngpus; i++)
			snprintf(gl + strlen(gl), sizeof(gl) - strlen(gl), "%s%d", i ? "," : "", gpus[i]);
		/* the baseline knobs set (names and small values: no JSON escapes) */
		if (kj_backend_is_gpu(r.base.backend) && kj_knobs_key(knobs, sizeof(knobs), &err)) {
			fprintf(stderr, "kjudge run: %s\n", err.msg);
			return KJ_EXIT_USAGE;
		}
		snprintf(settings, sizeof(settings),
			 "{\"seeds\": %d, \"no_perf\": %s, \"timeout\": %g, \"perf_budget\": %g, "
			 "\"policy\": \"%s\", \"gpus\": \"%s\", \"jobs\": %d%s%s%s}",
			 r.base.seeds, r.base.no_perf ? "true" : "false", r.base.call_timeout_s,
			 r.base.perf_budget_s, r.base.policy == KJ_POLICY_STRICT ? "strict" : "flag",
			 kj_backend_is_gpu(r.base.backend) ? gl : "", jobs,
			 *knobs ? ", \"baseline_knobs\": \"" : "", knobs, *knobs ? "\"" : "");
	}

	if ((rc = kj_store_open(dbpath, &r.db, &err)))
		goto judge_err;
	if ((rc = kj_store_run_get_or_create(r.db, name, kj_backend_name(r.base.backend), spec, settings,
					     &r.run_id, &err))) {
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		kj_store_close(r.db);
		return KJ_EXIT_USAGE;
	}

	/* the SPEC, in one transaction: all of it or nothing */
	memset(&L, 0, sizeof(L));
	L.db = r.db;
	L.run_id = r.run_id;
	L.tasks = &tasks;
	L.want_c = r.base.backend == KJ_BACKEND_CPU;
	L.want_cu = r.base.backend == KJ_BACKEND_CUDA;
	L.want_py = kj_backend_is_python(r.base.backend);
	if ((rc = kj_store_begin(r.db, &err)))
		goto judge_err;
	rc = is_dir_spec ? load_tree(&L, spec, &err) : load_jsonl(&L, spec, &err);
	if (!rc)
		rc = kj_store_link_parents(r.db, r.run_id, &linked, &err);
	if (rc) {
		kj_store_rollback(r.db, NULL);
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		exit_code = KJ_EXIT_USAGE;
		goto out;
	}
	if ((rc = kj_store_commit(r.db, &err)))
		goto judge_err;
	if (!r.quiet)
		fprintf(stderr, "kjudge run: run '%s' in %s: %d candidates added, %d already there%s\n", name,
			shown, L.added, L.existing, L.skipped ? " (some files skipped: not SAMPLE_ROUND.ext)" : "");

	if (enqueue_only) {
		exit_code = enqueue(&r, name, shown, L.added, json, &err);
		goto out;
	}

	/* devices */
	if (r.base.backend == KJ_BACKEND_CPU) {
		if ((rc = kj_cli_cpu_device(r.db, &r.devs[0].id, r.devs[0].name, sizeof(r.devs[0].name),
					     &err)))
			goto judge_err;
		r.ndevs = 1;
	} else {
		for (int i = 0; i < ngpus; i++) {
			if ((rc = gpu_device(r.db, gpus[i], r.cache_dir, &r.devs[i], &err)))
				goto judge_err;
			r.ndevs++;
		}
	}

	/* pending candidates: reuse what the cache knows, group duplicates */
	{
		struct pend_ctx pc = { &r, 0, &err };
		if ((rc = kj_store_pending(r.db, r.run_id, collect_pending, &pc, &err)))
			goto judge_err;
	}
	for (int i = 0; i < r.njobs; i++) {
		struct job *j = &r.jobs[i];
		char *tab = strchr(j->label, '\t');
		*tab = 0;
		if ((rc = task_get(&tasks, r.db, j->label, &j->t, &err)))
			goto judge_err;
		memmove(j->label, tab + 1, strlen(tab + 1) + 1);
		j->spec_pos = i;
		j->cost = order_cost ? job_cost(&r, r.jobs, i) : 0;
	}
	/* longest first: the devices' last jobs are then short ones, so that one
	 * GPU does not judge a long candidate alone at the end (two GPUs idled
	 * 10 s of 61 s that way in spec order) */
	if (order_cost && r.njobs > 1)
		qsort(r.jobs, (size_t)r.njobs, sizeof(*r.jobs), job_by_cost);
	for (int i = 0; i < r.njobs; i++) {
		struct job *j = &r.jobs[i];
		int64_t from = 0;
		for (int d = 0; d < r.ndevs && !from; d++)
			if ((rc = kj_store_find_verdict_by_sha(r.db, j->sha, j->t->id,
							       kj_backend_name(r.base.backend), r.devs[d].id,
							       r.cache_key, &from, &err)))
				goto judge_err;
		if (from) {
			if ((rc = kj_store_copy_verdict(r.db, from, j->cid, &err)))
				goto judge_err;
			j->state = J_DONE;
			j->leader = i; /* neither compiled nor judged */
			reused_pre++;
			continue;
		}
		for (int k = 0; k < i; k++) {
			struct job *l = &r.jobs[k];
			if (l->leader < 0 && l->t == j->t && !strcmp(l->sha, j->sha)) {
				int *tail = &l->next_follower;
				while (*tail >= 0)
					tail = &r.jobs[*tail].next_follower;
				*tail = i;
				j->leader = k;
				break;
			}
		}
	}
	r.reused = r.done = reused_pre;
	total = r.njobs;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* a second ^C kills at once */
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	tty = isatty(2);
	/* plain lines: about ten per run, at least one per 100 candidates */
	every = total / 10 < 1 ? 1 : total / 10 > 100 ? 100 : total / 10;
	pthread_mutex_init(&r.mu, NULL);
	pthread_cond_init(&r.cv, NULL);
	if (r.done < total) {
		sigset_t block, prev;
		/* signals go to this thread only: a judge thread's system calls
		 * must never see EINTR from a ^C */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &block, &prev);
		cth = calloc((size_t)jobs, sizeof(*cth));
		if (!cth) {
			pthread_sigmask(SIG_SETMASK, &prev, NULL);
			rc = kj_err_set(&err, KJ_E_NOMEM, "out of memory");
			goto judge_err;
		}
		for (int i = 0; i < jobs; i++)
			pthread_create(&cth[i], NULL, compile_main, &r);
		r.evals_live = r.ndevs;
		for (int i = 0; i < r.ndevs; i++) {
			eargs[i].r = &r;
			eargs[i].d = &r.devs[i];
			pthread_create(&eth[i], NULL, eval_main, &eargs[i]);
		}
		pthread_sigmask(SIG_SETMASK, &prev, NULL);
		pthread_mutex_lock(&r.mu);
		while (r.evals_live > 0) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 250000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&r.cv, &r.mu, &ts);
			if (stop_requested || r.fatal)
				pthread_cond_broadcast(&r.cv);
			if (!r.quiet && r.done != last_shown && r.done &&
			    (tty ? kj_cli_now_s() - tprint > 0.2 : r.done / every != last_shown / every)) {
				progress(&r, total, t0, tty, 0);
				last_shown = r.done;
				tprint = kj_cli_now_s();
			}
		}
		pthread_mutex_unlock(&r.mu);
		for (int i = 0; i < r.ndevs; i++)
			pthread_join(eth[i], NULL);
		/* compile threads stop taking work once evaluation has stopped */
		pthread_mutex_lock(&r.mu);
		r.next_compile = r.njobs;
		pthread_mutex_unlock(&r.mu);
		for (int i = 0; i < jobs; i++)
			pthread_join(cth[i], NULL);
		free(cth);
	}
	if (!r.quiet && (tty || r.done != last_shown))
		progress(&r, total, t0, tty, 1);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if ((rc = kj_store_run_counts(r.db, r.run_id, &cnt, &err)))
		goto judge_err;
	if (cnt.judged < cnt.candidates)
		exit_code = r.failed ? KJ_EXIT_JUDGE : KJ_EXIT_FAIL;
	if (json) {
		json_t *o = json_object(), *bs = json_object();
		char *s;
		for (int k = 0; k < KJ_ST_COUNT; k++)
			json_object_set_new(bs, kj_status_name((kj_status)k), json_integer(cnt.by_status[k]));
		json_object_set_new(o, "run", json_string(name));
		json_object_set_new(o, "db", json_string(shown));
		json_object_set_new(o, "backend", json_string(kj_backend_name(r.base.backend)));
		json_object_set_new(o, "candidates", json_integer(cnt.candidates));
		json_object_set_new(o, "judged", json_integer(cnt.judged));
		json_object_set_new(o, "reused", json_integer(cnt.reused));
		json_object_set_new(o, "pending", json_integer(cnt.candidates - cnt.judged));
		json_object_set_new(o, "by_status", bs);
		json_object_set_new(o, "this_run", json_pack("{s:i,s:i,s:i,s:i}", "added", L.added,
							     "judged", r.judged, "reused", r.reused,
							     "judge_failures", r.failed));
		json_object_set_new(o, "interrupted", json_boolean(stop_requested));
		json_object_set_new(o, "seconds", json_real(kj_cli_now_s() - t0));
		{
			/* per evaluation thread (GPU, or the CPU track's one lane) */
			json_t *ds = json_array(), *tot = json_object();
			double sum[KJ_PROF_COUNT] = { 0 }, rec = 0;
			for (int d = 0; d < r.ndevs; d++) {
				json_t *dv = json_pack("{s:i,s:I,s:i,s:f,s:f,s:f,s:f}", "ordinal", r.devs[d].ordinal,
						       "device_id", (json_int_t)r.devs[d].id, "jobs", r.devs[d].jobs,
						       "first_start_s", r.devs[d].first_start, "last_end_s",
						       r.devs[d].last_end, "busy_s", r.devs[d].busy, "wait_s",
						       r.devs[d].wait);
				json_t *pf = json_object();
				for (int p = 0; p < KJ_PROF_COUNT; p++) {
					json_object_set_new(pf, kj_prof_name((kj_prof)p), json_real(r.devs[d].prof[p]));
					sum[p] += r.devs[d].prof[p];
				}
				json_object_set_new(pf, "record", json_real(r.devs[d].record));
				rec += r.devs[d].record;
				json_object_set_new(dv, "profile_s", pf);
				json_array_append_new(ds, dv);
			}
			json_object_set_new(o, "devices", ds);
			/* where the evaluation threads' busy time went, summed over
			 * the judged candidates (verdict "profile_seconds") */
			for (int p = 0; p < KJ_PROF_COUNT; p++)
				json_object_set_new(tot, kj_prof_name((kj_prof)p), json_real(sum[p]));
			json_object_set_new(tot, "record", json_real(rec));
			json_object_set_new(o, "profile_s", tot);
		}
		s = json_dumps(o, JSON_COMPACT);
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("run %s (%s): %lld candidates, %lld with a verdict (%lld reused), %lld pending; "
		       "%.1f s\n", name, shown, (long long)cnt.candidates, (long long)cnt.judged,
		       (long long)cnt.reused, (long long)(cnt.candidates - cnt.judged), kj_cli_now_s() - t0);
		for (int k = 0; k < KJ_ST_COUNT; k++)
			if (cnt.by_status[k])
				printf("  %-14s %lld\n", kj_status_name((kj_status)k), (long long)cnt.by_status[k]);
	}
	if (stop_requested && !r.quiet)
		fprintf(stderr, "kjudge run: interrupted; run the same command again to go on\n");
	goto out;
judge_err:
	fprintf(stderr, "kjudge run: %s\n", err.msg);
	exit_code = KJ_EXIT_JUDGE;
out:
	for (int i = 0; i < r.njobs; i++)
		free(r.jobs[i].source);
	free(r.jobs);
	task_cache_release(&tasks);
	kj_store_close(r.db);
	return exit_code;
}
