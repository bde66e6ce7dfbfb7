/* The record layer: the task cache (found by key or id, loaded once, its
 * failures kept only when asked, its tasks row), the CPU's devices row, and
 * kj_record_judge's two ways: a copy from the verdict cache (through the
 * store or a caller's sink) and a judgement stored with its row. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/hash.h"
#include "kjudge/record.h"
#include "kjudge/store.h"
#include "store_testlib.h"
#include "tap.h"

static const char task_text[] =
	"task relu\nlevel 1\ncategory Activation\nabout \"ReLU\"\n"
	"input  x: f32[B, D] ~ normal\noutput y: f32[B, D]\ny = relu(x)\n"
	"check B=1 D=1; B=3 D=5\nbench B=64 D=64\n";
static const char source[] = "void relu(const float *x, float *y, long B, long D) { this is not C }\n";


static int loads;

static int counting_load(void *ctx, const char *key, kj_task **out, struct kj_err *err)
{
	(void)ctx;
	loads++;
	return kj_task_load(key, out, err);
}

static void test_tasks(const char *kt)
{
	struct kj_record_tasks tc;
	struct kj_err err;
	const kj_task *a = NULL, *b = NULL, *c = NULL;
	char sha[65], want[65];
	kj_db *s = NULL;
	kj_err_init(&err);
	kj_sha256_hex(task_text, strlen(task_text), want);
	kj_record_tasks_init(&tc, counting_load, NULL);
	loads = 0;
	is_int(kj_record_task_get(&tc, kt, &a, sha, &err), 0, "a task loads by its path (%s)", err.msg);
	ok(!strcmp(sha, want), "with the hash of its .kt file");
	is_int(kj_record_task_get(&tc, kt, &b, NULL, &err), 0, "again by the same key");
	ok(a && kj_record_task_get(&tc, a->id, &c, NULL, &err) == 0, "and by its id");
	ok(a == b && a == c, "one kj_task");
	is_int(loads, 1, "one load");
	ok(kj_record_task_get(&tc, tmp_path("missing.kt"), &a, NULL, &err) != 0 &&
		   kj_record_task_get(&tc, tmp_path("missing.kt"), &a, NULL, &err) != 0,
	   "a task that does not load fails");
	is_int(loads, 3, "and is tried again");
	like(err.msg, "missing.kt", "its error names the file");
	kj_record_tasks_release(&tc);

	kj_record_tasks_init(&tc, counting_load, NULL);
	tc.keep_failures = 1;
	loads = 0;
	kj_err_init(&err);
	ok(kj_record_task_get(&tc, tmp_path("missing.kt"), &a, NULL, &err) != 0, "keep_failures: fails");
	kj_err_init(&err);
	ok(kj_record_task_get(&tc, tmp_path("missing.kt"), &a, NULL, &err) != 0, "and fails again");
	is_int(loads, 1, "without being tried again");
	like(err.msg, "missing.kt", "the kept error is the load's");
	kj_record_tasks_release(&tc);

	kj_store_open(tmp_path("tasks.sqlite"), &s, &err);
	kj_record_tasks_init(&tc, NULL, NULL);
	tc.db = s;
	is_int(kj_record_task_get(&tc, kt, &a, NULL, &err), 0, "with a store: loads (%s)", err.msg);
	is_int(q_int(s, "SELECT count(*) FROM tasks WHERE sha256 <> ''"), 1, "and writes its tasks row");
	kj_record_tasks_release(&tc);
	kj_store_close(s);
}

struct sink {
	int copies;
	int64_t from, to;
};

static int sink_copy(void *ctx, int64_t from, int64_t to, struct kj_err *err)
{
	struct sink *k = ctx;
	k->copies++;
	k->from = from;
	k->to = to;
	return kj_err_set(err, KJ_E_NOTFOUND, "the lease was lost");
}

static int64_t add(kj_db *s, int64_t run, const kj_task *t, int sample)
{
	struct kj_store_candidate c;
	int64_t id = 0;
	memset(&c, 0, sizeof(c));
	c.run_id = run;
	c.task = t->id;
	c.source = source;
	c.source_len = strlen(source);
	c.model = "m";
	c.sample = sample;
	kj_store_add_candidate(s, &c, &id, NULL, NULL);
	return id;
}

static void test_judge(const kj_task *t, const char *inc)
{
	struct kj_eval_opts eo;
	struct kj_recorder rec;
	struct kj_record_cand c;
	struct kj_record_out out;
	struct kj_err err;
	struct sink sk;
	kj_db *s = NULL;
	kj_status st;
	int64_t run = 0, dev = 0, a, b, d;
	char name[128] = "", key[256], sha[65], *json = NULL;
	kj_err_init(&err);
	if (!ok(kj_store_open(tmp_path("judge.sqlite"), &s, &err) == 0, "open a store"))
		return;
	kj_store_run_get_or_create(s, "r", "cpu", "spec", "{}", &run, &err);
	kj_store_put_task(s, t, "", &err);
	is_int(kj_record_cpu_device(s, &dev, name, sizeof(name), &err), 0, "the CPU's devices row");
	ok(dev > 0 && name[0], "has an id and a name (%s)", name);

	kj_eval_opts_init(&eo);
	eo.unconfined = 1;
	eo.no_perf = 1;
	eo.include_dir = inc;
	eo.cache_dir = tmp_path("cache");
	eo.worker_path = tmp_path("no-worker");
	{
		struct kj_verdict_settings vs;
		kj_eval_opts_settings(&eo, &vs);
		kj_store_cache_key(&vs, key, sizeof(key));
	}
	memset(&rec, 0, sizeof(rec));
	rec.db = s;
	rec.run_id = run;
	rec.device_id = dev;
	rec.cache_key = key;
	rec.eval = &eo;
	kj_sha256_hex(source, strlen(source), sha);
	a = add(s, run, t, 0);
	b = add(s, run, t, 1);
	d = add(s, run, t, 2);
	memset(&c, 0, sizeof(c));
	c.t = t;
	c.source = source;
	c.len = strlen(source);
	c.sha256 = sha;
	c.want_json = 1;

	/* the source does not compile, so kj_eval reaches a verdict without a
	 * worker */
	c.id = a;
	if (is_int(kj_record_judge(&rec, &c, &out, &err), 0, "judged and stored (%s)", err.msg)) {
		ok(out.how == KJ_RECORD_JUDGED && out.failed == KJ_RECORD_STEP_NONE, "as a judgement");
		like(out.json, "\"candidate_sha256\"", "its JSON handed back");
		is_int(q_int(s, "SELECT count(*) FROM judgements"), 1, "one judgements row");
		ok(kj_store_get_verdict(s, a, &json, &st, NULL) == 0 && out.json && !strcmp(json, out.json) &&
			   st == out.status,
		   "the stored verdict is the one handed back");
		free(json);
		free(out.json);
	}

	c.id = b;
	if (is_int(kj_record_judge(&rec, &c, &out, &err), 0, "the same source again")) {
		ok(out.how == KJ_RECORD_COPIED && out.from == a, "is a copy of the first (from %lld)",
		   (long long)out.from);
		ok(out.json && strstr(out.json, sha), "with the stored JSON");
		is_int(q_int(s, "SELECT count(*) FROM judgements"), 1, "and no judgements row");
		free(out.json);
	}

	memset(&sk, 0, sizeof(sk));
	rec.copy = sink_copy;
	rec.ctx = &sk;
	c.id = d;
	c.want_json = 0;
	is_int(kj_record_judge(&rec, &c, &out, &err), KJ_E_NOTFOUND, "a sink's copy error is returned");
	ok(sk.copies == 1 && sk.from == a && sk.to == d && out.failed == KJ_RECORD_STEP_COPY,
	   "the sink copied a to d once, the step is the copy");
	ok(out.json == NULL, "nothing handed out on an error");
	rec.copy = NULL;
	rec.ctx = NULL;

	rec.cache_key = "other-settings";
	is_int(kj_record_judge(&rec, &c, &out, &err), 0, "other settings: not a cache hit");
	ok(out.how == KJ_RECORD_JUDGED, "judged afresh");
	is_int(q_int(s, "SELECT count(*) FROM judgements"), 2, "with a second judgements row");
	kj_store_close(s);
}

int main(void)
{
	struct kj_err err;
	kj_task *t = NULL;
	const char *tmp = getenv("TMPDIR");
	char cwd[4096], inc[4200], kt[512];
	FILE *f;
	snprintf(dir, sizeof(dir), "%s/kj-record-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir) || !getcwd(cwd, sizeof(cwd))) {
		printf("Bail out! cannot create a temporary folder\n");
		return 1;
	}
	snprintf(inc, sizeof(inc), "%s/include/candidate", cwd);
	snprintf(kt, sizeof(kt), "%s", tmp_path("relu.kt"));
	f = fopen(kt, "w");
	if (!f || fputs(task_text, f) < 0 || fclose(f)) {
		printf("Bail out! cannot write the task\n");
		return 1;
	}
	kj_err_init(&err);
	test_tasks(kt);
	if (kj_task_load(kt, &t, &err)) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	test_judge(t, inc);
	kj_task_free(t);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd))
			printf("# could not remove %s\n", dir);
	}
	return done_testing();
}
