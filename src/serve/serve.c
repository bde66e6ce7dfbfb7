/*
 * kjudge serve: the server's life (start, the evaluation threads, leases,
 * stop).  The HTTP side is api.c; the queue is src/store/queue.c.  See
 * include/kjudge/serve.h and docs/api.md.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/cluster.h"
#include "kjudge/gpu.h"
#include "kjudge/hash.h"
#include "kjudge/jail.h"
#include "kjudge/python.h"
#include "kjudge/record.h"
#include "serve/serve_int.h"

#define DEFAULT_LISTEN "127.0.0.1:8421"

void kj_serve_opts_init(struct kj_serve_opts *o)
{
	memset(o, 0, sizeof(*o));
	kj_eval_opts_init(&o->eval);
	o->workers = 1;
}

double kj_serve_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kj_serve_log(struct kj_server *S, const char *fmt, ...)
{
	char line[1536];
	va_list ap;
	if (!S->o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	S->o->log(S->o->log_ctx, line);
}

int kj_serve_token_new(char out[KJ_SERVE_TOKEN_LEN], char sha256_hex[65], struct kj_err *err)
{
	unsigned char rnd[32];
	size_t got = 0;
	while (got < sizeof(rnd)) {
		ssize_t r = getrandom(rnd + got, sizeof(rnd) - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return kj_err_sys(err, "cannot read random bytes for a token");
		}
		got += (size_t)r;
	}
	memcpy(out, "kjt_", 4);
	for (size_t i = 0; i < sizeof(rnd); i++)
		snprintf(out + 4 + 2 * i, 3, "%02x", rnd[i]);
	kj_sha256_hex(out, strlen(out), sha256_hex);
	return 0;
}

int kj_serve_parse_listen(const char *s, struct sockaddr_storage *addr, int *loopback,
			  struct kj_err *err)
{
	char host[128];
	const char *colon, *hs = s;
	size_t hl;
	char *end;
	long port;
	memset(addr, 0, sizeof(*addr));
	*loopback = 0;
	if (!s || !*s)
		return kj_err_set(err, KJ_E_USAGE, "--listen wants ADDR:PORT, got an empty string");
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');
		if (!rb || rb[1] != ':')
			return kj_err_set(err, KJ_E_USAGE, "--listen wants [IPv6]:PORT, got '%s'", s);
		hs = s + 1;
		hl = (size_t)(rb - hs);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return kj_err_set(err, KJ_E_USAGE, "--listen wants ADDR:PORT, got '%s'", s);
		hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= sizeof(host))
		return kj_err_set(err, KJ_E_USAGE, "--listen wants ADDR:PORT with an address, got '%s'", s);
	memcpy(host, hs, hl);
	host[hl] = 0;
	port = strtol(colon + 1, &end, 10);
	if (!colon[1] || *end || port < 0 || port > 65535)
		return kj_err_set(err, KJ_E_USAGE, "--listen: bad port in '%s' (0..65535; 0: any free one)", s);
	if (s[0] == '[') {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)addr;
		if (inet_pton(AF_INET6, host, &a6->sin6_addr) != 1)
			return kj_err_set(err, KJ_E_USAGE, "--listen: '%s' is not an IPv6 address", host);
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*loopback = IN6_IS_ADDR_LOOPBACK(&a6->sin6_addr);
	} else {
		struct sockaddr_in *a4 = (struct sockaddr_in *)addr;
		if (!strcmp(host, "localhost"))
			snprintf(host, sizeof(host), "127.0.0.1");
		if (inet_pton(AF_INET, host, &a4->sin_addr) != 1)
			return kj_err_set(err, KJ_E_USAGE,
					  "--listen: '%s' is not an IPv4 address (write IPv6 as [::1]:PORT)", host);
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*loopback = (ntohl(a4->sin_addr.s_addr) >> 24) == 127;
	}
	return 0;
}

/* ---- tasks --------------------------------------------------------------- */

/* The loader of S's task cache: a served id is loaded from its path, and a
 * failed load is kept (S->tasks.keep_failures) with this message. */
static int load_served(void *ctx, const char *id, kj_task **out, struct kj_err *err)
{
	struct kj_server *S = ctx;
	struct kj_err le;
	for (int i = 0; i < S->ntasks; i++)
		if (!strcmp(S->tasks_served[i].id, id)) {
			const char *p = S->tasks_served[i].path;
			size_t n = strlen(p);
			kj_err_init(&le);
			/* a KernelBench problem file of the configured checkout
			 * (docs/kernelbench.md): its describe step, cached */
			if (n > 3 && !strcmp(p + n - 3, ".py") ?
				    kj_kb_task_load(p, S->eval.cache_dir, S->eval.include_dir, out, &le) :
				    kj_task_load(p, out, &le))
				return kj_err_set(err, KJ_E_USAGE, "task '%s' does not load: %s", id, le.msg);
			return 0;
		}
	return kj_err_set(err, KJ_E_NOTFOUND, "unknown task '%s' (GET /v1/tasks lists them)", id);
}

const struct kj_serve_task *kj_serve_task_get(struct kj_server *S, const char *id, const kj_task **t,
					      char sha256[65], struct kj_err *err)
{
	const struct kj_serve_task *e = NULL;
	for (int i = 0; i < S->ntasks && !e; i++)
		if (!strcmp(S->tasks_served[i].id, id))
			e = &S->tasks_served[i];
	if (!e) {
		kj_err_set(err, KJ_E_NOTFOUND, "unknown task '%s' (GET /v1/tasks lists them)", id);
		return NULL;
	}
	if (kj_record_task_get(&S->tasks, e->id, t, sha256, err))
		return NULL;
	return e;
}

/* ---- judging one job ----------------------------------------------------- */

static void finish(struct kj_serve_worker *w, const struct kj_job *j, kj_job_state state,
		   int64_t cid, const char *status, const char *verdict, const char *error)
{
	struct kj_server *S = w->S;
	struct kj_err err;
	kj_err_init(&err);
	if (kj_queue_complete(w->db, j->id, S->owner, state, cid, status, verdict, error,
			      kj_serve_now(), &err)) {
		if (err.code == KJ_E_NOTFOUND)
			kj_serve_log(S, "job %lld: taken back from this server while judged (lease lost); "
				     "its verdict is stored and its next claim reuses it", (long long)j->id);
		else
			kj_serve_log(S, "job %lld: cannot record its end: %s", (long long)j->id, err.msg);
		return;
	}
	if (state == KJ_JOB_DONE)
		kj_serve_log(S, "job %lld %s: %s (attempt %d)", (long long)j->id, j->task, status,
			     j->attempts);
	else
		kj_serve_log(S, "job %lld %s: failed: %s", (long long)j->id, j->task, error);
}

/* Ends the job with the verdict the candidate already has (judged before a
 * crash, or an identical source): returns 1 when it did. */
static int finish_stored(struct kj_serve_worker *w, const struct kj_job *j, int64_t cid)
{
	char *json = NULL;
	kj_status st;
	if (kj_store_get_verdict(w->db, cid, &json, &st, NULL))
		return 0;
	finish(w, j, KJ_JOB_DONE, cid, kj_status_name(st), json, NULL);
	free(json);
	return 1;
}

static void judge_job(struct kj_serve_worker *w, const struct kj_job *j)
{
	struct kj_server *S = w->S;
	const kj_task *t;
	struct kj_store_candidate c;
	struct kj_eval_opts o = S->eval;
	struct kj_recorder rec;
	struct kj_record_cand cand;
	struct kj_record_out out;
	struct kj_err err;
	int64_t cid = 0;
	char sha[65];
	int rc;
	kj_err_init(&err);
	if (!kj_serve_task_get(S, j->task, &t, sha, &err)) {
		finish(w, j, KJ_JOB_FAILED, 0, NULL, NULL, err.msg);
		return;
	}
	if ((rc = kj_store_put_task(w->db, t, sha, &err)))
		goto judge_fail;
	memset(&c, 0, sizeof(c));
	c.run_id = S->run_id;
	c.task = t->id;
	c.source = j->source;
	c.source_len = j->source_len;
	c.sha256 = j->sha256;
	c.model = j->model;
	c.method = "serve";
	c.sample = j->sample >= 0 ? j->sample : (int)j->id;
	c.round = j->round;
	if ((rc = kj_store_add_candidate(w->db, &c, &cid, NULL, &err))) {
		if (rc == KJ_E_USAGE) {
			finish(w, j, KJ_JOB_FAILED, 0, NULL, NULL, err.msg);
			return;
		}
		goto judge_fail;
	}
	if (finish_stored(w, j, cid))
		return;
	o.device = w->ordinal;
	o.gpu = w->gpu;
	o.pypool = w->pypool;
	o.cache_dir = S->cache_dir;
	memset(&rec, 0, sizeof(rec));
	rec.db = w->db;
	rec.run_id = S->run_id;
	rec.device_id = w->device_id;
	rec.cache_key = S->cache_key;
	rec.eval = &o;
	memset(&cand, 0, sizeof(cand));
	cand.id = cid;
	cand.t = t;
	cand.source = j->source;
	cand.len = j->source_len;
	cand.sha256 = j->sha256;
	cand.want_json = 1;
	if (kj_record_judge(&rec, &cand, &out, &err) == 0) {
		finish(w, j, KJ_JOB_DONE, cid, kj_status_name(out.status), out.json, NULL);
		free(out.json);
		return;
	}
judge_fail:
	kj_err_prefix(&err, "the judge failed");
	finish(w, j, KJ_JOB_FAILED, cid, NULL, NULL, err.msg);
}

static void *worker_main(void *arg)
{
	struct kj_serve_worker *w = arg;
	struct kj_server *S = w->S;
	struct kj_job j;
	kj_job_init(&j);
	if (S->eval.backend == KJ_BACKEND_CUDA) {
		struct kj_err err;
		kj_err_init(&err);
		/* one judge context per device for the server's life */
		if (kj_gpu_open(w->ordinal, &w->gpu, &err)) {
			w->gpu = NULL;
			kj_serve_log(S, "evaluation thread %d: cannot open GPU %d: %s; judging without a "
				     "shared context", w->index, w->ordinal, err.msg);
		}
	}
	/* the next job's Python worker is started while this one is judged
	 * (docs/kernelbench.md, "Pre-warmed workers") */
	if (kj_backend_is_python(S->eval.backend))
		w->pypool = kj_pypool_new(kj_pypool_spares_default());
	for (;;) {
		struct kj_err err;
		int got = 0, stopping;
		pthread_mutex_lock(&S->mu);
		stopping = S->stopping;
		pthread_mutex_unlock(&S->mu);
		if (stopping)
			break;
		kj_err_init(&err);
		if (kj_queue_claim(w->db, S->backend, S->owner, kj_serve_now(), S->lease_s, &j, &got, &err)) {
			kj_serve_log(S, "evaluation thread %d: cannot claim a job: %s", w->index, err.msg);
			got = 0;
		}
		if (!got) {
			struct timespec ts;
			pthread_mutex_lock(&S->mu);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			if (!S->stopping)
				pthread_cond_timedwait(&S->work_cv, &S->mu, &ts);
			pthread_mutex_unlock(&S->mu);
			continue;
		}
		pthread_mutex_lock(&S->mu);
		w->job_id = j.id;
		pthread_mutex_unlock(&S->mu);
		kj_serve_log(S, "job %lld %s: judging (attempt %d, thread %d)", (long long)j.id, j.task,
			     j.attempts, w->index);
		judge_job(w, &j);
		kj_job_release(&j);
		pthread_mutex_lock(&S->mu);
		w->job_id = 0;
		S->done_seq++;
		pthread_cond_broadcast(&S->done_cv);
		pthread_mutex_unlock(&S->mu);
	}
	kj_pypool_free(w->pypool);
	w->pypool = NULL;
	if (w->gpu)
		kj_gpu_close(w->gpu);
	w->gpu = NULL;
	return NULL;
}

/* ---- start and stop ------------------------------------------------------ */

/* Running jobs of a server on this host whose process is gone: handed back
 * at once instead of waiting for their leases. */
struct dead_ctx {
	struct kj_server *S;
	int64_t ids[64];
	char owners[64][128];
	int n;
};

static int collect_dead(void *ctx, const struct kj_job *j)
{
	struct dead_ctx *d = ctx;
	char host[128] = "", prefix[160];
	long pid;
	char *end;
	gethostname(host, sizeof(host) - 1);
	snprintf(prefix, sizeof(prefix), "%s:", host);
	if (d->n == 64 || strncmp(j->owner, prefix, strlen(prefix)))
		return 0;
	pid = strtol(j->owner + strlen(prefix), &end, 10);
	if (*end != ':' || pid <= 0 || pid == (long)getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	d->ids[d->n] = j->id;
	snprintf(d->owners[d->n], sizeof(d->owners[0]), "%s", j->owner);
	d->n++;
	return 0;
}

static void requeue_dead(struct kj_server *S, kj_db *db)
{
	struct dead_ctx d;
	memset(&d, 0, sizeof(d));
	d.S = S;
	if (kj_queue_list(db, KJ_JOB_RUNNING, 0, 0, 64, collect_dead, &d, NULL))
		return;
	for (int i = 0; i < d.n; i++)
		if (kj_queue_release(db, d.ids[i], d.owners[i], NULL) == 0)
			kj_serve_log(S, "job %lld: its server (%s) is gone: queued again", (long long)d.ids[i],
				     d.owners[i]);
}

static int write_port_file(const char *path, int port, struct kj_err *err)
{
	char tmp[4200];
	FILE *f;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return kj_err_sys(err, "cannot write the port file '%s'", tmp);
	fprintf(f, "%d\n", port);
	if (fclose(f) || rename(tmp, path))
		return kj_err_sys(err, "cannot write the port file '%s'", path);
	return 0;
}

/* What every job needs, checked before the server listens, so that a server
 * that could only fail its jobs does not start: the candidate header of the
 * track, the worker binary and the jail.  Returns 0, or KJ_E_NOTFOUND /
 * KJ_E_UNSUPPORTED with a message that names what is missing. */
static int check_ready(const struct kj_eval_opts *e, struct kj_err *err)
{
	kj_backend be = e->backend;
	if (be == KJ_BACKEND_CPU || be == KJ_BACKEND_CUDA) {
		const char *inc = e->include_dir && *e->include_dir ? e->include_dir : "include/candidate";
		const char *h = be == KJ_BACKEND_CPU ? "kjudge_cpu.h" : "kjudge_cuda.h";
		char path[4200];
		snprintf(path, sizeof(path), "%s/%s", inc, h);
		if (access(path, R_OK))
			return kj_err_set(err, KJ_E_NOTFOUND, "cannot serve the %s track: the candidate header "
					  "'%s' is missing (%s); every job would fail to compile.  KJUDGE_HOME "
					  "must name a kjudge tree with include/candidate/", kj_backend_name(be),
					  path, strerror(errno));
		if (!e->worker_path || !*e->worker_path)
			return kj_err_set(err, KJ_E_NOTFOUND, "cannot serve the %s track: no worker binary "
					  "is set", kj_backend_name(be));
		if (access(e->worker_path, X_OK))
			return kj_err_set(err, KJ_E_NOTFOUND, "cannot serve the %s track: the worker binary "
					  "'%s' is missing or not executable (%s)", kj_backend_name(be),
					  e->worker_path, strerror(errno));
	}
	if (!e->unconfined) {
		int rc = kj_jail_available(err);
		if (rc) {
			kj_err_prefix(err, "cannot serve");
			return rc;
		}
	}
	return 0;
}

int kj_serve_run(const struct kj_serve_opts *o, volatile sig_atomic_t *stop, struct kj_err *err)
{
	struct kj_server *S;
	struct sockaddr_storage addr;
	struct kj_token *toks = NULL;
	kj_db *main_db = NULL;
	void *daemon = NULL;
	char host[128] = "localhost", settings[512], where[512];
	int rc, ntok = 0, port = 0, detach = 0;
	double last_sweep = 0;
	sigset_t block, prev;

	S = calloc(1, sizeof(*S));
	if (!S)
		return kj_err_set(err, KJ_E_NOMEM, "serve: out of memory");
	S->o = o;
	S->stop = stop;
	S->eval = o->eval;
	S->backend = kj_backend_name(o->eval.backend);
	S->max_body = o->max_body ? o->max_body : (1u << 20);
	S->lease_s = o->lease_s > 0 ? o->lease_s : 30;
	S->max_attempts = o->max_attempts > 0 ? o->max_attempts : 3;
	S->max_wait_s = o->max_wait_s > 0 ? o->max_wait_s : 60;
	S->max_conns = o->max_conns ? o->max_conns : 1024;
	S->conns_per_ip = o->conns_per_ip ? o->conns_per_ip : 64;
	S->read_timeout_s = o->read_timeout_s ? o->read_timeout_s : 10;
	snprintf(S->run_name, sizeof(S->run_name), "%s", o->run_name && *o->run_name ? o->run_name : "serve");
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	snprintf(S->owner, sizeof(S->owner), "%s:%ld:%.0f", host, (long)getpid(), kj_serve_now());
	pthread_mutex_init(&S->mu, NULL);
	pthread_mutex_init(&S->db_mu, NULL);
	pthread_cond_init(&S->work_cv, NULL);
	pthread_cond_init(&S->done_cv, NULL);
	kj_record_tasks_init(&S->tasks, load_served, S);
	S->tasks.keep_failures = 1;
	S->ntasks = o->ntasks;
	S->tasks_served = calloc((size_t)(o->ntasks ? o->ntasks : 1), sizeof(*S->tasks_served));
	if (!S->tasks_served) {
		rc = kj_err_set(err, KJ_E_NOMEM, "serve: out of memory");
		goto out;
	}
	for (int i = 0; i < o->ntasks; i++) {
		S->tasks_served[i].id = o->task_ids[i];
		S->tasks_served[i].path = o->task_paths[i];
	}
	if ((rc = kj_cache_dir(o->eval.cache_dir, S->cache_dir, sizeof(S->cache_dir), err)))
		goto out;
	S->eval.cache_dir = S->cache_dir;
	{
		struct kj_verdict_settings vs;
		kj_eval_opts_settings(&S->eval, &vs);
		kj_store_cache_key(&vs, S->cache_key, sizeof(S->cache_key));
	}

	if ((rc = kj_serve_parse_listen(o->listen ? o->listen : DEFAULT_LISTEN, &addr, &S->loopback, err)))
		goto out;
	if ((rc = check_ready(&o->eval, err)))
		goto out;
	/* a postgresql:// URL's password never reaches the log or a message */
	kj_store_redact(o->db_path, where, sizeof(where));
	if ((rc = kj_store_open(o->db_path, &main_db, err)) || (rc = kj_store_open(o->db_path, &S->db, err)))
		goto out;
	if ((rc = kj_token_list(main_db, &toks, &ntok, err)))
		goto out;
	free(toks);
	if (!S->loopback && ntok == 0) {
		rc = kj_err_set(err, KJ_E_USAGE,
				"refusing to listen on '%s', not a loopback address, while the store '%s' "
				"holds no bearer token: add one with `kjudge serve token add NAME --db %s`",
				o->listen, where, where);
		goto out;
	}
	if (o->eval.backend == KJ_BACKEND_CUDA && !kj_gpu_available()) {
		rc = kj_err_set(err, KJ_E_UNSUPPORTED, "the cuda backend needs a CUDA device and a kjudge "
				"built with nvcc; use --backend cpu here");
		goto out;
	}
	snprintf(settings, sizeof(settings),
		 "{\"seeds\": %d, \"no_perf\": %s, \"timeout\": %g, \"perf_budget\": %g, "
		 "\"policy\": \"%s\", \"served\": true}",
		 o->eval.seeds, o->eval.no_perf ? "true" : "false", o->eval.call_timeout_s,
		 o->eval.perf_budget_s, o->eval.policy == KJ_POLICY_STRICT ? "strict" : "flag");
	if ((rc = kj_store_run_get_or_create(main_db, S->run_name, S->backend, "serve", settings,
					     &S->run_id, err)))
		goto out;

	/* evaluation threads, each with its own store connection and device */
	S->nworkers = o->eval.backend == KJ_BACKEND_CUDA ? (o->ngpus > 0 ? o->ngpus : 1)
							 : (o->workers > 0 ? o->workers : 1);
	S->workers = calloc((size_t)S->nworkers, sizeof(*S->workers));
	if (!S->workers) {
		rc = kj_err_set(err, KJ_E_NOMEM, "serve: out of memory");
		goto out;
	}
	for (int i = 0; i < S->nworkers; i++) {
		struct kj_serve_worker *w = &S->workers[i];
		w->S = S;
		w->index = i;
		w->ordinal = o->eval.backend == KJ_BACKEND_CUDA && o->ngpus > 0 ? o->gpus[i] : 0;
		if ((rc = kj_store_open(o->db_path, &w->db, err)))
			goto out;
		/* the GPU's context is opened again by w's own thread (a CUDA
		 * context's current device is per thread), as kjudge run does */
		if (o->eval.backend == KJ_BACKEND_CUDA)
			rc = kj_record_gpu_ordinal(w->db, w->ordinal, S->cache_dir, &w->device_id, NULL, 0,
						   NULL, 0, err);
		else
			rc = kj_record_cpu_device(w->db, &w->device_id, NULL, 0, err);
		if (rc)
			goto out;
	}

	/* jobs a dead server left running on this host, and expired leases */
	requeue_dead(S, main_db);
	{
		int rq = 0, fl = 0;
		if ((rc = kj_queue_requeue_stale(main_db, kj_serve_now(), S->max_attempts, &rq, &fl, err)))
			goto out;
		if (rq || fl)
			kj_serve_log(S, "%d job(s) left running by a stopped server queued again, %d abandoned",
				     rq, fl);
	}

	/* signals are for the caller's thread: an evaluation's system calls must
	 * never see EINTR from a ^C, so every thread started here blocks them */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &prev);
	daemon = kj_serve_http_start(S, &addr, &port, err);
	for (int i = 0; daemon && i < S->nworkers; i++) {
		if (pthread_create(&S->workers[i].th, NULL, worker_main, &S->workers[i])) {
			rc = kj_err_sys(err, "cannot start an evaluation thread");
			pthread_sigmask(SIG_SETMASK, &prev, NULL);
			goto out;
		}
		S->workers[i].started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &prev, NULL);
	if (!daemon) {
		rc = err ? err->code : KJ_E_IO;
		if (!rc)
			rc = KJ_E_IO;
		goto out;
	}
	if (o->port_file && (rc = write_port_file(o->port_file, port, err)))
		goto out;
	{
		char a[INET6_ADDRSTRLEN] = "?";
		if (addr.ss_family == AF_INET6)
			inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&addr)->sin6_addr, a, sizeof(a));
		else
			inet_ntop(AF_INET, &((struct sockaddr_in *)&addr)->sin_addr, a, sizeof(a));
		kj_serve_log(S, "listening on http://%s%s%s:%d/v1/ (%s track, %d evaluation thread%s, run '%s' "
			     "in %s%s)", addr.ss_family == AF_INET6 ? "[" : "", a,
			     addr.ss_family == AF_INET6 ? "]" : "", port, S->backend, S->nworkers,
			     S->nworkers == 1 ? "" : "s", S->run_name, where,
			     ntok ? ", bearer tokens required" : "");
	}

	/* the main loop: leases, stale jobs, and the stop signal */
	while (!*stop) {
		double now = kj_serve_now();
		usleep(100000);
		if (now - last_sweep < (S->lease_s / 3 < 1 ? S->lease_s / 3 : 1))
			continue;
		last_sweep = now;
		for (int i = 0; i < S->nworkers; i++) {
			int64_t id;
			pthread_mutex_lock(&S->mu);
			id = S->workers[i].job_id;
			pthread_mutex_unlock(&S->mu);
			if (id)
				kj_queue_heartbeat(main_db, id, S->owner, now, S->lease_s, NULL);
		}
		{
			int rq = 0, fl = 0;
			if (kj_queue_requeue_stale(main_db, now, S->max_attempts, &rq, &fl, NULL) == 0 &&
			    (rq || fl)) {
				kj_serve_log(S, "%d job(s) with expired leases queued again, %d abandoned", rq, fl);
				pthread_cond_broadcast(&S->work_cv);
			}
		}
	}
	kj_serve_log(S, "stopping: no new jobs; %s", *stop > 1 ? "handing running jobs back to the queue"
								   : "waiting for running jobs to finish "
								     "(signal again to hand them back)");
	pthread_mutex_lock(&S->mu);
	S->stopping = 1;
	pthread_cond_broadcast(&S->work_cv);
	pthread_cond_broadcast(&S->done_cv);
	pthread_mutex_unlock(&S->mu);
	/* wait for the evaluation threads, renewing their leases; a second
	 * signal hands their jobs back instead */
	for (;;) {
		int busy = 0;
		pthread_mutex_lock(&S->mu);
		for (int i = 0; i < S->nworkers; i++)
			busy += S->workers[i].job_id != 0;
		pthread_mutex_unlock(&S->mu);
		if (!busy)
			break;
		if (*stop > 1) {
			for (int i = 0; i < S->nworkers; i++) {
				int64_t id;
				pthread_mutex_lock(&S->mu);
				id = S->workers[i].job_id;
				pthread_mutex_unlock(&S->mu);
				if (id && kj_queue_release(main_db, id, S->owner, NULL) == 0)
					kj_serve_log(S, "job %lld: handed back to the queue", (long long)id);
			}
			detach = 1;
			break;
		}
		usleep(100000);
		{
			static double last;
			double now = kj_serve_now();
			if (now - last >= 1) {
				last = now;
				for (int i = 0; i < S->nworkers; i++) {
					int64_t id;
					pthread_mutex_lock(&S->mu);
					id = S->workers[i].job_id;
					pthread_mutex_unlock(&S->mu);
					if (id)
						kj_queue_heartbeat(main_db, id, S->owner, now, S->lease_s, NULL);
				}
			}
		}
	}
	rc = 0;
out:
	pthread_mutex_lock(&S->mu);
	S->stopping = S->closing = 1;
	pthread_cond_broadcast(&S->done_cv);
	pthread_mutex_unlock(&S->mu);
	if (daemon)
		kj_serve_http_stop(daemon);
	if (detach) {
		/* evaluation threads are still inside kj_eval: leave them and
		 * everything they use to the process's exit */
		kj_store_close(main_db);
		return 0;
	}
	pthread_mutex_lock(&S->mu);
	S->stopping = 1;
	pthread_cond_broadcast(&S->work_cv);
	pthread_mutex_unlock(&S->mu);
	for (int i = 0; S->workers && i < S->nworkers; i++) {
		if (S->workers[i].started)
			pthread_join(S->workers[i].th, NULL);
		if (S->workers[i].gpu)
			kj_gpu_close(S->workers[i].gpu);
		kj_store_close(S->workers[i].db);
	}
	free(S->workers);
	kj_record_tasks_release(&S->tasks);
	free(S->tasks_served);
	kj_store_close(S->db);
	kj_store_close(main_db);
	pthread_mutex_destroy(&S->mu);
	pthread_mutex_destroy(&S->db_mu);
	pthread_cond_destroy(&S->work_cv);
	pthread_cond_destroy(&S->done_cv);
	free(S);
	return rc;
}
