/*
 * kjudge worker: one long-running process per node that judges the jobs of a
 * PostgreSQL store's cluster queue (include/kjudge/cluster.h,
 * docs/cluster.md) on the devices it owns.
 *
 * One evaluation thread per GPU of --gpus (CUDA track) or --workers threads
 * (CPU track) each loop: claim a job (FOR UPDATE SKIP LOCKED, leased) and
 * judge it with kj_record_judge (include/kjudge/record.h): the verdict from
 * the cache when the same source was judged on this device under the same
 * settings, else a judgement logged and kj_eval; either way the job is
 * completed through kj_cluster_complete (verdict + copies for identical
 * sources + the job's end in one transaction, refused when the lease was
 * lost).  A heartbeat thread with a
 * connection of its own renews the leases of the jobs in hand every third of
 * the lease.  The worker exits when its backend's queue has nothing queued
 * and nothing running (a running job of a dead worker is claimed again when
 * its lease passes), or never with --wait.  SIGINT or SIGTERM: finish the
 * jobs in hand, then stop.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kjudge/cluster.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/record.h"
#include "kjudge/store.h"

#define MAX_SLOTS 64
/* consecutive judge failures on one thread that stop the worker: the judge
 * itself is broken here (worker binary missing, device lost) */
#define MAX_JUDGE_FAILS 3

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void nap(double s)
{
	struct timespec ts;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

/* One evaluation thread: its device and the job it holds (for heartbeats). */
struct slot {
	int index;
	int ordinal;          /* CUDA device, or -1 */
	int64_t device_id;
	char arch[16];
	kj_gpu *gpu;
	struct kj_pypool *pypool; /* pre-warmed Python workers (a job of triton or kernelbench
				   * starts the next one's), made and freed by its thread */
	int busy;             /* job below is held */
	struct kj_cluster_job job;
	int lost;             /* a heartbeat found the lease taken */
	struct worker *w;
};

struct run_ent {
	int64_t run_id;
	struct kj_eval_opts o;
	char cache_key[256];
};

struct worker {
	pthread_mutex_t mu;
	kj_db *db;
	const char *backend;
	int64_t only_run;
	double lease_s, poll_s;
	int max_attempts;
	int wait;
	int quiet;
	int unconfined; /* --unsafe-no-sandbox */
	char host[128];
	char cache_dir[PATH_MAX];
	char worker_path[PATH_MAX + 32], include_dir[PATH_MAX + 32];
	struct slot slots[MAX_SLOTS];
	int nslots;
	struct kj_record_tasks tasks;
	struct run_ent *runs;
	int nruns;
	int hb_stop;
	/* counts */
	int judged, reused, copies, failed, lost, fatal;
};

static int load_task(void *ctx, const char *key, kj_task **out, struct kj_err *err)
{
	(void)ctx;
	return kj_cli_load_task(key, out, err);
}

/* The evaluation settings of a run, from its settings JSON (as `kjudge run`
 * wrote them), with this node's worker, headers and cache. */
static int run_opts(struct worker *w, const struct kj_cluster_job *j, struct kj_eval_opts *o,
		    char *cache_key, size_t kl, struct kj_err *err)
{
	struct run_ent *nv, *e = NULL;
	json_t *s, *v;
	json_error_t je;
	int rc = 0;
	pthread_mutex_lock(&w->mu);
	for (int i = 0; i < w->nruns; i++)
		if (w->runs[i].run_id == j->run_id)
			e = &w->runs[i];
	if (!e) {
		if (!(s = json_loads(j->settings, 0, &je)) || !json_is_object(s)) {
			json_decref(s);
			rc = kj_err_set(err, KJ_E_USAGE, "run '%s': its settings are not a JSON object",
					j->run_name);
			goto out;
		}
		if (!(nv = realloc(w->runs, (size_t)(w->nruns + 1) * sizeof(*nv)))) {
			json_decref(s);
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
			goto out;
		}
		w->runs = nv;
		e = &w->runs[w->nruns++];
		memset(e, 0, sizeof(*e));
		e->run_id = j->run_id;
		kj_eval_opts_init(&e->o);
		kj_backend_from_name(j->backend, &e->o.backend);
		if (json_is_integer(v = json_object_get(s, "seeds")))
			e->o.seeds = (int)json_integer_value(v);
		if (json_is_boolean(v = json_object_get(s, "no_perf")))
			e->o.no_perf = json_is_true(v);
		if (json_is_number(v = json_object_get(s, "timeout")))
			e->o.call_timeout_s = json_number_value(v);
		if (json_is_number(v = json_object_get(s, "perf_budget")))
			e->o.perf_budget_s = json_number_value(v);
		if (json_is_string(v = json_object_get(s, "policy")))
			e->o.policy = !strcmp(json_string_value(v), "strict") ? KJ_POLICY_STRICT : KJ_POLICY_FLAG;
		json_decref(s);
		e->o.worker_path = w->worker_path;
		e->o.include_dir = w->include_dir;
		e->o.cache_dir = w->cache_dir;
		e->o.unconfined = w->unconfined;
		kj_cli_seed_secret_env(&e->o);
		{
			struct kj_verdict_settings vs;
			kj_eval_opts_settings(&e->o, &vs);
			kj_store_cache_key(&vs, e->cache_key, sizeof(e->cache_key));
		}
	}
	*o = e->o;
	snprintf(cache_key, kl, "%s", e->cache_key);
out:
	pthread_mutex_unlock(&w->mu);
	return rc;
}

static void say(struct worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct worker *w, const char *fmt, ...)
{
	va_list ap;
	if (w->quiet)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "kjudge worker: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The store's side of kj_record_judge for a job: the verdict, or the copy of
 * a cached one, ends the job (with copies for the run's identical sources)
 * in one transaction; lost is set when the lease was taken meanwhile. */
struct job_sink {
	kj_db *db;
	const struct kj_cluster_job *j;
	const kj_task *t;
	int copies, lost;
};

static int sink_put(void *ctx, int64_t cid, const kj_verdict *v, const kj_task *t, const char *json,
		    const struct kj_store_verdict_opts *vo, struct kj_err *err)
{
	struct job_sink *k = ctx;
	int rc = kj_cluster_complete(k->db, k->j, v, t, json, vo, 0, &k->copies, err);
	(void)cid;
	k->lost = rc == KJ_E_NOTFOUND;
	return rc;
}

static int sink_copy(void *ctx, int64_t from, int64_t cid, struct kj_err *err)
{
	struct job_sink *k = ctx;
	int rc = kj_cluster_complete(k->db, k->j, NULL, k->t, NULL, NULL, from, &k->copies, err);
	(void)cid;
	k->lost = rc == KJ_E_NOTFOUND;
	return rc;
}

/* Judges the job in sl->job; returns 0, or -1 on a judge failure. */
static int judge_job(struct worker *w, struct slot *sl)
{
	struct kj_cluster_job *j = &sl->job;
	struct kj_eval_opts o;
	struct kj_recorder rec;
	struct kj_record_cand c;
	struct kj_record_out out;
	struct job_sink sink;
	struct kj_err err;
	const kj_task *t = NULL;
	char cache_key[256];
	int rc, copies = 0;
	kj_err_init(&err);
	/* judged meanwhile by a `kjudge run` on the same store: just end the job */
	if (kj_store_get_verdict(w->db, j->candidate_id, NULL, NULL, &err) == 0) {
		rc = kj_cluster_complete(w->db, j, NULL, NULL, NULL, NULL, j->candidate_id, &copies, &err);
		if (rc == KJ_E_NOTFOUND)
			goto lost;
		if (rc)
			goto fail;
		return 0;
	}
	kj_err_init(&err);
	if ((rc = kj_record_task_get(&w->tasks, j->task, &t, NULL, &err)) ||
	    (rc = run_opts(w, j, &o, cache_key, sizeof(cache_key), &err)))
		goto fail;
	o.device = sl->ordinal > 0 ? sl->ordinal : 0;
	o.gpu = sl->gpu;
	o.pypool = sl->pypool;
	memset(&sink, 0, sizeof(sink));
	sink.db = w->db;
	sink.j = j;
	sink.t = t;
	memset(&rec, 0, sizeof(rec));
	rec.db = w->db;
	rec.run_id = j->run_id;
	rec.device_id = sl->device_id;
	rec.cache_key = cache_key;
	rec.eval = &o;
	rec.put = sink_put;
	rec.copy = sink_copy;
	rec.ctx = &sink;
	memset(&c, 0, sizeof(c));
	c.id = j->candidate_id;
	c.t = t;
	c.source = j->source;
	c.len = j->source_len;
	c.sha256 = j->sha256;
	if ((rc = kj_record_judge(&rec, &c, &out, &err))) {
		if (sink.lost)
			goto lost;
		goto fail;
	}
	pthread_mutex_lock(&w->mu);
	if (out.how == KJ_RECORD_COPIED) {
		w->reused += 1 + sink.copies;
	} else {
		w->judged++;
		w->copies += sink.copies;
	}
	pthread_mutex_unlock(&w->mu);
	return 0;
lost:
	say(w, "%s: %s", j->label, err.msg);
	pthread_mutex_lock(&w->mu);
	w->lost++;
	pthread_mutex_unlock(&w->mu);
	return 0;
fail:
	fprintf(stderr, "kjudge worker: judge failed on %s (run %s, job %lld): %s\n", j->label,
		j->run_name, (long long)j->id, err.msg);
	{
		struct kj_err e2;
		kj_err_init(&e2);
		if (kj_cluster_fail(w->db, j, err.msg, w->max_attempts, &e2))
			fprintf(stderr, "kjudge worker: cannot hand job %lld back: %s\n", (long long)j->id,
				e2.msg);
	}
	pthread_mutex_lock(&w->mu);
	w->failed++;
	pthread_mutex_unlock(&w->mu);
	return -1;
}

static void *eval_main(void *arg)
{
	struct slot *sl = arg;
	struct worker *w = sl->w;
	char owner[sizeof(sl->job.owner)];
	int fails = 0;
	snprintf(owner, sizeof(owner), "%s:%ld:%d", w->host, (long)getpid(), sl->index);
	if (sl->ordinal >= 0 && kj_gpu_available() && kj_gpu_open(sl->ordinal, &sl->gpu, NULL))
		sl->gpu = NULL;
	/* (no process until a Python job asks for one) */
	if (sl->ordinal >= 0)
		sl->pypool = kj_pypool_new(kj_pypool_spares_default());
	while (!stop_requested && !w->fatal) {
		struct kj_cluster_job j;
		struct kj_cluster_counts c;
		struct kj_err err;
		int got = 0;
		kj_err_init(&err);
		if (kj_cluster_claim(w->db, w->backend, w->only_run, owner, w->lease_s, w->max_attempts, &j,
				     &got, &err)) {
			fprintf(stderr, "kjudge worker: %s\n", err.msg);
			if (++fails >= MAX_JUDGE_FAILS)
				break;
			nap(w->poll_s);
			continue;
		}
		if (!got) {
			if (!w->wait) {
				if (kj_cluster_counts(w->db, w->only_run, w->backend, &c, &err)) {
					fprintf(stderr, "kjudge worker: %s\n", err.msg);
					break;
				}
				if (c.queued == 0 && c.running == 0)
					break;
			}
			nap(w->poll_s);
			continue;
		}
		pthread_mutex_lock(&w->mu);
		sl->job = j;
		sl->busy = 1;
		sl->lost = 0;
		pthread_mutex_unlock(&w->mu);
		if (judge_job(w, sl)) {
			if (++fails >= MAX_JUDGE_FAILS) {
				fprintf(stderr, "kjudge worker: %d judge failures in a row on thread %d: stopping\n",
					fails, sl->index);
				pthread_mutex_lock(&w->mu);
				w->fatal = 1;
				pthread_mutex_unlock(&w->mu);
			}
		} else {
			fails = 0;
		}
		pthread_mutex_lock(&w->mu);
		sl->busy = 0;
		pthread_mutex_unlock(&w->mu);
		kj_cluster_job_release(&j);
		memset(&sl->job, 0, sizeof(sl->job));
	}
	kj_pypool_free(sl->pypool);
	sl->pypool = NULL;
	if (sl->gpu)
		kj_gpu_close(sl->gpu);
	sl->gpu = NULL;
	return NULL;
}

struct hb_arg {
	struct worker *w;
	kj_db *db;
};

static void *heartbeat_main(void *arg)
{
	struct hb_arg *a = arg;
	struct worker *w = a->w;
	double every = w->lease_s / 3 < 0.1 ? 0.1 : w->lease_s / 3, last = kj_cli_now_s();
	for (;;) {
		pthread_mutex_lock(&w->mu);
		if (w->hb_stop) {
			pthread_mutex_unlock(&w->mu);
			break;
		}
		pthread_mutex_unlock(&w->mu);
		nap(0.05);
		if (kj_cli_now_s() - last < every)
			continue;
		last = kj_cli_now_s();
		for (int i = 0; i < w->nslots; i++) {
			struct kj_cluster_job j;
			struct kj_err err;
			int busy, rc;
			pthread_mutex_lock(&w->mu);
			busy = w->slots[i].busy && !w->slots[i].lost;
			if (busy) {
				j = w->slots[i].job;
				j.source = j.settings = NULL; /* not ours */
			}
			pthread_mutex_unlock(&w->mu);
			if (!busy)
				continue;
			kj_err_init(&err);
			rc = kj_cluster_heartbeat(a->db, &j, w->lease_s, &err);
			if (rc == KJ_E_NOTFOUND) {
				say(w, "%s: %s", j.label, err.msg);
				pthread_mutex_lock(&w->mu);
				if (w->slots[i].busy && w->slots[i].job.id == j.id)
					w->slots[i].lost = 1;
				pthread_mutex_unlock(&w->mu);
			} else if (rc) {
				fprintf(stderr, "kjudge worker: heartbeat: %s\n", err.msg);
			}
		}
	}
	return NULL;
}

/* ---- the command ---------------------------------------------------------- */

static void usage(void)
{
	puts("usage: kjudge worker --db postgresql://... [options]\n\n"
	     "Judges the jobs of a PostgreSQL store's cluster queue on this node's devices\n"
	     "(docs/cluster.md): put a run's candidates into the queue with\n"
	     "`kjudge run SPEC --db postgresql://... --enqueue-only`, start one worker per node,\n"
	     "read the result with `kjudge report RUN --db postgresql://...`.  A job's lease is\n"
	     "renewed while it is judged; the jobs of a worker that dies are taken by another\n"
	     "once their lease passes, exactly once.\n\n"
	     "  --db URL          the store (postgresql://user@host:port/db; $KJUDGE_DB)\n"
	     "  --backend B       cpu or cuda: the jobs this worker takes (default: cuda when a\n"
	     "                    GPU is usable, else cpu)\n"
	     "  --gpus LIST       CUDA devices this worker owns, one evaluation thread each (default 0)\n"
	     "  --workers N       CPU track: evaluation threads (default 1)\n"
	     "  --run NAME        take only the jobs of this run\n"
	     "  --lease S         lease length in seconds (default 60; renewed every S/3)\n"
	     "  --max-attempts N  claims of a job before it is failed (default 3)\n"
	     "  --wait            keep polling when the queue is empty (default: exit)\n"
	     "  --poll S          seconds between polls of an empty queue (default 1)\n"
	     "  --cache DIR       " KJ_CLI_HELP_CACHE "\n"
	     "  --unsafe-no-sandbox\n"
	     "                    run candidates without the sandbox: only code you trust\n"
	     "  --json            print a JSON summary on stdout\n"
	     "  --quiet           no messages on stderr but errors\n\n"
	     "exit status: 0 the queue is drained, 1 interrupted, 2 usage error,\n"
	     "3 the judge failed on some jobs (handed back, or failed after --max-attempts)");
}

int cmd_worker(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", 1, 0, 'd' },      { "backend", 1, 0, 'b' }, { "gpus", 1, 0, 'g' },
		{ "workers", 1, 0, 'W' }, { "run", 1, 0, 'r' },     { "lease", 1, 0, 'l' },
		{ "max-attempts", 1, 0, 'm' }, { "wait", 0, 0, 'w' }, { "poll", 1, 0, 'p' },
		{ "cache", 1, 0, 'c' },   { "json", 0, 0, 'j' },    { "quiet", 0, 0, 'q' },
		{ "help", 0, 0, 'h' },    { "unsafe-no-sandbox", 0, 0, 'U' }, { 0, 0, 0, 0 }
	};
	static struct worker w;
	struct kj_err err;
	struct sigaction sa, old_int, old_term;
	struct hb_arg hb;
	pthread_t th[MAX_SLOTS], hbt;
	const char *db_arg = getenv("KJUDGE_DB"), *cache_arg = NULL, *run_arg = NULL;
	int c, json = 0, gpus[MAX_SLOTS] = { 0 }, ngpus = 1, nworkers = 1, have_backend = 0;
	int exit_code = KJ_EXIT_OK, rc;
	kj_backend be = KJ_BACKEND_CPU;
	char where[512], *end;
	double t0 = kj_cli_now_s();

	memset(&w, 0, sizeof(w));
	w.lease_s = 60;
	w.poll_s = 1;
	w.max_attempts = 3;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_arg = optarg;
			break;
		case 'b':
			if (kj_backend_from_name(optarg, &be))
				return kj_cli_usage_error("worker", "unknown backend '%s' (cpu or cuda)", optarg);
			have_backend = 1;
			break;
		case 'g':
			if ((rc = kj_cli_gpus_option("worker", optarg, gpus, &ngpus, MAX_SLOTS)))
				return rc;
			break;
		case 'W':
			nworkers = (int)strtol(optarg, &end, 10);
			if (*end || nworkers < 1 || nworkers > MAX_SLOTS)
				return kj_cli_usage_error("worker", "--workers wants 1..%d, got '%s'", MAX_SLOTS,
							  optarg);
			break;
		case 'r':
			run_arg = optarg;
			break;
		case 'l':
			w.lease_s = strtod(optarg, &end);
			if (*end || !(w.lease_s >= 0.5 && w.lease_s <= 86400))
				return kj_cli_usage_error("worker", "--lease wants 0.5..86400 seconds, got '%s'",
							  optarg);
			break;
		case 'm':
			w.max_attempts = (int)strtol(optarg, &end, 10);
			if (*end || w.max_attempts < 1 || w.max_attempts > 1000)
				return kj_cli_usage_error("worker", "--max-attempts wants 1..1000, got '%s'", optarg);
			break;
		case 'w':
			w.wait = 1;
			break;
		case 'p':
			w.poll_s = strtod(optarg, &end);
			if (*end || !(w.poll_s >= 0.01 && w.poll_s <= 3600))
				return kj_cli_usage_error("worker", "--poll wants 0.01..3600 seconds, got '%s'", optarg);
			break;
		case 'c':
			cache_arg = optarg;
			break;
		case 'U':
			w.unconfined = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			w.quiet = 1;
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			return kj_cli_usage_error("worker", "unknown option");
		}
	}
	if (optind != argc)
		return kj_cli_usage_error("worker", "unexpected argument '%s'", argv[optind]);
	if (!db_arg || !*db_arg)
		return kj_cli_usage_error("worker", "--db postgresql://... is required (or $KJUDGE_DB)");
	if (!kj_store_is_url(db_arg))
		return kj_cli_usage_error("worker", "--db must be a postgresql:// URL: the cluster queue "
					  "lives in PostgreSQL (got '%s')", db_arg);
	if (!have_backend)
		be = kj_gpu_available() ? KJ_BACKEND_CUDA : KJ_BACKEND_CPU;
	if (be == KJ_BACKEND_CUDA && !kj_gpu_available()) {
		fprintf(stderr, "kjudge worker: the cuda backend needs a CUDA device and a kjudge built "
				"with nvcc; use --backend cpu here\n");
		return KJ_EXIT_USAGE;
	}
	w.backend = kj_backend_name(be);
	kj_store_redact(db_arg, where, sizeof(where));
	kj_err_init(&err);
	if (kj_cache_dir(cache_arg, w.cache_dir, sizeof(w.cache_dir), &err)) {
		fprintf(stderr, "kjudge worker: %s\n", err.msg);
		return KJ_EXIT_USAGE;
	}
	kj_cli_judge_paths(w.worker_path, sizeof(w.worker_path), w.include_dir, sizeof(w.include_dir));
	gethostname(w.host, sizeof(w.host) - 1);
	w.host[sizeof(w.host) - 1] = 0;
	pthread_mutex_init(&w.mu, NULL);
	kj_record_tasks_init(&w.tasks, load_task, NULL);

	hb.db = NULL;
	if (kj_store_open(db_arg, &w.db, &err) || kj_store_open(db_arg, &hb.db, &err)) {
		fprintf(stderr, "kjudge worker: %s\n", err.msg);
		kj_store_close(w.db);
		kj_record_tasks_release(&w.tasks);
		pthread_mutex_destroy(&w.mu);
		return KJ_EXIT_JUDGE;
	}
	hb.w = &w;
	if (run_arg && kj_store_run_find(w.db, run_arg, &w.only_run, &err)) {
		fprintf(stderr, "kjudge worker: %s\n", err.msg);
		exit_code = KJ_EXIT_USAGE;
		goto out;
	}
	w.nslots = be == KJ_BACKEND_CUDA ? ngpus : nworkers;
	for (int i = 0; i < w.nslots; i++) {
		struct slot *sl = &w.slots[i];
		sl->index = i;
		sl->w = &w;
		sl->ordinal = be == KJ_BACKEND_CUDA ? gpus[i] : -1;
		if ((be == KJ_BACKEND_CUDA
			     ? kj_record_gpu_ordinal(w.db, sl->ordinal, w.cache_dir, &sl->device_id, sl->arch,
						     sizeof(sl->arch), NULL, 0, &err)
			     : (i ? (sl->device_id = w.slots[0].device_id, 0)
				  : kj_record_cpu_device(w.db, &sl->device_id, NULL, 0, &err)))) {
			fprintf(stderr, "kjudge worker: %s\n", err.msg);
			exit_code = KJ_EXIT_JUDGE;
			goto out;
		}
	}
	say(&w, "%s on %s: %d %s thread%s, lease %gs, store %s", w.host, w.backend, w.nslots,
	    be == KJ_BACKEND_CUDA ? "GPU" : "CPU", w.nslots == 1 ? "" : "s", w.lease_s, where);

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	{
		sigset_t block, prev;
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		pthread_sigmask(SIG_BLOCK, &block, &prev);
		pthread_create(&hbt, NULL, heartbeat_main, &hb);
		for (int i = 0; i < w.nslots; i++)
			pthread_create(&th[i], NULL, eval_main, &w.slots[i]);
		pthread_sigmask(SIG_SETMASK, &prev, NULL);
	}
	for (int i = 0; i < w.nslots; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_lock(&w.mu);
	w.hb_stop = 1;
	pthread_mutex_unlock(&w.mu);
	pthread_join(hbt, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	if (w.failed || w.fatal)
		exit_code = KJ_EXIT_JUDGE;
	else if (stop_requested)
		exit_code = KJ_EXIT_FAIL;
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:b,s:f}", "host", w.host, "db",
				      where, "backend", w.backend, "threads", w.nslots, "judged", w.judged,
				      "reused", w.reused, "copies", w.copies, "judge_failures", w.failed,
				      "leases_lost", w.lost, "interrupted", (int)stop_requested, "seconds",
				      kj_cli_now_s() - t0);
		char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("worker %s:%ld: %d judged, %d copies of identical sources, %d from the verdict "
		       "cache, %d judge failures, %d leases lost; %.1f s\n", w.host, (long)getpid(), w.judged,
		       w.copies, w.reused, w.failed, w.lost, kj_cli_now_s() - t0);
	}
out:
	kj_record_tasks_release(&w.tasks);
	free(w.runs);
	kj_store_close(hb.db);
	kj_store_close(w.db);
	pthread_mutex_destroy(&w.mu);
	return exit_code;
}
