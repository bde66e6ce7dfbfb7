/*
 * Throughput of the cluster queue (include/kjudge/cluster.h) with trivial
 * jobs: W threads, each with its own connection as separate worker processes
 * would have, run the store calls a `kjudge worker` makes per candidate --
 * claim (FOR UPDATE SKIP LOCKED, leased), verdict-cache lookup, judgement
 * row, complete (verdict + its checks + the job's end in one transaction) --
 * with no judging in between, until the queue is empty.
 *
 *   queue_throughput URL WORKERS JOBS
 *
 * Prints one line: workers, jobs, seconds, jobs/s, and the scheduling
 * overhead per candidate on a worker (the time of those calls: mean, median,
 * 99th percentile, in ms).  bench/queue_throughput.sh builds and runs it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/cluster.h"
#include "kjudge/store.h"

static const char task_text[] =
	"task relu\nlevel 1\ncategory Activation\nabout \"ReLU\"\n"
	"input  x: f32[B, D] ~ normal\noutput y: f32[B, D]\ny = relu(x)\n"
	"check B=1 D=1; B=3 D=5\nbench B=64 D=64 weight=0.7; B=32 D=128 weight=0.3\n";

static kj_task *task;
static const char *url;
static int64_t run_id, device_id;

struct thr {
	int index;
	double *ms; /* per job */
	int n, cap;
	int rc;
	char msg[512];
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *worker(void *arg)
{
	struct thr *t = arg;
	struct kj_err err;
	kj_db *s = NULL;
	char owner[64];
	kj_err_init(&err);
	snprintf(owner, sizeof(owner), "bench:%d:%d", (int)getpid(), t->index);
	if ((t->rc = kj_store_open(url, &s, &err)))
		goto out;
	for (;;) {
		struct kj_cluster_job j;
		struct kj_store_verdict_opts o;
		kj_verdict v;
		int64_t from = 0, jid = 0;
		int got = 0;
		double t0 = now_s();
		if ((t->rc = kj_cluster_claim(s, "cpu", run_id, owner, 60, 3, &j, &got, &err)) || !got)
			break;
		if ((t->rc = kj_store_find_verdict_by_sha(s, j.sha256, task->id, "cpu", device_id, "bench",
							  &from, &err)) ||
		    (t->rc = kj_store_judgement_begin(s, j.candidate_id, device_id, &jid, &err))) {
			kj_cluster_job_release(&j);
			break;
		}
		kj_verdict_init(&v);
		snprintf(v.task, sizeof(v.task), "%s", task->id);
		snprintf(v.sha256, sizeof(v.sha256), "%s", j.sha256);
		v.backend = KJ_BACKEND_CPU;
		v.status = KJ_ST_PASS;
		v.stage = KJ_STAGE_DONE;
		v.seeds = 1;
		v.nchecks = v.capchecks = 2;
		v.checks = calloc(2, sizeof(*v.checks));
		for (int i = 0; i < 2; i++) {
			v.checks[i].bind = i;
			v.checks[i].pass = 1;
			snprintf(v.checks[i].output, sizeof(v.checks[i].output), "y");
		}
		memset(&o, 0, sizeof(o));
		o.run_id = j.run_id;
		o.device_id = device_id;
		o.cache_key = "bench";
		o.judgement_id = jid;
		t->rc = kj_cluster_complete(s, &j, &v, task, NULL, &o, 0, NULL, &err);
		kj_verdict_release(&v);
		kj_cluster_job_release(&j);
		if (t->rc)
			break;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 1024;
			t->ms = realloc(t->ms, (size_t)t->cap * sizeof(*t->ms));
		}
		t->ms[t->n++] = 1e3 * (now_s() - t0);
	}
out:
	if (t->rc)
		snprintf(t->msg, sizeof(t->msg), "%s", err.msg);
	kj_store_close(s);
	return NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	struct kj_err err;
	struct thr th[256];
	pthread_t tid[256];
	kj_db *s = NULL;
	char name[64], src[64];
	double t0, wall, sum = 0, *all;
	int nw, njobs, added = 0, total = 0;
	if (argc != 4 || (nw = atoi(argv[2])) < 1 || nw > 256 || (njobs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: %s URL WORKERS(1..256) JOBS\n", argv[0]);
		return 2;
	}
	url = argv[1];
	kj_err_init(&err);
	if (kj_task_parse(task_text, strlen(task_text), "bench/relu", &task, &err) ||
	    kj_store_open(url, &s, &err) || kj_store_put_task(s, task, "", &err) ||
	    kj_store_device_upsert(s, "cpu:bench", "bench", "x86_64", "{}", &device_id, &err)) {
		fprintf(stderr, "queue_throughput: %s\n", err.msg);
		return 1;
	}
	snprintf(name, sizeof(name), "bench_%d_%d_%ld", nw, njobs, (long)time(NULL));
	if (kj_store_run_get_or_create(s, name, "cpu", "", "{}", &run_id, &err) || kj_store_begin(s, &err)) {
		fprintf(stderr, "queue_throughput: %s\n", err.msg);
		return 1;
	}
	for (int i = 0; i < njobs; i++) {
		struct kj_store_candidate c;
		int64_t id;
		memset(&c, 0, sizeof(c));
		snprintf(src, sizeof(src), "/* %s %d */", name, i);
		c.run_id = run_id;
		c.task = task->id;
		c.source = src;
		c.source_len = strlen(src);
		c.sample = i;
		if (kj_store_add_candidate(s, &c, &id, NULL, &err)) {
			fprintf(stderr, "queue_throughput: %s\n", err.msg);
			return 1;
		}
	}
	if (kj_store_commit(s, &err) || kj_cluster_enqueue(s, run_id, &added, NULL, &err)) {
		fprintf(stderr, "queue_throughput: %s\n", err.msg);
		return 1;
	}
	memset(th, 0, sizeof(th));
	t0 = now_s();
	for (int i = 0; i < nw; i++) {
		th[i].index = i;
		pthread_create(&tid[i], NULL, worker, &th[i]);
	}
	for (int i = 0; i < nw; i++)
		pthread_join(tid[i], NULL);
	wall = now_s() - t0;
	for (int i = 0; i < nw; i++) {
		if (th[i].rc) {
			fprintf(stderr, "queue_throughput: worker %d: %s\n", i, th[i].msg);
			return 1;
		}
		total += th[i].n;
	}
	all = malloc((size_t)(total ? total : 1) * sizeof(*all));
	total = 0;
	for (int i = 0; i < nw; i++)
		for (int k = 0; k < th[i].n; k++) {
			all[total++] = th[i].ms[k];
			sum += th[i].ms[k];
		}
	qsort(all, (size_t)total, sizeof(*all), cmp_d);
	if (total != njobs || added != njobs) {
		fprintf(stderr, "queue_throughput: %d jobs enqueued, %d completed, of %d\n", added, total, njobs);
		return 1;
	}
	printf("%7d  %6d  %8.2f  %8.1f  %8.2f  %8.2f  %8.2f\n", nw, total, wall, total / wall,
	       sum / total, all[total / 2], all[(int)(0.99 * (total - 1))]);
	for (int i = 0; i < nw; i++)
		free(th[i].ms);
	free(all);
	kj_store_close(s);
	kj_task_free(task);
	return 0;
}
