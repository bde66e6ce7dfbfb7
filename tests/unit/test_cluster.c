/* The PostgreSQL store and its cluster queue against a real server: migrations
 * (also by several processes at once), idempotent enqueue with one job per
 * distinct source, SKIP LOCKED claims from many connections, leases that
 * expire and are claimed again exactly once, fencing of a worker that lost
 * its lease, heartbeats, failures, and the copy of a run into SQLite.
 *
 * The server: $KJ_TEST_PG_URL (tests/cli/t62_cluster.sh passes its own), else
 * one started here with tests/cli/pg.sh.  Each run works in a database of its
 * own.  Without server binaries: a skip on a developer machine, a failure
 * with KJ_REQUIRE_PG or CI set. */
#include <postgresql/libpq-fe.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/cluster.h"
#include "kjudge/hash.h"
#include "kjudge/report.h"
#include "kjudge/score.h"
#include "kjudge/store.h"
#include "tap.h"

static const char task_text[] =
	"task relu\nlevel 1\ncategory Activation\nabout \"ReLU\"\n"
	"input  x: f32[B, D] ~ normal\noutput y: f32[B, D]\ny = relu(x)\n"
	"check B=1 D=1; B=3 D=5\nbench B=64 D=64 weight=0.7; B=32 D=128 weight=0.3\n";

static char server_dir[256];
static char base_url[512];
static kj_task *task;

static void nap(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	nanosleep(&ts, NULL);
}

/* A new database on the server; its URL into url. */
static int new_db(const char *name, char *url, size_t len)
{
	char sql[128];
	PGconn *c = PQconnectdb(base_url);
	PGresult *r;
	int ok_ = 0;
	const char *slash;
	if (PQstatus(c) == CONNECTION_OK) {
		PQclear(PQexec(c, "SET client_min_messages = warning"));
		snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s", name);
		PQclear(PQexec(c, sql));
		snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
		r = PQexec(c, sql);
		ok_ = PQresultStatus(r) == PGRES_COMMAND_OK;
		if (!ok_)
			printf("# %s", PQresultErrorMessage(r));
		PQclear(r);
	}
	PQfinish(c);
	slash = strrchr(base_url, '/');
	snprintf(url, len, "%.*s/%s", (int)(slash - base_url), base_url, name);
	return ok_ ? 0 : -1;
}

static long long pq_int(kj_db *unused, const char *url, const char *sql)
{
	PGconn *c = PQconnectdb(url);
	PGresult *r = PQexec(c, sql);
	long long v = -1;
	(void)unused;
	if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 && !PQgetisnull(r, 0, 0))
		v = atoll(PQgetvalue(r, 0, 0));
	else if (PQresultStatus(r) != PGRES_TUPLES_OK)
		printf("# %s", PQresultErrorMessage(r));
	PQclear(r);
	PQfinish(c);
	return v;
}

static void fake_verdict(kj_verdict *v, const char *src)
{
	kj_verdict_init(v);
	snprintf(v->task, sizeof(v->task), "%s", task->id);
	v->backend = KJ_BACKEND_CPU;
	kj_sha256_hex(src, strlen(src), v->sha256);
	v->status = KJ_ST_PASS;
	v->stage = KJ_STAGE_DONE;
	v->seeds = 1;
	v->nchecks = v->capchecks = 2;
	v->checks = calloc(2, sizeof(*v->checks));
	for (int i = 0; i < 2; i++) {
		v->checks[i].bind = i;
		v->checks[i].pass = 1;
		v->checks[i].max_abs = i ? 1.0 / 3.0 : 0;
		snprintf(v->checks[i].output, sizeof(v->checks[i].output), "y");
	}
	v->total_s = 0.25;
}

static int64_t add(kj_db *s, int64_t run, const char *src, int sample)
{
	struct kj_store_candidate c;
	struct kj_err err;
	int64_t id = 0;
	kj_err_init(&err);
	memset(&c, 0, sizeof(c));
	c.run_id = run;
	c.task = task->id;
	c.source = src;
	c.source_len = strlen(src);
	c.model = "m";
	c.sample = sample;
	if (kj_store_add_candidate(s, &c, &id, NULL, &err)) {
		printf("# add: %s\n", err.msg);
		return -1;
	}
	return id;
}

static int complete_fake(kj_db *s, const struct kj_cluster_job *j, struct kj_err *err)
{
	kj_verdict v;
	struct kj_store_verdict_opts o;
	int rc;
	fake_verdict(&v, j->source);
	memset(&o, 0, sizeof(o));
	o.run_id = j->run_id;
	o.cache_key = "k";
	rc = kj_cluster_complete(s, j, &v, task, NULL, &o, 0, NULL, err);
	kj_verdict_release(&v);
	return rc;
}

/* ---- migrations ---------------------------------------------------------------- */

static void test_open(const char *url)
{
	struct kj_err err;
	kj_db *s = NULL;
	kj_err_init(&err);
	is_int(kj_store_open(url, &s, &err), 0, "a postgresql:// URL opens the PostgreSQL store");
	is_str(kj_store_backend(s), "postgresql", "and says which backend it is");
	is_int(kj_store_schema_version(s, &err), kj_store_schema_latest(),
	       "a new database gets every migration step of the SQLite schema, same numbers");
	ok(kj_store_sqlite(s) == NULL, "it hands out no SQLite handle");
	is_int(pq_int(s, url, "SELECT count(*) FROM information_schema.tables WHERE table_name IN "
		      "('runs', 'devices', 'calibrations', 'tasks', 'candidates', 'verdicts', "
		      "'verdict_shapes', 'verdict_checks', 'baselines', 'judgements', 'run_jobs')"),
	       11, "every table of docs/store.md and the queue exists");
	kj_store_close(s);
	s = NULL;
	is_int(kj_store_open(url, &s, &err), 0, "reopening a migrated database works");
	kj_store_close(s);
	s = NULL;
	is_int(kj_store_open("postgresql://kjudge:secret@127.0.0.1:1/x", &s, &err), KJ_E_IO,
	       "an unreachable server is KJ_E_IO");
	like(err.msg, "cannot open the store 'postgresql://kjudge:***@127.0.0.1:1/x'",
	     "the message names the store without its password");
	ok(!strstr(err.msg, "secret"), "and never prints the password");
}

static void test_concurrent_migration(void)
{
	char url[600];
	pid_t kids[4];
	int good = 0;
	if (new_db("kjt_mig", url, sizeof(url))) {
		ok(0, "create a database for the migration race");
		return;
	}
	for (int i = 0; i < 4; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			kj_db *s = NULL;
			int rc = kj_store_open(url, &s, NULL);
			int v = rc ? -1 : kj_store_schema_version(s, NULL);
			kj_store_close(s);
			_exit(v == kj_store_schema_latest() ? 0 : 1);
		}
	}
	for (int i = 0; i < 4; i++) {
		int st;
		if (kids[i] > 0 && waitpid(kids[i], &st, 0) == kids[i] && WIFEXITED(st) && !WEXITSTATUS(st))
			good++;
	}
	is_int(good, 4, "four processes opening a new database at once all get it migrated");
	is_int(pq_int(NULL, url, "SELECT count(*) FROM kjudge_schema"), 1,
	       "and the version is recorded once");
	is_int(pq_int(NULL, url, "SELECT count(*) FROM pg_proc WHERE proname = 'kj_now'"), 1,
	       "each step ran once");
}

/* ---- the queue ------------------------------------------------------------------- */

struct claimer {
	const char *url;
	int64_t ids[64];
	int n;
	int rc;
};

static void *claim_all(void *arg)
{
	struct claimer *c = arg;
	kj_db *s = NULL;
	char owner[64];
	snprintf(owner, sizeof(owner), "t%p", arg);
	if ((c->rc = kj_store_open(c->url, &s, NULL)))
		return NULL;
	for (;;) {
		struct kj_cluster_job j;
		int got = 0;
		if ((c->rc = kj_cluster_claim(s, "cpu", 0, owner, 60, 3, &j, &got, NULL)) || !got)
			break;
		if (c->n < 64)
			c->ids[c->n++] = j.id;
		c->rc = complete_fake(s, &j, NULL);
		kj_cluster_job_release(&j);
		if (c->rc)
			break;
	}
	kj_store_close(s);
	return NULL;
}

static void test_queue(const char *url)
{
	struct kj_err err;
	struct kj_cluster_counts q;
	struct claimer cl[6];
	pthread_t th[6];
	kj_db *s = NULL;
	int64_t run = 0, seen[256] = { 0 };
	int added = -1, requeued = -1, total = 0, dup = 0, rcs = 0;
	char src[64];
	kj_err_init(&err);
	if (kj_store_open(url, &s, &err) || kj_store_put_task(s, task, "", &err) ||
	    kj_store_run_get_or_create(s, "q", "cpu", "", "{}", &run, &err)) {
		ok(0, "set up a run: %s", err.msg);
		kj_store_close(s);
		return;
	}
	/* 40 candidates, 30 distinct sources */
	for (int i = 0; i < 40; i++) {
		snprintf(src, sizeof(src), "source %d", i % 30);
		add(s, run, src, i);
	}
	is_int(kj_cluster_enqueue(s, run, &added, &requeued, &err), 0, "enqueue a run");
	is_int(added, 30, "one job per distinct source (40 candidates, 30 sources)");
	is_int(kj_cluster_enqueue(s, run, &added, &requeued, &err), 0, "enqueue it again");
	is_int(added, 0, "adds nothing");
	for (int i = 0; i < 6; i++) {
		memset(&cl[i], 0, sizeof(cl[i]));
		cl[i].url = url;
		pthread_create(&th[i], NULL, claim_all, &cl[i]);
	}
	for (int i = 0; i < 6; i++) {
		pthread_join(th[i], NULL);
		rcs |= cl[i].rc;
		for (int k = 0; k < cl[i].n; k++) {
			int64_t id = cl[i].ids[k];
			if (id > 0 && id < 256 && seen[id]++)
				dup++;
			total++;
		}
	}
	is_int(rcs, 0, "six connections claim and complete without an error");
	is_int(total, 30, "they claimed 30 jobs together");
	is_int(dup, 0, "and no job twice (FOR UPDATE SKIP LOCKED)");
	is_int(kj_cluster_counts(s, run, "cpu", &q, &err), 0, "count the queue");
	ok(q.done == 30 && q.queued == 0 && q.running == 0 && q.failed == 0,
	   "every job is done (%lld done, %lld queued, %lld running)", (long long)q.done,
	   (long long)q.queued, (long long)q.running);
	is_int(pq_int(s, url, "SELECT count(*) FROM verdicts"), 40,
	       "every candidate has a verdict: 30 judged, 10 copies for repeated sources");
	is_int(pq_int(s, url, "SELECT count(*) FROM verdicts WHERE reused_from IS NOT NULL"), 10,
	       "the copies say whose verdict they reuse");
	is_int(pq_int(s, url, "SELECT count(*) FROM verdict_checks"), 80, "with their checks");
	{
		char out[512];
		sqlite3 *db;
		sqlite3_stmt *st;
		long long n = -1, checks = -1;
		double third = 0;
		snprintf(out, sizeof(out), "/tmp/kjt_export_%d.sqlite", (int)getpid());
		unlink(out);
		is_int(kj_store_export_sqlite(s, "q", out, &err), 0, "copy the run into a SQLite store");
		if (sqlite3_open(out, &db) == SQLITE_OK) {
			if (sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM verdicts), (SELECT count(*) "
					       "FROM verdict_checks), (SELECT max(max_abs) FROM verdict_checks)",
					       -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
				n = sqlite3_column_int64(st, 0);
				checks = sqlite3_column_int64(st, 1);
				third = sqlite3_column_double(st, 2);
			}
			sqlite3_finalize(st);
			sqlite3_close(db);
		}
		ok(n == 40 && checks == 80, "the copy holds every verdict and check (%lld, %lld)", n, checks);
		ok(third == 1.0 / 3.0, "doubles survive the copy bit for bit");
		unlink(out);
		is_int(kj_store_export_sqlite(s, "nope", out, &err), KJ_E_NOTFOUND, "a missing run is NOTFOUND");
	}
	kj_store_close(s);
}

static void test_leases(const char *url)
{
	struct kj_err err;
	struct kj_cluster_job a, b, c;
	kj_db *s = NULL, *s2 = NULL;
	int64_t run = 0, cid;
	int got = 0;
	kj_err_init(&err);
	if (kj_store_open(url, &s, &err) || kj_store_open(url, &s2, &err) ||
	    kj_store_put_task(s, task, "", &err) ||
	    kj_store_run_get_or_create(s, "lease", "cpu", "", "{}", &run, &err)) {
		ok(0, "set up a run: %s", err.msg);
		kj_store_close(s);
		kj_store_close(s2);
		return;
	}
	cid = add(s, run, "lease source", 0);
	kj_cluster_enqueue(s, run, NULL, NULL, &err);
	is_int(kj_cluster_claim(s, "cuda", run, "A", 0.5, 3, &a, &got, &err), 0, "claim a cuda job");
	is_int(got, 0, "a cpu run has none");
	is_int(kj_cluster_claim(s, "cpu", run, "A", 0.5, 3, &a, &got, &err), 0, "worker A claims");
	ok(got && a.candidate_id == cid && a.attempts == 1, "the job, its first claim");
	ok(a.source && !strcmp(a.source, "lease source") && !strcmp(a.run_name, "lease") &&
	   !strcmp(a.settings, "{}"), "with its source, run and settings");
	is_int(kj_cluster_heartbeat(s, &a, 0.5, &err), 0, "A renews its lease");
	is_int(kj_cluster_claim(s2, "cpu", run, "B", 0.5, 3, &b, &got, &err), 0, "B asks at once");
	is_int(got, 0, "and gets nothing: the lease holds");
	nap(0.8);
	is_int(kj_cluster_claim(s2, "cpu", run, "B", 5, 3, &b, &got, &err), 0,
	       "B asks after the lease passed");
	ok(got && b.id == a.id && b.attempts == 2, "and takes the job again: claim 2");
	is_int(kj_cluster_claim(s, "cpu", run, "C", 5, 3, &c, &got, &err), 0, "C asks too");
	is_int(got, 0, "and gets nothing: an expired job is taken once");
	is_int(kj_cluster_heartbeat(s, &a, 0.5, &err), KJ_E_NOTFOUND, "A's heartbeat finds its lease lost");
	is_int(complete_fake(s, &a, &err), KJ_E_NOTFOUND, "A's completion is refused");
	like(err.msg, "lease was lost", "saying why");
	is_int(pq_int(s, url, "SELECT count(*) FROM verdicts v JOIN candidates c ON c.id = v.candidate_id "
		      "JOIN runs r ON r.id = c.run_id WHERE r.name = 'lease'"), 0, "and wrote nothing");
	is_int(kj_cluster_fail(s, &a, "x", 3, &err), KJ_E_NOTFOUND, "A cannot hand it back either");
	is_int(complete_fake(s2, &b, &err), 0, "B completes it");
	is_int(pq_int(s, url, "SELECT count(*) FROM verdicts v JOIN candidates c ON c.id = v.candidate_id "
		      "JOIN runs r ON r.id = c.run_id WHERE r.name = 'lease'"), 1, "one verdict");
	is_int(complete_fake(s2, &b, &err), KJ_E_NOTFOUND, "completing twice is refused");
	kj_cluster_job_release(&a);
	kj_cluster_job_release(&b);

	/* the token is (owner, attempts): the same owner claiming its own
	 * expired job again holds a new token, and the old one is void */
	add(s, run, "same owner source", 2);
	kj_cluster_enqueue(s, run, NULL, NULL, &err);
	kj_cluster_claim(s, "cpu", run, "A", 0.3, 3, &a, &got, &err);
	nap(0.5);
	kj_cluster_claim(s, "cpu", run, "A", 5, 3, &b, &got, &err);
	ok(got && b.id == a.id && b.attempts == 2, "A claims its own expired job again: claim 2");
	is_int(complete_fake(s, &a, &err), KJ_E_NOTFOUND, "the first claim's token is refused");
	is_int(complete_fake(s, &b, &err), 0, "the second's completes");
	kj_cluster_job_release(&a);
	kj_cluster_job_release(&b);

	/* heartbeats keep a long judgement's lease */
	add(s, run, "long source", 1);
	kj_cluster_enqueue(s, run, NULL, NULL, &err);
	kj_cluster_claim(s, "cpu", run, "A", 0.6, 3, &a, &got, &err);
	ok(got, "A claims a job with a 0.6 s lease");
	{
		int renewed = 0;
		for (int i = 0; i < 6; i++) {
			nap(0.2);
			renewed += kj_cluster_heartbeat(s, &a, 0.6, &err) == 0;
		}
		is_int(renewed, 6, "A renews it every 0.2 s for 1.2 s");
	}
	is_int(kj_cluster_claim(s2, "cpu", run, "B", 5, 3, &b, &got, &err), 0, "B asks after 1.2 s");
	is_int(got, 0, "and gets nothing: the heartbeats kept the lease");
	is_int(kj_cluster_fail(s, &a, "judge broke", 2, &err), 0, "A hands it back after a judge failure");
	kj_cluster_job_release(&a);
	kj_cluster_claim(s2, "cpu", run, "B", 5, 2, &b, &got, &err);
	ok(got && b.attempts == 2, "B claims it again (claim 2)");
	is_int(kj_cluster_fail(s2, &b, "judge broke again", 2, &err), 0, "and fails too");
	kj_cluster_job_release(&b);
	is_int(kj_cluster_claim(s, "cpu", run, "C", 5, 2, &c, &got, &err), 0, "C asks");
	is_int(got, 0, "nothing: the job failed after 2 claims");
	is_int(pq_int(s, url, "SELECT count(*) FROM run_jobs WHERE state = 'failed' AND error = "
		      "'judge broke again'"), 1, "the failed job keeps the last error");
	{
		int added = -1, requeued = -1;
		kj_cluster_enqueue(s, run, &added, &requeued, &err);
		ok(added == 0 && requeued == 1, "enqueueing again requeues the failed job (%d, %d)", added,
		   requeued);
	}

	/* a job whose lease keeps expiring is failed after max_attempts */
	kj_cluster_claim(s, "cpu", run, "A", 0.3, 1, &a, &got, &err);
	kj_cluster_job_release(&a);
	nap(0.5);
	is_int(kj_cluster_claim(s2, "cpu", run, "B", 5, 1, &b, &got, &err), 0, "B asks after it expired");
	is_int(got, 0, "max_attempts 1: it is failed, not claimed");
	is_int(pq_int(s, url, "SELECT count(*) FROM run_jobs WHERE state = 'failed' AND error LIKE "
		      "'lease expired after 1 claims%'"), 1, "saying its lease expired");
	kj_store_close(s);
	kj_store_close(s2);
}

static void test_sqlite_refuses(void)
{
	struct kj_err err;
	struct kj_cluster_job j;
	char path[300];
	kj_db *s = NULL;
	int got = 7;
	kj_err_init(&err);
	snprintf(path, sizeof(path), "/tmp/kjt_cluster_%d.sqlite", (int)getpid());
	if (kj_store_open(path, &s, &err)) {
		ok(0, "open a SQLite store: %s", err.msg);
		return;
	}
	is_str(kj_store_backend(s), "sqlite", "a file path opens the SQLite store");
	is_int(kj_cluster_claim(s, "cpu", 0, "A", 5, 3, &j, &got, &err), KJ_E_UNSUPPORTED,
	       "the cluster queue refuses SQLite");
	like(err.msg, "needs a postgresql:// store", "saying what it needs");
	kj_store_close(s);
	unlink(path);
}

static void test_nul_source(const char *url)
{
	struct kj_err err;
	struct kj_store_candidate c;
	kj_db *s = NULL;
	int64_t run = 0, id = 0;
	kj_err_init(&err);
	if (kj_store_open(url, &s, &err) || kj_store_run_get_or_create(s, "nul", "cpu", "", "{}", &run, &err)) {
		ok(0, "open: %s", err.msg);
		kj_store_close(s);
		return;
	}
	memset(&c, 0, sizeof(c));
	c.run_id = run;
	c.task = task->id;
	c.source = "a\0b";
	c.source_len = 3;
	is_int(kj_store_add_candidate(s, &c, &id, NULL, &err), KJ_E_USAGE,
	       "a source with a NUL byte is refused");
	like(err.msg, "NUL", "saying why");
	kj_store_close(s);
}

/* ---- the same run on both backends reads back the same ------------------------- */

/* A verdict of status st at stage sg; timed: two bench shapes with baseline
 * and roofline figures. */
static void verdict_of(kj_verdict *v, const char *src, kj_status st, kj_stage sg, int timed)
{
	fake_verdict(v, src);
	v->status = st;
	v->stage = sg;
	if (!timed)
		return;
	v->nperf = 2;
	v->perf = calloc(2, sizeof(*v->perf));
	for (int i = 0; i < 2; i++) {
		kj_perf *p = &v->perf[i];
		p->bind = 2 + i;
		p->weight = i ? 0.3 : 0.7;
		p->flops = 4096.0 * (i + 1);
		p->bytes = 32768.0 * (i + 1);
		p->ms = 0.1 + 0.05 * i;
		p->iqr_ms = 0.01 / 3;
		p->n = 20;
		p->baseline_ms = 0.2 + i / 7.0;
		p->baseline_iqr_ms = 0.02 * (i + 1);
		p->baseline_n = 20;
		p->speedup = p->baseline_ms / p->ms;
		p->sol_ms = 0.01;
		p->sol_frac = p->sol_ms / p->ms;
		p->iou = 0.5;
		p->mfu = 0.01 * (i + 1);
	}
	v->speedup = 1.75;
}

/* One run written the same way: a pass with timings, a mismatch, a static
 * rejection after a cached compile, a copy of the pass, one not judged. */
static int write_run(kj_db *s, struct kj_err *err)
{
	static const char *const src[] = { "int a;", "int b;", "int c;", "int a;", "int d;" };
	kj_calib cal;
	kj_verdict v;
	struct kj_store_verdict_opts o;
	int64_t run, dev, id[5];
	int rc;
	memset(&cal, 0, sizeof(cal));
	cal.copy_gbs = 3000.5;
	cal.fp32_tflops = 50;
	cal.fp16_tflops = 800;
	if ((rc = kj_store_put_task(s, task, "abc", err)) ||
	    (rc = kj_store_run_get_or_create(s, "same", "cpu", "spec.jsonl", "{\"seeds\": 1}", &run, err)) ||
	    (rc = kj_store_device_upsert(s, "cpu:test", "Test CPU", "x86_64", "{}", &dev, err)) ||
	    (rc = kj_store_calibration_add(s, dev, &cal, err)))
		return rc;
	for (int i = 0; i < 5; i++)
		if ((id[i] = add(s, run, src[i], i)) < 0)
			return -1;
	memset(&o, 0, sizeof(o));
	o.run_id = run;
	o.device_id = dev;
	o.cache_key = "seeds=1;perf=1";
	verdict_of(&v, src[0], KJ_ST_PASS, KJ_STAGE_DONE, 1);
	rc = kj_store_put_verdict(s, id[0], &v, task, NULL, &o, err);
	kj_verdict_release(&v);
	verdict_of(&v, src[1], KJ_ST_MISMATCH, KJ_STAGE_CORRECTNESS, 0);
	if (!rc)
		rc = kj_store_put_verdict(s, id[1], &v, task, NULL, &o, err);
	kj_verdict_release(&v);
	verdict_of(&v, src[2], KJ_ST_REJECTED, KJ_STAGE_STATIC, 0);
	v.compile_cached = 1;
	o.cache_key = "seeds=1;perf=0";
	if (!rc)
		rc = kj_store_put_verdict(s, id[2], &v, task, NULL, &o, err);
	kj_verdict_release(&v);
	if (!rc)
		rc = kj_store_copy_verdict(s, id[0], id[3], err);
	return rc;
}

/* The report of run "same" in format f, with what differs by nature between
 * two stores (their names, creation and judgement times) blanked. */
static char *report_of(const char *db, enum kj_report_format f, kj_score_run **keep)
{
	struct kj_err err;
	kj_score_run *r = NULL;
	kj_score_summary sum;
	char *text = NULL;
	kj_err_init(&err);
	memset(&sum, 0, sizeof(sum));
	if (kj_score_load(db, "same", &r, &err)) {
		printf("# load %s: %s\n", db, err.msg);
		return NULL;
	}
	free(r->db_path), free(r->created), free(r->first_judged), free(r->last_judged);
	r->db_path = strdup("db");
	r->created = strdup("");
	r->first_judged = strdup("");
	r->last_judged = strdup("");
	for (size_t i = 0; i < r->n; i++)
		r->c[i].judged_at[0] = 0;
	for (int i = 0; i < r->nroofs; i++)
		r->roofs[i].created[0] = 0;
	if (kj_score_summarise(r, &sum, &err) || kj_report_render(r, &sum, f, &text, &err))
		printf("# report %s: %s\n", db, err.msg);
	kj_score_summary_release(&sum);
	if (keep && !*keep)
		*keep = r;
	else
		kj_score_run_free(r);
	return text;
}

static void test_read_same(void)
{
	struct kj_err err;
	char path[300], url[600];
	kj_db *a = NULL, *b = NULL;
	kj_score_run *ra = NULL, *rb = NULL;
	kj_err_init(&err);
	snprintf(path, sizeof(path), "/tmp/kjt_same_%d.sqlite", (int)getpid());
	unlink(path);
	if (new_db("kjt_same", url, sizeof(url)) || kj_store_open(path, &a, &err) ||
	    kj_store_open(url, &b, &err)) {
		ok(0, "open a SQLite and a PostgreSQL store: %s", err.msg);
		kj_store_close(a);
		kj_store_close(b);
		return;
	}
	is_int(write_run(a, &err), 0, "write the run to SQLite");
	is_int(write_run(b, &err), 0, "write the same run to PostgreSQL");
	kj_store_close(a);
	kj_store_close(b);
	for (int f = 0; f < 2; f++) {
		enum kj_report_format fmt = f ? KJ_REPORT_JSON : KJ_REPORT_MD;
		char *ta = report_of(path, fmt, &ra), *tb = report_of(url, fmt, &rb);
		ok(ta && tb && !strcmp(ta, tb), "the %s report of the PostgreSQL run is the SQLite run's "
		   "(%zu bytes)", f ? "json" : "md", ta ? strlen(ta) : 0);
		free(ta);
		free(tb);
	}
	if (ra && rb && ra->n == 5 && rb->n == 5) {
		ok(ra->c[0].nshapes == 2 && rb->c[0].nshapes == 2 &&
		   ra->c[0].shapes[1].speedup == rb->c[0].shapes[1].speedup &&
		   rb->c[0].shapes[0].iqr_ms == 0.01 / 3, "the shapes' figures are equal, bit for bit");
		ok(rb->c[0].base_rel_iqr == ra->c[0].base_rel_iqr && rb->c[0].base_rel_iqr > 0,
		   "the baseline's spread is read from the verdict JSON on both (%g)", rb->c[0].base_rel_iqr);
		ok(ra->c[2].compiled && rb->c[2].compiled && !ra->c[1].compiled == !rb->c[1].compiled,
		   "a static rejection after a cached compile counts as compiled on both");
		ok(rb->c[2].no_perf && !rb->c[0].no_perf, "the verdict settings are read (perf=0)");
		ok(!ra->c[4].judged && !rb->c[4].judged, "the candidate without a verdict is pending on both");
		ok(ra->nroofs == 1 && rb->nroofs == 1 && rb->roofs[0].copy_gbs == 3000.5 &&
		   ra->ndevices == 1 && rb->ndevices == 1 && rb->devices[0].verdicts == 4,
		   "the device, its calibration and its verdict count");
		ok(ra->verdict_settings == 2 && rb->verdict_settings == 2, "two verdict settings on both");
	} else {
		ok(0, "both runs load with 5 candidates");
	}
	kj_score_run_free(ra);
	kj_score_run_free(rb);
	{
		kj_score_run *r = NULL;
		is_int(kj_score_load(url, "nope", &r, &err), KJ_E_NOTFOUND, "a missing run is NOTFOUND on PostgreSQL");
		like(err.msg, "no run 'nope'", "naming it");
	}
	unlink(path);
}

int main(void)
{
	const char *env = getenv("KJ_TEST_PG_URL");
	int started = 0;
	char url[600], mig_name[32];
	struct kj_err err;
	kj_err_init(&err);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (env && *env) {
		snprintf(base_url, sizeof(base_url), "%s", env);
	} else {
		char cmd[600];
		FILE *f;
		int st;
		snprintf(server_dir, sizeof(server_dir), "/tmp/kjt_pg_%d", (int)getpid());
		snprintf(cmd, sizeof(cmd), "tests/cli/pg.sh start %s 2>%s.err", server_dir, server_dir);
		f = popen(cmd, "r");
		if (!f || !fgets(base_url, sizeof(base_url), f))
			base_url[0] = 0;
		st = f ? pclose(f) : -1;
		base_url[strcspn(base_url, "\n")] = 0;
		if (!base_url[0]) {
			char m[256] = "";
			FILE *e;
			snprintf(cmd, sizeof(cmd), "%s.err", server_dir);
			if ((e = fopen(cmd, "r"))) {
				if (!fgets(m, sizeof(m), e))
					m[0] = 0;
				fclose(e);
			}
			m[strcspn(m, "\n")] = 0;
			if (WIFEXITED(st) && WEXITSTATUS(st) == 77 && !getenv("KJ_REQUIRE_PG") && !getenv("CI")) {
				printf("1..0 # SKIP no PostgreSQL server here: %s\n", m);
				return 0;
			}
			printf("not ok 1 - start a PostgreSQL server with tests/cli/pg.sh: %s\n1..1\n", m);
			return 1;
		}
		started = 1;
	}
	if (kj_task_parse(task_text, strlen(task_text), "t/relu", &task, &err)) {
		printf("not ok 1 - parse the task: %s\n1..1\n", err.msg);
		return 1;
	}
	snprintf(mig_name, sizeof(mig_name), "kjt_%d", (int)getpid());
	if (new_db(mig_name, url, sizeof(url))) {
		printf("not ok 1 - create a database on %s\n1..1\n", base_url);
		return 1;
	}
	test_open(url);
	test_concurrent_migration();
	test_queue(url);
	test_leases(url);
	test_nul_source(url);
	test_sqlite_refuses();
	test_read_same();
	kj_task_free(task);
	if (started) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "tests/cli/pg.sh stop %s; rm -rf %s %s.err", server_dir, server_dir,
			 server_dir);
		if (system(cmd) != 0)
			printf("# could not stop the server in %s\n", server_dir);
	}
	return done_testing();
}
