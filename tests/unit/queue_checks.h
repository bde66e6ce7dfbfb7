/* The checks of the job queue (kjudge serve) that every store backend must
 * pass: submit and idempotency, quota, claim order, leases and requeue of
 * stale running jobs, complete, cancel, list and counts, tokens.  Included by
 * test_queue.c (SQLite) and test_queue_pg.c (PostgreSQL); s and s2 are two
 * connections to one new, empty store. */
#ifndef KJ_TEST_QUEUE_CHECKS_H
#define KJ_TEST_QUEUE_CHECKS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/store.h"
#include "tap.h"

static struct kj_job_new job(const char *task, const char *src, const char *key, const char *rsha,
			     double now)
{
	struct kj_job_new n;
	memset(&n, 0, sizeof(n));
	n.task = task;
	n.backend = "cpu";
	n.source = src;
	n.source_len = strlen(src);
	n.sample = -1;
	n.idem_key = key;
	n.request_sha256 = rsha;
	n.now = now;
	return n;
}

static int64_t submit(kj_db *s, struct kj_job_new n, enum kj_submit_result *res)
{
	int64_t id = -1;
	struct kj_err err;
	kj_err_init(&err);
	if (kj_queue_submit(s, &n, &id, res, &err))
		printf("# submit: %s\n", err.msg);
	return id;
}

static int count_cb(void *ctx, const struct kj_job *j)
{
	int *n = ctx;
	(*n)++;
	return j->source == NULL && j->verdict == NULL ? 0 : 1000;
}

static void queue_checks(kj_db *s, kj_db *s2)
{
	struct kj_err err;
	struct kj_job j;
	enum kj_submit_result res;
	int64_t a, b, c, d, n[KJ_JOB_STATE_COUNT];
	int got, rq, fl, cnt;
	kj_job_state st;

	kj_err_init(&err);
	kj_job_init(&j);
	ok(kj_store_schema_version(s, &err) >= 2, "the queue tables come with migration step 2");

	/* submit and idempotency */
	a = submit(s, job("level1/relu", "void a(void){}", NULL, "r1", 100), &res);
	is_int(res, KJ_SUBMIT_CREATED, "a job without a key is created");
	b = submit(s, job("level1/relu", "void b(void){}", "k1", "r2", 101), &res);
	is_int(res, KJ_SUBMIT_CREATED, "a job with key k1 is created");
	c = submit(s, job("level1/relu", "void b(void){}", "k1", "r2", 102), &res);
	ok(res == KJ_SUBMIT_REPLAYED && c == b, "the same key and request: the same job (%lld)", (long long)c);
	c = submit(s, job("level1/relu", "void other(void){}", "k1", "r3", 103), &res);
	ok(res == KJ_SUBMIT_CONFLICT && c == b, "the same key, another request: CONFLICT naming job %lld",
	   (long long)c);
	{
		struct kj_job_new x = job("level1/relu", "void b(void){}", "k1", "r2", 104);
		x.token_id = 7;
		c = submit(s, x, &res);
		ok(res == KJ_SUBMIT_CREATED && c != b, "keys are per token: token 7's k1 is another job");
	}
	{
		struct kj_job_new x = job("", "x", NULL, "", 0);
		int64_t id;
		ok(kj_queue_submit(s, &x, &id, &res, &err) == KJ_E_USAGE, "a job without a task is refused");
	}
	ok(kj_queue_get(s, b, &j, &err) == 0, "get job b");
	ok(j.state == KJ_JOB_QUEUED && j.attempts == 0 && j.sample == -1 && !strcmp(j.idem_key, "k1") &&
	   j.source_len == strlen("void b(void){}") && !strcmp(j.source, "void b(void){}") &&
	   j.created == 101 && j.verdict == NULL,
	   "a fresh job: queued, 0 attempts, its key, source and creation time");
	ok(kj_queue_get(s, 999, &j, &err) == KJ_E_NOTFOUND, "an unknown job is KJ_E_NOTFOUND (%s)", err.msg);

	/* quota */
	{
		struct kj_job_new x = job("level1/relu", "q1", NULL, "", 105);
		x.token_id = 9;
		x.quota = 2;
		submit(s, x, &res);
		is_int(res, KJ_SUBMIT_CREATED, "quota 2: the first job of token 9");
		x.source = "q2";
		submit(s, x, &res);
		is_int(res, KJ_SUBMIT_CREATED, "quota 2: the second");
		x.source = "q3";
		d = submit(s, x, &res);
		ok(res == KJ_SUBMIT_OVER_QUOTA && d == 0, "quota 2: the third is OVER_QUOTA");
	}

	/* claim order: the oldest queued job first, of the right backend */
	ok(kj_queue_claim(s, "cuda", "srv1", 200, 30, &j, &got, &err) == 0 && got == 0,
	   "no cuda job to claim");
	ok(kj_queue_claim(s, "cpu", "srv1", 200, 30, &j, &got, &err) == 0 && got == 1,
	   "claim a cpu job");
	ok(j.id == a && j.state == KJ_JOB_RUNNING && j.attempts == 1 && !strcmp(j.owner, "srv1") &&
	   j.lease_until == 230 && j.started == 200,
	   "the oldest job, running, attempt 1, owner and lease set");
	ok(kj_queue_claim(s2, "cpu", "srv2", 201, 30, &j, &got, &err) == 0 && got == 1 && j.id == b,
	   "another connection claims the next one (job b)");

	/* cancel */
	ok(kj_queue_cancel(s, b, 0, 202, &st, &err) == 0 && st == KJ_JOB_RUNNING,
	   "a running job is not cancelled (state running)");
	d = submit(s, job("level1/relu", "void c(void){}", NULL, "", 203), &res);
	ok(kj_queue_cancel(s, d, 5, 204, &st, &err) == KJ_E_NOTFOUND, "another token's job is not found");
	ok(kj_queue_cancel(s, d, 0, 204, &st, &err) == 0 && st == KJ_JOB_CANCELLED, "a queued job is cancelled");
	ok(kj_queue_get(s, d, &j, &err) == 0 && j.state == KJ_JOB_CANCELLED && j.finished == 204,
	   "and stays cancelled, finished set");
	ok(kj_queue_cancel(s, d, 0, 205, &st, &err) == 0 && st == KJ_JOB_CANCELLED,
	   "cancelling it again says cancelled");

	/* heartbeat, complete: only the owner */
	ok(kj_queue_heartbeat(s, a, "srv1", 220, 30, &err) == 0, "the owner renews its lease");
	ok(kj_queue_heartbeat(s, a, "srv2", 220, 30, &err) == KJ_E_NOTFOUND, "another server cannot");
	ok(kj_queue_complete(s, a, "srv2", KJ_JOB_DONE, 0, "pass", "{}", NULL, 221, &err) == KJ_E_NOTFOUND,
	   "nor complete it");
	ok(kj_queue_complete(s, a, "srv1", KJ_JOB_QUEUED, 0, NULL, NULL, NULL, 221, &err) == KJ_E_USAGE,
	   "a job is completed as done or failed only");
	ok(kj_queue_complete(s, a, "srv1", KJ_JOB_DONE, 0, "pass", "{\"status\":\"pass\"}", NULL, 222,
			     &err) == 0,
	   "the owner completes job a");
	ok(kj_queue_get(s, a, &j, &err) == 0 && j.state == KJ_JOB_DONE && !strcmp(j.status, "pass") &&
	   j.verdict && !strcmp(j.verdict, "{\"status\":\"pass\"}") && j.finished == 222 && j.lease_until == 0,
	   "done, with status, verdict, finish time and no lease");
	ok(kj_queue_complete(s, a, "srv1", KJ_JOB_DONE, 0, "pass", "{}", NULL, 223, &err) == KJ_E_NOTFOUND,
	   "a job is completed once");

	/* requeue of stale running jobs: b (srv2, lease 231) */
	ok(kj_queue_requeue_stale(s, 230, 3, &rq, &fl, &err) == 0 && rq == 0 && fl == 0,
	   "nothing is stale before the lease ends");
	ok(kj_queue_requeue_stale(s, 232, 3, &rq, &fl, &err) == 0 && rq == 1 && fl == 0,
	   "after it, job b is queued again");
	ok(kj_queue_get(s, b, &j, &err) == 0 && j.state == KJ_JOB_QUEUED && j.attempts == 1 && !j.owner[0],
	   "queued, its attempt still counted, no owner (was '%s')", j.owner);
	ok(kj_queue_complete(s2, b, "srv2", KJ_JOB_DONE, 0, "pass", "{}", NULL, 233, &err) == KJ_E_NOTFOUND,
	   "the server that lost it cannot complete it");
	ok(kj_queue_claim(s, "cpu", "srv3", 240, 10, &j, &got, &err) == 0 && got && j.id == b &&
	   j.attempts == 2,
	   "claimed again before newer jobs: attempts 2");
	ok(kj_queue_release(s, b, "srv3", &err) == 0, "released by its owner");
	ok(kj_queue_get(s, b, &j, &err) == 0 && j.state == KJ_JOB_QUEUED && j.attempts == 2 && !j.owner[0],
	   "back to queued, attempts kept, no owner (was '%s')", j.owner);
	ok(kj_queue_claim(s, "cpu", "srv3", 250, 10, &j, &got, &err) == 0 && got && j.id == b &&
	   j.attempts == 3,
	   "a third claim");
	ok(kj_queue_requeue_stale(s, 261, 3, &rq, &fl, &err) == 0 && rq == 0 && fl == 1,
	   "stale after 3 attempts: failed, not queued again");
	ok(kj_queue_get(s, b, &j, &err) == 0 && j.state == KJ_JOB_FAILED && strstr(j.error, "3 attempts"),
	   "failed with the reason (%s)", j.error);

	/* failed completion */
	ok(kj_queue_claim(s, "cpu", "srv1", 300, 30, &j, &got, &err) == 0 && got, "claim another");
	c = j.id;
	ok(kj_queue_complete(s, c, "srv1", KJ_JOB_FAILED, 0, NULL, NULL, "the judge failed: x", 301, &err) == 0 &&
	   kj_queue_get(s, c, &j, &err) == 0 && j.state == KJ_JOB_FAILED && !strcmp(j.error, "the judge failed: x") &&
	   j.verdict == NULL,
	   "a failed job keeps its error");

	/* list and counts */
	cnt = 0;
	ok(kj_queue_list(s, -1, 0, 0, 0, count_cb, &cnt, &err) == 0 && cnt == 6,
	   "list: every job (%d), without source or verdict", cnt);
	cnt = 0;
	ok(kj_queue_list(s, KJ_JOB_QUEUED, 9, 0, 0, count_cb, &cnt, &err) == 0 && cnt == 2,
	   "list: token 9's queued jobs (%d)", cnt);
	cnt = 0;
	ok(kj_queue_list(s, -1, 0, b, 2, count_cb, &cnt, &err) == 0 && cnt == 2, "list: after an id, limited");
	ok(kj_queue_counts(s, 0, n, &err) == 0 && n[KJ_JOB_DONE] == 1 && n[KJ_JOB_FAILED] == 2 &&
	   n[KJ_JOB_CANCELLED] == 1 && n[KJ_JOB_QUEUED] == 2 && n[KJ_JOB_RUNNING] == 0,
	   "counts per state: 2 queued, 1 done, 2 failed, 1 cancelled");

	/* tokens */
	{
		struct kj_token t, *v = NULL;
		int nt = 0;
		const char *h1 = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
		const char *h2 = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
		int64_t id;
		ok(kj_token_add(s, "alice", h1, 5, &id, &err) == 0 && id > 0, "add token alice");
		ok(kj_token_add(s, "alice", h2, 0, NULL, &err) == KJ_E_USAGE, "a name is unique (%s)", err.msg);
		ok(kj_token_add(s, "bob", "abc", 0, NULL, &err) == KJ_E_USAGE, "a hash is 64 hex digits");
		ok(kj_token_find(s, h1, &t, &err) == 0 && !strcmp(t.name, "alice") && t.quota == 5 && t.id == id,
		   "find by hash");
		ok(kj_token_find(s, h2, &t, &err) == KJ_E_NOTFOUND, "an unknown hash is not found");
		ok(kj_token_add(s, "bob", h2, 0, NULL, &err) == 0 && kj_token_list(s, &v, &nt, &err) == 0 &&
		   nt == 2 && !strcmp(v[1].name, "bob"),
		   "list tokens");
		free(v);
		ok(kj_token_remove(s, "alice", &err) == 0 && kj_token_find(s, h1, &t, &err) == KJ_E_NOTFOUND,
		   "remove a token");
		ok(kj_token_remove(s, "alice", &err) == KJ_E_NOTFOUND, "removing it again: not found");
	}
	is_str(kj_job_state_name(KJ_JOB_CANCELLED), "cancelled", "state names");
	ok(kj_job_state_from_name("running", &st) == 0 && st == KJ_JOB_RUNNING &&
	   kj_job_state_from_name("nope", &st) == -1,
	   "state from name");

	kj_job_release(&j);
}

#endif
