/* The job queue of the store (kjudge serve) on PostgreSQL against a real
 * server: the checks of queue_checks.h (those SQLite passes in test_queue.c),
 * then what only a shared server shows: claims from many connections at once
 * hand every job to exactly one of them, and concurrent submits of one token
 * keep its idempotency key and its quota.
 *
 * The server: $KJ_TEST_PG_URL, else one started here with tests/cli/pg.sh.
 * Each part works in a database of its own.  Without server binaries: a skip,
 * or a failure with KJ_REQUIRE_PG or CI set. */
#include <postgresql/libpq-fe.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kjudge/store.h"
#include "queue_checks.h"
#include "tap.h"

static char base_url[512];

/* A new database on the server; its URL into url. */
static int new_db(const char *name, char *url, size_t len)
{
	char sql[128];
	PGconn *c = PQconnectdb(base_url);
	PGresult *r;
	int good = 0;
	const char *slash;
	if (PQstatus(c) == CONNECTION_OK) {
		PQclear(PQexec(c, "SET client_min_messages = warning"));
		snprintf(sql, sizeof(sql), "DROP DATABASE IF EXISTS %s", name);
		PQclear(PQexec(c, sql));
		snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
		r = PQexec(c, sql);
		good = PQresultStatus(r) == PGRES_COMMAND_OK;
		if (!good)
			printf("# %s", PQresultErrorMessage(r));
		PQclear(r);
	} else {
		printf("# %s", PQerrorMessage(c));
	}
	PQfinish(c);
	slash = strrchr(base_url, '/');
	snprintf(url, len, "%.*s/%s", (int)(slash - base_url), base_url, name);
	return good ? 0 : -1;
}

/* ---- claims from many connections -------------------------------------------- */

#define NJOBS 240
#define NTHREADS 8

struct claimer {
	const char *url;
	char owner[32];
	int64_t ids[NJOBS];
	int n, failed;
	pthread_t th;
};

static void *claim_all(void *arg)
{
	struct claimer *c = arg;
	struct kj_err err;
	struct kj_job j;
	kj_db *s = NULL;
	kj_err_init(&err);
	kj_job_init(&j);
	if (kj_store_open(c->url, &s, &err)) {
		printf("# %s: %s\n", c->owner, err.msg);
		c->failed = 1;
		return NULL;
	}
	for (;;) {
		int got = 0;
		if (kj_queue_claim(s, "cpu", c->owner, 1000, 60, &j, &got, &err)) {
			printf("# %s: claim: %s\n", c->owner, err.msg);
			c->failed = 1;
			break;
		}
		if (!got)
			break;
		if (c->n < NJOBS)
			c->ids[c->n] = j.id;
		c->n++;
		if (kj_queue_complete(s, j.id, c->owner, KJ_JOB_DONE, 0, "pass", "{}", NULL, 1001, &err)) {
			printf("# %s: complete %lld: %s\n", c->owner, (long long)j.id, err.msg);
			c->failed = 1;
		}
	}
	kj_job_release(&j);
	kj_store_close(s);
	return NULL;
}

static void test_concurrent_claims(const char *url)
{
	static struct claimer cl[NTHREADS];
	static unsigned char seen[NJOBS + 1];
	struct kj_err err;
	kj_db *s = NULL;
	enum kj_submit_result res;
	int64_t first = 0, n[KJ_JOB_STATE_COUNT];
	int total = 0, dup = 0, outside = 0, failed = 0, bad = 0;
	kj_err_init(&err);
	if (!ok(kj_store_open(url, &s, &err) == 0, "open a new store for concurrent claims (%s)", err.msg))
		return;
	for (int i = 0; i < NJOBS; i++) {
		char src[32];
		struct kj_job_new x;
		int64_t id;
		snprintf(src, sizeof(src), "void f%d(void){}", i);
		x = job("level1/relu", src, NULL, "", 900 + i);
		id = submit(s, x, &res);
		bad += res != KJ_SUBMIT_CREATED;
		if (i == 0)
			first = id;
	}
	is_int(bad, 0, "%d jobs submitted", NJOBS);
	for (int i = 0; i < NTHREADS; i++) {
		cl[i].url = url;
		snprintf(cl[i].owner, sizeof(cl[i].owner), "srv%d", i);
		pthread_create(&cl[i].th, NULL, claim_all, &cl[i]);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(cl[i].th, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		failed += cl[i].failed;
		total += cl[i].n;
		for (int k = 0; k < cl[i].n && k < NJOBS; k++) {
			int64_t off = cl[i].ids[k] - first;
			if (off < 0 || off >= NJOBS)
				outside++;
			else if (seen[off]++)
				dup++;
		}
		printf("# %s claimed %d\n", cl[i].owner, cl[i].n);
	}
	is_int(failed, 0, "%d connections claim and complete without an error", NTHREADS);
	is_int(total, NJOBS, "every job is claimed once in all (%d claims)", total);
	ok(dup == 0 && outside == 0, "no job is handed to two claimers (%d twice, %d unknown)", dup, outside);
	ok(kj_queue_counts(s, 0, n, &err) == 0 && n[KJ_JOB_DONE] == NJOBS && n[KJ_JOB_QUEUED] == 0 &&
	   n[KJ_JOB_RUNNING] == 0,
	   "all %d done, none left queued or running", NJOBS);
	{
		struct kj_job j;
		int once = 1;
		kj_job_init(&j);
		for (int i = 0; i < NJOBS; i++)
			if (kj_queue_get(s, first + i, &j, &err) || j.attempts != 1)
				once = 0;
		ok(once, "each with attempts 1");
		kj_job_release(&j);
	}
	kj_store_close(s);
}

/* ---- concurrent submits of one token ------------------------------------------ */

struct submitter {
	const char *url;
	const char *key; /* NULL: a key of its own */
	int index, quota;
	int64_t id;
	enum kj_submit_result res;
	int failed;
	pthread_t th;
};

static void *submit_one(void *arg)
{
	struct submitter *t = arg;
	struct kj_err err;
	kj_db *s = NULL;
	char src[32], key[32];
	struct kj_job_new x;
	kj_err_init(&err);
	if (kj_store_open(t->url, &s, &err)) {
		printf("# submitter %d: %s\n", t->index, err.msg);
		t->failed = 1;
		return NULL;
	}
	snprintf(src, sizeof(src), "void s%d(void){}", t->index);
	snprintf(key, sizeof(key), "own-%d", t->index);
	x = job("level1/relu", t->key ? "void same(void){}" : src, t->key ? t->key : key, "r", 500);
	x.token_id = t->quota ? 4 : 3;
	x.quota = t->quota;
	if (kj_queue_submit(s, &x, &t->id, &t->res, &err)) {
		printf("# submitter %d: %s\n", t->index, err.msg);
		t->failed = 1;
	}
	kj_store_close(s);
	return NULL;
}

static void test_concurrent_submits(const char *url)
{
	struct submitter t[NTHREADS];
	int created = 0, replayed = 0, over = 0, same = 1, failed = 0;
	memset(t, 0, sizeof(t));
	for (int i = 0; i < NTHREADS; i++) {
		t[i].url = url;
		t[i].key = "same-key";
		t[i].index = i;
		pthread_create(&t[i].th, NULL, submit_one, &t[i]);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i].th, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		failed += t[i].failed;
		created += t[i].res == KJ_SUBMIT_CREATED;
		replayed += t[i].res == KJ_SUBMIT_REPLAYED;
		same &= t[i].id == t[0].id && t[i].id > 0;
	}
	ok(!failed && created == 1 && replayed == NTHREADS - 1 && same,
	   "%d submits at once with one idempotency key: one job created, %d replays of it (%d created, "
	   "%d failed)", NTHREADS, NTHREADS - 1, created, failed);

	memset(t, 0, sizeof(t));
	created = failed = 0;
	for (int i = 0; i < NTHREADS; i++) {
		t[i].url = url;
		t[i].index = i;
		t[i].quota = 3;
		pthread_create(&t[i].th, NULL, submit_one, &t[i]);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i].th, NULL);
	for (int i = 0; i < NTHREADS; i++) {
		failed += t[i].failed;
		created += t[i].res == KJ_SUBMIT_CREATED;
		over += t[i].res == KJ_SUBMIT_OVER_QUOTA;
	}
	ok(!failed && created == 3 && over == NTHREADS - 3,
	   "%d submits at once under quota 3: 3 created, the rest over quota (%d created, %d over, "
	   "%d failed)", NTHREADS, created, over, failed);
}

/* ---- PostgreSQL specifics ------------------------------------------------------- */

static void test_pg_specifics(const char *url)
{
	struct kj_err err;
	struct kj_job j;
	kj_db *s = NULL;
	enum kj_submit_result res;
	int64_t id = 0;
	int got = 0;
	kj_err_init(&err);
	kj_job_init(&j);
	if (!ok(kj_store_open(url, &s, &err) == 0, "open a new store (%s)", err.msg))
		return;
	{
		struct kj_job_new x = job("level1/relu", "a\0b", NULL, "", 1);
		x.source_len = 3;
		ok(kj_queue_submit(s, &x, &id, &res, &err) == KJ_E_USAGE && strstr(err.msg, "NUL"),
		   "a source with a NUL byte is refused (%s)", err.msg);
	}
	id = submit(s, job("level1/relu", "void t(void){}", NULL, "", 2), &res);
	ok(kj_store_begin(s, &err) == 0 && kj_queue_claim(s, "cpu", "srvT", 10, 5, &j, &got, &err) == 0 &&
	   got && j.id == id && kj_store_rollback(s, &err) == 0,
	   "a claim inside kj_store_begin() is rolled back with it");
	ok(kj_queue_get(s, id, &j, &err) == 0 && j.state == KJ_JOB_QUEUED && j.attempts == 0,
	   "the job is queued again, attempts 0");
	ok(kj_queue_claim(s, "cpu", "srvT", 10, 5, &j, &got, &err) == 0 && got && j.id == id &&
	   j.attempts == 1 && j.lease_until == 15 && j.started == 10,
	   "claimed for real: attempts 1, lease and start time");
	ok(kj_queue_heartbeat(s, id, "srvT", 12, 5, &err) == 0 && kj_queue_get(s, id, &j, &err) == 0 &&
	   j.lease_until == 17,
	   "a heartbeat moves the lease to now + lease");
	kj_job_release(&j);
	kj_store_close(s);
}

int main(void)
{
	const char *env = getenv("KJ_TEST_PG_URL");
	char server_dir[256] = "", url[600], name[48];
	struct kj_err err;
	kj_db *s = NULL, *s2 = NULL;
	kj_err_init(&err);
	setvbuf(stdout, NULL, _IONBF, 0);
	if (env && *env) {
		snprintf(base_url, sizeof(base_url), "%s", env);
	} else {
		char cmd[600], m[256] = "";
		FILE *f, *e;
		int st;
		snprintf(server_dir, sizeof(server_dir), "/tmp/kjtq_pg_%d", (int)getpid());
		snprintf(cmd, sizeof(cmd), "tests/cli/pg.sh start %s 2>%s.err", server_dir, server_dir);
		f = popen(cmd, "r");
		if (!f || !fgets(base_url, sizeof(base_url), f))
			base_url[0] = 0;
		st = f ? pclose(f) : -1;
		base_url[strcspn(base_url, "\n")] = 0;
		if (!base_url[0]) {
			snprintf(cmd, sizeof(cmd), "%s.err", server_dir);
			if ((e = fopen(cmd, "r"))) {
				if (!fgets(m, sizeof(m), e))
					m[0] = 0;
				fclose(e);
			}
			m[strcspn(m, "\n")] = 0;
			snprintf(cmd, sizeof(cmd), "tests/cli/pg.sh stop %s >/dev/null 2>&1; rm -rf %s %s.err",
				 server_dir, server_dir, server_dir);
			if (system(cmd) != 0)
				printf("# could not clean up %s\n", server_dir);
			if (WIFEXITED(st) && WEXITSTATUS(st) == 77 && !getenv("KJ_REQUIRE_PG") && !getenv("CI")) {
				printf("1..0 # SKIP no PostgreSQL server here: %s\n", m);
				return 0;
			}
			printf("not ok 1 - start a PostgreSQL server with tests/cli/pg.sh: %s\n1..1\n", m);
			return 1;
		}
	}
	snprintf(name, sizeof(name), "kjtq_%d", (int)getpid());
	if (new_db(name, url, sizeof(url)) == 0) {
		ok(kj_store_open(url, &s, &err) == 0, "open a new PostgreSQL store (%s)", err.msg);
		ok(kj_store_open(url, &s2, &err) == 0, "a second connection to it");
		if (s && s2)
			queue_checks(s, s2);
		kj_store_close(s);
		kj_store_close(s2);
	} else {
		ok(0, "create a database on %s", base_url);
	}
	snprintf(name, sizeof(name), "kjtq_%d_c", (int)getpid());
	if (ok(new_db(name, url, sizeof(url)) == 0, "a database for concurrent claims"))
		test_concurrent_claims(url);
	snprintf(name, sizeof(name), "kjtq_%d_s", (int)getpid());
	if (ok(new_db(name, url, sizeof(url)) == 0, "a database for concurrent submits"))
		test_concurrent_submits(url);
	snprintf(name, sizeof(name), "kjtq_%d_p", (int)getpid());
	if (ok(new_db(name, url, sizeof(url)) == 0, "a database for the rest"))
		test_pg_specifics(url);
	if (server_dir[0]) {
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "tests/cli/pg.sh stop %s; rm -rf %s %s.err", server_dir, server_dir,
			 server_dir);
		if (system(cmd) != 0)
			printf("# could not stop the server in %s\n", server_dir);
	}
	return done_testing();
}
